package runner

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// awaitSilence checks a step that expects no reply (exp.Silent): the
// server closes the connection within exp.Within, or the step's timeout
// (cases.ExpectClosed), or sends nothing for exp.Within and keeps the
// connection open (cases.ExpectNoReply). A reply that arrives is a failure
// that shows it.
func (x *caseRun) awaitSilence(c *conn, timeout time.Duration, exp *cases.Expect, sr *StepResult) (*Failure, error) {
	wait := exp.Within
	if wait == 0 {
		wait = timeout
	}
	before := len(c.pushes)
	v, err := c.readReply(wait, nil)
	x.keepPushes(c, before, sr)
	var ne net.Error
	if fail := x.pushBefore(sr.Step, c, before); fail != nil {
		fail.Expected, fail.Message = "no push frame (no_push)", strings.Replace(fail.Message, "before the reply", "while the step waited", 1)
		return fail, nil
	}
	switch {
	case err == nil:
		sr.Reply, sr.ReplySize = x.keep(v.Raw), len(v.Raw)
		fail, err := compare(exp, v, x.env)
		if fail != nil {
			fail.Actual = sr.Reply
		}
		return fail, err
	case errors.As(err, &ne) && ne.Timeout():
		if exp.Kind == cases.ExpectNoReply {
			return nil, nil
		}
		return &Failure{Offset: -1, Expected: "the connection closed by the server",
			Message: fmt.Sprintf("the connection is still open after %s", wait)}, nil
	case closedByPeer(err):
		// A later step on this connection opens a new one.
		c.closed, c.noSentinel = true, true
		if exp.Kind == cases.ExpectClosed {
			return nil, nil
		}
		return &Failure{Offset: -1, Expected: "no reply within " + wait.String(),
			Message: "the server closed the connection"}, nil
	}
	return nil, fmt.Errorf("read: %w", err)
}

// closedByPeer reports whether a read error means the server closed the
// connection: at a frame boundary (EOF), inside a frame, or with a reset.
func closedByPeer(err error) bool {
	var se *resp.SyntaxError
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &se) && errors.Is(se.Err, io.ErrUnexpectedEOF)
}

// drainReplies reads replies from..len(st.Replies)-1 of a replies: step
// that already failed, unjudged (those expected silent are not waited
// for), so that the steps after it read their own.
func (x *caseRun) drainReplies(c *conn, timeout time.Duration, st *cases.Step, from int, sr *StepResult) error {
	for i := from; i < len(st.Replies); i++ {
		exp, ok := st.Replies[i].Resolve(x.info)
		if !ok || exp.Silent() {
			continue
		}
		if _, _, err := x.receive(c, timeout, st, exp, sr); err != nil {
			return fmt.Errorf("reply %d of %d: %w", i+1, len(st.Replies), err)
		}
	}
	return nil
}

// receiveReplies reads and checks the several replies of a step with
// replies: [...], in order; the step's reply is their bytes one after the
// other, which the golden compares as one.
func (x *caseRun) receiveReplies(c *conn, timeout time.Duration, st *cases.Step, sr *StepResult) (*Failure, error) {
	var all []byte
	n := len(st.Replies)
	for i, vs := range st.Replies {
		exp, ok := vs.Resolve(x.info)
		if !ok {
			return nil, fmt.Errorf("no expectation of reply %d of %d of this step matches %s %s in RESP%d", i+1, n, x.srv.Family, x.srv.Version, x.proto)
		}
		var fail *Failure
		var err error
		if exp.Silent() {
			fail, err = x.awaitSilence(c, timeout, exp, sr)
		} else {
			var v resp.Value
			if v, fail, err = x.receive(c, timeout, st, exp, sr); fail == nil && err == nil {
				all = append(all, v.Raw...)
				fail, err = x.judgeValue(c, st, exp, v, sr)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("reply %d of %d: %w", i+1, n, err)
		}
		if fail != nil {
			fail.Message = fmt.Sprintf("reply %d of %d: %s", i+1, n, fail.Message)
			if x.c.ContinueOnFailure {
				// The steps go on: the replies still to come are this
				// step's, not the next one's.
				return fail, x.drainReplies(c, timeout, st, i+1, sr)
			}
			return fail, nil
		}
	}
	sr.Reply, sr.ReplySize = x.keep(all), len(all)
	exp, _ := st.Expect.Resolve(x.info)
	return x.checkGolden(st, exp, all, sr), nil
}
