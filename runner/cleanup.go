package runner

import (
	"context"
	"time"
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
	for _, p := range prefixes {
		if err := r.sweepPrefix(p); err != nil {
			return
		}
	}
}

// sweepPrefix deletes the keys under p on the node that serves its slot.
func (r *run) sweepPrefix(p string) error {
	n, err := r.t.DeleteCaseKeys(context.Background(), p)
	r.keysRemoved.Add(int64(n))
	return err
}
