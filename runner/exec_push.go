package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// receivePush reads the push frame a push step awaits; a reply read
// instead is the step's failure.
func (x *caseRun) receivePush(c *conn, timeout time.Duration, sr *StepResult) (resp.Value, *Failure, error) {
	v, err := c.readPush(timeout)
	if errors.Is(err, errNotPush) {
		sr.Reply = x.keep(v.Raw)
		return v, &Failure{Actual: sr.Reply, Offset: -1, Expected: "a push frame",
			Message: "want a push frame, got a reply (" + v.Kind.String() + ")"}, nil
	}
	return v, nil, err
}

// pushAccepter says whether a push frame is the awaited reply itself: when
// the expectation is a push (bytes starting with '>' or a typed push).
func pushAccepter(e *cases.Expect, env *cases.Env) func(resp.Value) bool {
	if e == nil || !e.AcceptsPush() {
		return nil
	}
	return func(resp.Value) bool { return true }
}

// strayGrace is how long the end-of-case check waits for a reply that
// nobody asked for.
const strayGrace = 2 * time.Millisecond

// checkStray fails (or errs) a passing case whose connections hold a reply
// after its last step (see strayReplies).
func (x *caseRun) checkStray(res *Result) {
	if res.Status != Pass || len(x.c.Steps) == 0 {
		return
	}
	last := x.c.Steps[len(x.c.Steps)-1]
	fail, err := x.strayReplies()
	switch {
	case err != nil:
		res.Status, res.Reason, res.Malformed = Error, fmt.Sprintf("%s: %v", last.Pos, err), true
	case fail != nil:
		failAt(res, last, fail)
	}
}

// strayReplies checks that no connection of the case holds a reply after
// its last step: a server that answers one command twice (Redis 8.6.3 does,
// for SET ... IFDEQ with a malformed digest on an existing key) shifts every
// later reply by one. Push frames are out of band and allowed.
func (x *caseRun) strayReplies() (*Failure, error) {
	for _, name := range x.order {
		if fail, err := x.strayReply(name); fail != nil || err != nil {
			return fail, err
		}
	}
	return nil, nil
}

// strayReply is strayReplies for one connection.
func (x *caseRun) strayReply(name string) (*Failure, error) {
	c := x.conns[name]
	c.armed = false
	for {
		c.nc.SetReadDeadline(time.Now().Add(strayGrace))
		v, err := c.r.Read()
		var se *resp.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("connection %q after the last step: %w", name, err)
		case err != nil && c.r.Buffered() > 0:
			return &Failure{Offset: -1, Expected: "nothing more",
				Message: fmt.Sprintf("connection %q received %d bytes after the last step that are not a complete frame", name, c.r.Buffered())}, nil
		case err != nil:
			return nil, nil // nothing more (a timeout), or the connection is gone
		case v.Kind == resp.Push:
			continue
		}
		return &Failure{Actual: x.keep(v.Raw), Offset: -1, Expected: "nothing more",
			Message: fmt.Sprintf("connection %q received a reply after the last step, to no command", name)}, nil
	}
}
