package runner

import (
	"context"
	"time"

	"github.com/respcheck/respcheck/runner/target"
)

// sweepGrace is how long the final sweep waits for the server to finish
// commands that broken connections had already sent.
const sweepGrace = 250 * time.Millisecond

// sweep deletes, once more after sweepGrace, the keys of every case that
// ended in an error: a command written just before a timeout can still run
// on the server after the case's own cleanup (a 1 MiB SET whose write timed
// out), and would leave a key behind.
func (r *run) sweep(results []*Result) {
	var prefixes []string
	for _, res := range results {
		if res != nil && res.Status == Error && res.KeyPrefix != "" {
			prefixes = append(prefixes, res.KeyPrefix)
		}
	}
	if len(prefixes) == 0 {
		return
	}
	time.Sleep(sweepGrace)
	c, err := r.t.Dial(context.Background(), 2)
	if err != nil {
		return
	}
	defer c.Close()
	for _, p := range prefixes {
		n, err := target.DeleteKeys(c, p)
		r.keysRemoved.Add(int64(n))
		if err != nil {
			return
		}
	}
}
