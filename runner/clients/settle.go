package clients

import (
	"context"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
)

// settler is implemented by sessions whose library can throw outside any
// call (a Node library from its own event handler, while it parses a frame
// no call waits for). Settle returns what it threw since the session's
// last call, once the library's process has handled the bytes already
// delivered to it and then let wait pass twice. Without it, whether such
// an exception was seen depended on timing: node-redis 4.7.1, subscribed
// through its generic command API, throws a TypeError for each message
// frame, which landed on a call in flight on another connection in one
// run and on nothing in the next.
type settler interface {
	Settle(ctx context.Context, wait time.Duration) ([]string, error)
}

// settleWait is how long an adapter lets its event loop run, twice, before
// it answers the settle of a case that reads pushes; settleQuiet is how
// long the proxy must have forwarded nothing first, settleMax how long
// that wait may take at most.
const (
	settleWait  = 10 * time.Millisecond
	settleQuiet = 20 * time.Millisecond
	settleMax   = 500 * time.Millisecond
)

// settle asks a settler session, at the end of a case, what its library
// threw outside any call; each exception makes the case's last step a
// crash. A case that reads pushes first waits for the proxy to be quiet
// (its last frames may be messages no call waits for); other cases' frames
// are replies, which their calls waited for, and they settle at once.
func (s *session) settle(res *Result) {
	st, ok := s.sess.(settler)
	if !ok || s.dead != "" || len(res.Steps) == 0 || s.ctx.Err() != nil {
		return
	}
	var wait time.Duration
	if hasPushStep(s.it.c) {
		s.waitQuiet()
		wait = settleWait
	}
	ctx, cancel := context.WithTimeout(s.ctx, max(s.opts.StepTimeout, time.Second))
	defer cancel()
	thrown, err := st.Settle(ctx, wait)
	if err != nil || len(thrown) == 0 {
		return
	}
	last := &res.Steps[len(res.Steps)-1]
	last.raise(Crash, ruleException)
	// First: it is why the step is a crash.
	last.Notes = append([]string{"after the case's last step, outside any call, the library threw: " + strings.Join(thrown, "; ")}, last.Notes...)
	res.Verdict = max(res.Verdict, Crash)
}

// waitQuiet waits until the proxy has forwarded nothing for settleQuiet
// (settleMax at most): the frames the server sent last have reached the
// library.
func (s *session) waitQuiet() {
	deadline := time.Now().Add(settleMax)
	seq := s.proxy.Seq()
	for time.Now().Before(deadline) {
		time.Sleep(settleQuiet)
		now := s.proxy.Seq()
		if now == seq {
			return
		}
		seq = now
	}
}

// hasPushStep reports whether c reads a push frame in any step.
func hasPushStep(c *cases.Case) bool {
	for _, st := range c.Steps {
		if st.Action == cases.ActPush {
			return true
		}
	}
	return false
}
