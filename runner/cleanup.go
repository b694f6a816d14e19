package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// deleteKeys removes every key whose name starts with prefix, with SCAN
// MATCH and UNLINK, and returns how many it removed. prefix must not contain
// glob metacharacters other than the ones it escapes here.
func deleteKeys(c *conn, prefix string, timeout time.Duration) (int, error) {
	pattern := globEscape(prefix) + "*"
	cursor := "0"
	n := 0
	// A SCAN that never returns cursor 0 (a broken server or proxy) must
	// not keep the run forever: 100,000 rounds of COUNT 1000 is far more
	// than any keyspace a case makes.
	for round := 0; ; round++ {
		if round == 100000 {
			return n, fmt.Errorf("SCAN MATCH %s did not finish", pattern)
		}
		v, err := c.roundTrip(timeout, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return n, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return n, &errServer{cmd: "SCAN", v: v.Clone()}
		}
		cursor = string(v.Elems[0].Str)
		var keys []string
		for _, k := range v.Elems[1].Elems {
			// Only the run's own keys, whatever SCAN returned: a server or
			// proxy that ignores MATCH must not get other keys deleted.
			if strings.HasPrefix(string(k.Str), prefix) {
				keys = append(keys, string(k.Str))
			}
		}
		if len(keys) > 0 {
			args := append([]string{"UNLINK"}, keys...)
			d, err := c.roundTrip(timeout, args...)
			if err != nil {
				return n, err
			}
			if d.Kind == resp.Integer {
				n += int(d.Int)
			}
		}
		if cursor == "0" {
			return n, nil
		}
	}
}

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
	c, err := r.d.dial(context.Background(), "sweep", 2)
	if err != nil {
		return
	}
	defer c.close()
	for _, p := range prefixes {
		n, err := deleteKeys(c, p, r.opts.StepTimeout)
		r.keysRemoved.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// dbSize returns DBSIZE of the target's database, or -1.
func dbSize(d *dialer) (int64, error) {
	c, err := d.dial(context.Background(), "dbsize", 2)
	if err != nil {
		return -1, err
	}
	defer c.close()
	v, err := c.roundTrip(d.timeout, "DBSIZE")
	if err != nil {
		return -1, err
	}
	if v.Kind != resp.Integer {
		return -1, &errServer{cmd: "DBSIZE", v: v.Clone()}
	}
	return v.Int, nil
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
