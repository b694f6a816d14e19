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
// nobody asked for on a connection where no sentinel can be sent (see
// conn.noSentinel).
const strayGrace = 2 * time.Millisecond

// refusalGrace is how long the end-of-case check waits, after a server
// refused or answered with errors both sentinels' worth of frames, for a
// sentinel's reply that would make one of those errors a stray (see
// afterError). Its reply is one round trip away, which took more than 2 ms
// under CI load (TestStrayRepliesAreFound passed two stray errors, stop 38).
// Only a case that ends with its connection refusing PING (an ACL user
// without it, BUSY) waits it out: none in the bundled suite on Redis
// 7.0.15, 8.6.3 or Valkey 9.1.2.
const refusalGrace = 500 * time.Millisecond

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
//
// Each connection gets a sentinel, PING with a token of the case, written to
// all of them before any is read: every frame before the sentinel's reply is
// a stray, and nothing waits idle. A connection that may not answer a
// sentinel (conn.noSentinel, or an async reply still unread, which may be a
// blocked command) waits strayGrace instead, before any sentinel is sent: a
// MONITOR connection would see them.
func (x *caseRun) strayReplies() (*Failure, error) {
	var probed []string
	for _, name := range x.order {
		if c := x.conns[name]; !c.noSentinel && len(c.pending) == 0 {
			probed = append(probed, name)
		} else if fail, err := x.strayReply(name); fail != nil || err != nil {
			return fail, err
		}
	}
	token := "respcheck-end-of-case-" + x.env.KeyPrefix
	ping := resp.AppendCommandString(nil, "PING", token)
	sent := make([]bool, len(probed))
	for i, name := range probed {
		sent[i] = x.conns[name].write(x.opts.StepTimeout, ping) == nil
	}
	for i, name := range probed {
		check := x.untilSentinel
		if !sent[i] {
			// The connection is gone: only what is buffered is left.
			check = func(name, _ string) (*Failure, error) { return x.strayReply(name) }
		}
		if fail, err := check(name, token); fail != nil || err != nil {
			return fail, err
		}
	}
	return nil, nil
}

// untilSentinel reads connection name's frames up to the reply to the
// sentinel PING token (see strayReplies).
func (x *caseRun) untilSentinel(name, token string) (*Failure, error) {
	c := x.conns[name]
	for {
		v, err := c.r.Read()
		if done, fail, err := x.endOfStream(name, err); done {
			return fail, err
		}
		switch {
		case v.Kind == resp.Push:
			continue
		case isSentinelReply(v, token):
			x.confirmed++
			return nil, nil
		case v.Kind == resp.SimpleError || v.Kind == resp.BlobError:
			return x.afterError(name, token, v)
		}
		return strayFailure(x, name, v), nil
	}
}

// afterError tells apart an error that refused the sentinel (BUSY, NOAUTH,
// ...) from a stray error, which the sentinel's reply follows. It sends a
// second sentinel and reads on: a server that refused the first refuses the
// second too (or, its state changed, answers it), while after a stray error
// the first sentinel's reply comes next. Waiting a fixed grace for that
// reply instead took a stray error for the refusal whenever the machine was
// slow for longer than the grace (TestStrayRepliesAreFound under CI load).
//
// Two sentinels get two replies, e's included when it refused the first: a
// frame that answers neither (not an error, not a sentinel's reply), or a
// third error, is a stray too; an error followed by the second sentinel's
// reply leaves one frame too many. Only an error that ends the frames (both
// sentinels refused, or a stray error, then the first sentinel refused,
// whose second reply has not come within refusalGrace) counts as refusals.
func (x *caseRun) afterError(name, token string, e resp.Value) (*Failure, error) {
	fail := strayFailure(x, name, e)
	c := x.conns[name]
	second := token + "-again"
	if err := c.write(x.opts.StepTimeout, resp.AppendCommandString(nil, "PING", second)); err != nil {
		// The connection is gone: only what is buffered is left.
		return x.strayReply(name)
	}
	errs := 0 // errors read after e
	for {
		v, err := c.r.Read()
		if done, f, err := x.endOfStream(name, err); done {
			if f == nil && err == nil && errs == 1 {
				x.confirmed++ // both sentinels refused, as refusals count
			}
			return f, err
		}
		switch {
		case v.Kind == resp.Push:
			continue
		case v.Kind == resp.SimpleString && string(v.Str) == "QUEUED" && errs == 0:
			// Inside MULTI both sentinels answer +QUEUED: whether one or
			// two come is all that tells them apart (refusalGrace for a second).
			return x.queuedAfterError(name, fail)
		case isSentinelReply(v, token):
			return fail, nil // e came before the first sentinel's reply
		case isSentinelReply(v, second):
			if errs > 0 {
				return fail, nil // e and another error for one sentinel
			}
			x.confirmed++ // e refused the first sentinel: in step
			return nil, nil
		case v.Kind == resp.SimpleError || v.Kind == resp.BlobError:
			if errs++; errs > 1 {
				return fail, nil // three errors for two sentinels
			}
			// The second sentinel refused too, or the first after a
			// stray e: the second's reply, if it comes, says which.
			c.until = time.Time{}
			c.nc.SetReadDeadline(time.Now().Add(refusalGrace))
			continue
		}
		return strayFailure(x, name, v), nil // an answer to no sentinel
	}
}

// queuedAfterError: a +QUEUED read after an error (see afterError) answered
// the first sentinel, and e was a stray, when another +QUEUED follows.
func (x *caseRun) queuedAfterError(name string, fail *Failure) (*Failure, error) {
	c := x.conns[name]
	for {
		c.until = time.Time{}
		c.nc.SetReadDeadline(time.Now().Add(refusalGrace))
		v, err := c.r.Read()
		if done, f, err := x.endOfStream(name, err); done {
			return f, err
		}
		if v.Kind != resp.Push {
			return fail, nil
		}
	}
}

// isSentinelReply reports whether v answers PING token: the token as a blob
// string, ["pong", token] on a RESP2 subscribed connection, or +QUEUED
// inside MULTI.
func isSentinelReply(v resp.Value, token string) bool {
	switch v.Kind {
	case resp.BlobString:
		return string(v.Str) == token
	case resp.Array:
		return len(v.Elems) == 2 && string(v.Elems[0].Str) == "pong" && string(v.Elems[1].Str) == token
	case resp.SimpleString:
		return string(v.Str) == "QUEUED"
	}
	return false
}

// strayReply waits strayGrace for a stray reply on connection name.
func (x *caseRun) strayReply(name string) (*Failure, error) {
	c := x.conns[name]
	for {
		c.until = time.Time{}
		c.nc.SetReadDeadline(time.Now().Add(strayGrace))
		v, err := c.r.Read()
		if done, fail, err := x.endOfStream(name, err); done {
			return fail, err
		}
		if v.Kind == resp.Push {
			continue
		}
		return strayFailure(x, name, v), nil
	}
}

// endOfStream judges a read error at the end of a case: a syntax error is an
// error, bytes left that are not a complete frame a failure, and a timeout
// or a closed connection mean nothing more. done is false when err is nil.
func (x *caseRun) endOfStream(name string, err error) (done bool, fail *Failure, _ error) {
	c := x.conns[name]
	var se *resp.SyntaxError
	switch {
	case err == nil:
		return false, nil, nil
	case errors.As(err, &se):
		return true, nil, fmt.Errorf("connection %q after the last step: %w", name, err)
	case c.r.Buffered() > 0:
		return true, &Failure{Offset: -1, Expected: "nothing more",
			Message: fmt.Sprintf("connection %q received %d bytes after the last step that are not a complete frame", name, c.r.Buffered())}, nil
	}
	return true, nil, nil // nothing more (a timeout), or the connection is gone
}

// strayFailure is the failure of a reply v that no command of the case asked
// for.
func strayFailure(x *caseRun, name string, v resp.Value) *Failure {
	return &Failure{Actual: x.keep(v.Raw), Offset: -1, Expected: "nothing more",
		Message: fmt.Sprintf("connection %q received a reply after the last step, to no command", name)}
}
