package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/respcheck/respcheck/runner/target"
)

// cleanup runs the case's cleanup steps whatever happened before, on
// fresh connections where a step's connection is broken, with a context that
// a Ctrl-C does not cancel. A cleanup step that fails or errs turns a
// passing result into an error; other results keep their status and gain a
// note.
func (x *caseRun) cleanup(ctx context.Context, res *Result) {
	if len(x.c.Cleanup) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for name, c := range x.conns {
		if c.pending > 0 || res.Status == Error {
			// The connection may hold unread replies or be broken: the
			// cleanup gets a new one.
			c.close()
			x.mu.Lock()
			delete(x.conns, name)
			x.mu.Unlock()
			x.order = slices.DeleteFunc(x.order, func(n string) bool { return n == name })
		}
	}
	for _, st := range x.c.Cleanup {
		sr, fail, err := x.step(cctx, st)
		res.Steps = append(res.Steps, sr)
		msg := ""
		switch {
		case err != nil:
			msg = fmt.Sprintf("cleanup step %s: %v", st.Pos, err)
		case fail != nil:
			msg = fmt.Sprintf("cleanup step %s: %s", st.Pos, fail.Message)
		}
		if msg == "" {
			continue
		}
		if res.Status == Pass {
			res.Status, res.Reason = Error, msg
		} else {
			res.Reason += "; " + msg
		}
		return
	}
}

// close deletes the case's keys in a shared run (if it opened a
// connection, it may have written some) and closes its connections.
func (x *caseRun) close() {
	if x.opts.Shared && len(x.conns) > 0 {
		x.deleteKeys(x.t, x.env.KeyPrefix)
	}
	for _, name := range x.order {
		x.conns[name].close()
	}
	if x.keysConn != nil {
		x.keysConn.close()
	}
}

// deleteKeys deletes every key under prefix on a fresh connection to t, with a
// context that a Ctrl-C does not cancel; a shared run counts them in
// Report.KeysRemoved.
func (r *run) deleteKeys(t *target.Target, prefix string) {
	c, err := t.Dial(context.Background(), 2)
	if err != nil {
		return
	}
	defer c.Close()
	n, _ := target.DeleteKeys(c, prefix)
	if r.opts.Shared {
		r.keysRemoved.Add(int64(n))
	}
}
