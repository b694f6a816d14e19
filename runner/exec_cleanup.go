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
	cctx, cancel := x.cleanupContext(ctx)
	defer cancel()
	if x.c.Exclusive && x.t.Current() != nil && !x.run.unreachable.Load() {
		// A cleanup that moves a slot back must start from a settled
		// cluster: the source takes the slot back with a new config epoch
		// only if it has heard of the destination's (Redis 8.6.3 over
		// TLS: the source kept epoch 8 under the destination's 9, and the
		// nodes disagreed on the slot for good). Not settling is no error
		// here: the case may have failed halfway; settle, after, says.
		x.t.Settle(cctx, settleLimit)
	}
	// A cleanup step blocked on a server lost meanwhile ends with the
	// budget (see cleanupContext).
	defer context.AfterFunc(cctx, x.interrupt)()
	for name, c := range x.conns {
		if len(c.pending) > 0 || res.Status == Error {
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
			fail.Step = st
			msg = fmt.Sprintf("cleanup step %s: %s", fail.Where(), fail.Message)
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

// settleLimit bounds the wait for a cluster to settle after an exclusive
// case (target.Target.Settle).
const settleLimit = 5 * time.Second

// settle waits, after an exclusive case on a cluster (the only kind that
// may move slots or change the topology), until the nodes agree on the
// primaries again, so that the next case does not start from a
// half-propagated configuration. A cluster that has not settled by
// settleLimit turns a passing result into an error; other results gain a
// note.
func (x *caseRun) settle(ctx context.Context, res *Result) {
	if !x.c.Exclusive || x.t.Current() == nil || x.run.unreachable.Load() {
		return
	}
	cctx, cancel := x.cleanupContext(ctx)
	defer cancel()
	err := x.t.Settle(cctx, settleLimit)
	switch {
	case err == nil:
	case res.Status == Pass:
		res.Status, res.Reason = Error, "after the cleanup: "+err.Error()
	default:
		res.Reason += "; after the cleanup: " + err.Error()
	}
}

// cleanupContext is the context of a case's cleanup: a Ctrl-C does not
// cancel it, 30 s bound it, and once the case's server is lost (its
// watchdog) it gets cleanupBudget more, one short attempt.
func (x *caseRun) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return budgeted(ctx, x.w, x.opts.StepTimeout, 30*time.Second)
}

// budgeted returns a context that ctx's cancellation does not reach, done
// after limit, or cleanupBudget after w's server is lost (w may be nil).
func budgeted(ctx context.Context, w *watchdog, stepTimeout, limit time.Duration) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	if w == nil {
		return cctx, cancel
	}
	go func() {
		select {
		case <-cctx.Done():
			return
		case <-w.lost:
		}
		select {
		case <-cctx.Done():
		case <-time.After(cleanupBudget(stepTimeout)):
			cancel()
		}
	}()
	return cctx, cancel
}

// close deletes the case's keys in a shared run (if it opened a
// connection, it may have written some), the literal keys of a
// literal_keys case elsewhere (deleteLiteral), and closes its connections.
func (x *caseRun) close() {
	if x.opts.Shared && len(x.conns) > 0 {
		x.deleteKeys(x.t, x.w, x.env.KeyPrefix, x.keys)
	}
	if !x.opts.Shared && x.keys != nil && len(x.keys.Literal) > 0 {
		x.deleteLiteral()
	}
	for _, name := range x.order {
		x.conns[name].close()
	}
	if x.keysConn != nil {
		x.keysConn.close()
	}
}

// deleteKeys deletes every key under prefix with a context that a Ctrl-C
// does not cancel, bounded once w's server is lost: the keys the case
// named (target.CaseKeys.Delete: one UNLINK when its commands named every
// key they could write), or with keys nil a scan of the prefix
// (target.DeleteCaseKeys); a shared run counts them in Report.KeysRemoved, and lists the
// prefix in Report.KeysLeft when they could not be deleted.
func (r *run) deleteKeys(t *target.Target, w *watchdog, prefix string, keys *target.CaseKeys) {
	if r.later(t, w, prefix, keys) {
		return
	}
	ctx, cancel := budgeted(context.Background(), w, r.opts.StepTimeout, 2*r.opts.StepTimeout+30*time.Second)
	defer cancel()
	var n int
	var err error
	if keys != nil {
		n, err = keys.Delete(ctx)
	} else {
		n, err = t.DeleteCaseKeys(ctx, prefix)
	}
	if r.opts.Shared {
		r.keysRemoved.Add(int64(n))
	}
	if err != nil && r.opts.Shared {
		r.leftMu.Lock()
		r.left = append(r.left, prefix+"*")
		r.leftMu.Unlock()
	}
}

// keysLeft returns Report.KeysLeft, sorted.
func (r *run) keysLeft() []string {
	r.leftMu.Lock()
	defer r.leftMu.Unlock()
	return slices.Sorted(slices.Values(r.left))
}
