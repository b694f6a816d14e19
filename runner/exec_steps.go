package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// step executes one step. A non-nil error is an infrastructure problem
// (status Error); a non-nil Failure is a reply that did not match.
func (x *caseRun) step(ctx context.Context, st *cases.Step) (sr StepResult, _ *Failure, _ error) {
	sr = StepResult{Step: st, Conn: st.Conn}
	if sr.Conn == "" {
		sr.Conn = "default"
	}
	start := time.Now()
	// sr is the named result: the deferred assignment reaches the caller.
	defer func() { sr.Duration = time.Since(start) }()
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = x.opts.StepTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		// A cleanup step after the server was lost has a budget.
		timeout = max(min(timeout, time.Until(dl)), time.Millisecond)
	}
	if st.Action == cases.ActSleep {
		return sr, nil, sleep(ctx, st.Sleep)
	}
	if err := ctx.Err(); err != nil {
		return sr, nil, err
	}
	// A cancelled run (Ctrl-C) unblocks a read or write at once (interrupt),
	// so the case can end and clean up its keys.
	c, err := x.conn(ctx, st)
	if err != nil {
		return sr, nil, err
	}
	exp, err := x.expectation(st)
	if err != nil {
		return sr, nil, err
	}
	x.async = st.Async
	err = x.send(ctx, c, timeout, st, &sr)
	x.async = false
	if err != nil {
		return sr, nil, err
	}
	if st.Async {
		c.pending = append(c.pending, st)
		return sr, nil, nil
	}
	if st.Replies != nil {
		fail, err := x.receiveReplies(c, timeout, st, &sr)
		if err == nil {
			err = x.restoreAfterReset(c)
		}
		return sr, fail, err
	}
	if exp != nil && exp.Silent() {
		fail, err := x.awaitSilence(c, timeout, exp, &sr)
		return sr, fail, err
	}
	v, fail, err := x.receive(c, timeout, st, exp, &sr)
	if fail != nil || err != nil {
		return sr, fail, err
	}
	if v, c, err = x.followRedirects(ctx, c, timeout, st, exp, v, &sr); err != nil {
		return sr, nil, err
	}
	fail, err = x.judge(c, st, exp, v, &sr)
	if err == nil {
		err = x.restoreAfterReset(c)
	}
	return sr, fail, err
}

// restoreAfterReset restores c's credentials (the run's ACL user's) and
// database once a RESET sent on it (c.reset: a send step's, an async
// one's once read, or one among a raw step's commands) has been
// answered: RESET logged the connection out and selected database 0,
// which are the run's, not the case's to lose. It waits while replies
// are pending on c or a command is unfinished.
func (x *caseRun) restoreAfterReset(c *conn) error {
	if !c.reset || len(c.pending) > 0 || len(c.rawTail) > 0 {
		return nil
	}
	c.reset = false
	return x.t.Restore(c.tc)
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// expectation returns the expectation of st that matches the server and
// protocol, nil for a step without one, or an error if none matches.
func (x *caseRun) expectation(st *cases.Step) (*cases.Expect, error) {
	if len(st.Expect) == 0 {
		return nil, nil
	}
	exp, ok := st.Expect.Resolve(x.info)
	if !ok {
		return nil, fmt.Errorf("no expectation of this step matches %s %s in RESP%d",
			x.srv.Family, x.srv.Version, x.proto)
	}
	return exp, nil
}

// send performs the sending part of a step (a command, raw bytes, or for a
// read step the claim of an async reply) and keeps what was sent in sr.
func (x *caseRun) send(ctx context.Context, c *conn, timeout time.Duration, st *cases.Step, sr *StepResult) error {
	switch st.Action {
	case cases.ActSend:
		return x.sendCommand(ctx, c, timeout, st, sr)
	case cases.ActRaw:
		return x.sendRaw(ctx, c, timeout, st, sr)
	case cases.ActRead:
		if len(c.pending) == 0 {
			return errors.New("read step without an earlier async send on this connection")
		}
		c.reading, c.pending = c.pending[0], c.pending[1:]
	}
	return nil
}

// sendCommand expands and sends a send step's command, streamed when it is
// large, with its literal keys in the namespace, after the guard of shared
// runs (prepare).
func (x *caseRun) sendCommand(ctx context.Context, c *conn, timeout time.Duration, st *cases.Step, sr *StepResult) error {
	if x.guarded() && len(c.rawTail) > 0 {
		return &refusal{"sends a command after raw bytes that do not end a command, which the server would read as one"}
	}
	big, err := x.bigCommand(st)
	if err != nil {
		return err
	}
	x.sentBig = big
	if big {
		return x.sendBig(ctx, c, timeout, st, sr)
	}
	// args is reused step after step: keepArgs copies what reports keep.
	args := slices.Grow(x.args[:0], len(st.Send))[:len(st.Send)]
	x.args = args
	for i, t := range st.Send {
		if args[i], err = t.Expand(x.env); err != nil {
			return err
		}
	}
	if args, err = x.prepare(ctx, c, args); err != nil {
		return err
	}
	// As sent (namespaced): a redirect sends x.args again.
	x.args = args
	sr.Args = x.keepArgs(args)
	c.noteCommand(args)
	sent, size, err := c.writeCommand(timeout, args)
	sr.Sent, sr.SentSize = x.keep(sent), size
	// Passwords never reach a report, a golden or a log.
	if shown, secret := redacted(args); secret {
		sr.Args = x.keepArgs(shown)
		sr.Sent = x.keep(resp.AppendCommand(nil, shown...))
	}
	return writeError(err)
}

// sendRaw expands and writes a raw step's bytes, with the literal keys of
// the commands they parse as in the namespace, after the guard of shared
// runs (namespaceRaw, guard).
func (x *caseRun) sendRaw(ctx context.Context, c *conn, timeout time.Duration, st *cases.Step, sr *StepResult) error {
	b, err := st.Raw.Expand(x.env)
	if err != nil {
		return err
	}
	cmds, complete := rawCommands(b)
	// Raw bytes may hold what is read otherwise than as whole commands:
	// the case's keys are deleted by a scan of its namespace.
	x.caseKeys(ctx).Open()
	switch {
	case x.guarded() && (!complete || len(c.rawTail) > 0):
		if cmds, err = x.guardPartialRaw(ctx, c, b); err != nil {
			return err
		}
	case complete:
		var keys [][]int
		if b, cmds, keys, err = x.namespaceRaw(ctx, b); err != nil {
			return err
		}
		if err := x.guard(ctx, c, cmds, keys); err != nil {
			return err
		}
	}
	if !complete {
		// A partial command would swallow the end-of-case sentinel.
		c.noSentinel = true
	}
	for _, cmd := range cmds {
		c.noteCommand(cmd)
	}
	sr.Sent, sr.SentSize = x.keep(redactRaw(b)), len(b)
	if len(b) > maxKept {
		sr.SentSHA256 = hexSHA256(b, x.env.KeyPrefix)
	}
	return writeError(c.write(timeout, b))
}

// guardPartialRaw guards, on a shared target, a raw step whose bytes do
// not end with a whole command, or that follows one on c: the commands
// that c's unfinished bytes (c.rawTail) and b make are guarded as written
// (not namespaced: the start of a command was sent by an earlier step),
// and what is left unfinished becomes c.rawTail. Bytes that rawSpans
// cannot read (a malformed frame: a server may read it more leniently,
// as a command) are refused.
func (x *caseRun) guardPartialRaw(ctx context.Context, c *conn, b []byte) ([][][]byte, error) {
	all := append(slices.Clip(c.rawTail), b...)
	cmds, spans, complete := rawSpans(all)
	tail := all
	if len(spans) > 0 {
		tail = all[spans[len(spans)-1][1]:]
	}
	if !complete && !rawUnfinished(tail) {
		return nil, &refusal{"sends raw bytes that are not commands, which the guard cannot check (a server may read them as one)"}
	}
	keys := make([][]int, len(cmds))
	for i, args := range cmds {
		var err error
		if keys[i], err = x.keyPositions(ctx, args); err != nil {
			return nil, err
		}
	}
	if err := x.guard(ctx, c, cmds, keys); err != nil {
		return nil, err
	}
	c.rawTail = nil
	if !complete {
		c.rawTail = slices.Clone(tail)
	}
	return cmds, nil
}

// rawUnfinished reports whether b (not empty) is the start of a command
// that more bytes could finish: a RESP array that Parse needs more bytes
// for, or an inline line without its end.
func rawUnfinished(b []byte) bool {
	if b[0] == '*' {
		n, _, err := resp.Parse(b)
		return n == 0 && err == nil
	}
	return !bytes.Contains(b, []byte("\n"))
}

// writeError is err from writing a step's bytes, said so, or nil.
func writeError(err error) error {
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// receive reads a step's reply (or push, for a push step) and keeps it in
// sr, with the pushes that arrived out of band meanwhile.
func (x *caseRun) receive(c *conn, timeout time.Duration, st *cases.Step, exp *cases.Expect, sr *StepResult) (resp.Value, *Failure, error) {
	var v resp.Value
	var err error
	if st.Action == cases.ActPush {
		var fail *Failure
		if v, fail, err = x.receivePush(c, timeout, sr); fail != nil {
			return v, fail, nil
		}
	} else {
		before := len(c.pushes)
		v, err = c.readReply(timeout, pushAccepter(exp, x.env))
		x.keepPushes(c, before, sr)
		if fail := x.pushBefore(st, c, before); fail != nil && err == nil {
			sr.Reply, sr.ReplySize = x.keep(v.Raw), len(v.Raw)
			return v, fail, nil
		}
	}
	if err != nil {
		// A malformed frame is kept, for the report to show the bytes.
		if b := v.Raw; b != nil || c.r.Buffered() > 0 {
			if b == nil {
				b = c.r.Pending()
			}
			sr.Reply, sr.ReplySize = x.keep(b), len(b)
		}
		return v, nil, fmt.Errorf("read: %w", err)
	}
	sr.Reply, sr.ReplySize = x.keep(v.Raw), len(v.Raw)
	if len(v.Raw) > maxKept {
		sr.ReplySHA256 = hexSHA256(v.Raw, x.env.KeyPrefix)
	}
	return v, nil, nil
}

// keepPushes keeps in sr the push frames c set aside from index before on,
// while the step read.
func (x *caseRun) keepPushes(c *conn, before int, sr *StepResult) {
	for _, p := range c.pushes[before:] {
		sr.Pushes = append(sr.Pushes, x.keep(p.Raw))
	}
}

// pushBefore is the failure of a step with no_push (cases.Step.NoPush)
// when c set aside push frames (from index before on) while it read: the
// first of them is shown. nil otherwise.
func (x *caseRun) pushBefore(st *cases.Step, c *conn, before int) *Failure {
	if !st.NoPush || len(c.pushes) == before {
		return nil
	}
	p := c.pushes[before]
	return &Failure{Actual: x.keep(p.Raw), Offset: -1, Expected: "no push frame before the reply (no_push)",
		Message: fmt.Sprintf("a push frame arrived before the reply (no_push; %d in all)", len(c.pushes)-before)}
}

// judge checks the reply v of step st: a protocol switch it makes, RESP3
// types on a RESP2 connection, the capture, the expectation (any reply but
// an error when there is none) and the golden.
func (x *caseRun) judge(c *conn, st *cases.Step, exp *cases.Expect, v resp.Value, sr *StepResult) (*Failure, error) {
	fail, err := x.judgeValue(c, st, exp, v, sr)
	x.goldenOnly = false
	if fail == nil && err == nil {
		fail = x.checkGolden(st, exp, v.Raw, sr)
		x.goldenOnly = fail != nil
	}
	return fail, err
}

// judgeValue is judge without the golden.
func (x *caseRun) judgeValue(c *conn, st *cases.Step, exp *cases.Expect, v resp.Value, sr *StepResult) (*Failure, error) {
	// HELLO 3 (and HELLO 2, RESET) sent by the case switch the protocol of
	// this connection from this reply on.
	if p := protoSwitch(st, v); p != 0 {
		c.proto = p
	}
	if c.proto == 2 {
		if k, ok := resp3Only(v); ok {
			return &Failure{Actual: sr.Reply, Offset: -1, Expected: "a RESP2 reply",
				Message: fmt.Sprintf("a %s, a RESP3 type, on a RESP2 connection (no HELLO 3 was sent)", k)}, nil
		}
	}
	if st.Capture != "" {
		if fail := x.capture(st, v); fail != nil {
			return fail, nil
		}
	}
	if exp == nil {
		exp = &cases.Expect{Kind: cases.ExpectNotError, Pos: st.Pos}
	}
	fail, err := compare(exp, v, x.expectEnv(st, c))
	if fail != nil {
		fail.Actual = sr.Reply
	}
	return fail, err
}

// checkGolden compares the reply bytes of step st with the golden, if the
// run has one.
func (x *caseRun) checkGolden(st *cases.Step, exp *cases.Expect, reply []byte, sr *StepResult) *Failure {
	if x.opts.Golden == nil {
		return nil
	}
	fail := x.opts.Golden.CheckStep(GoldenStep{Case: x.c, Proto: x.proto, Step: st, Expect: exp,
		KeyPrefix: x.env.KeyPrefix, Reply: reply, Pushes: sr.Pushes, Args: sr.Args, Topology: x.t.Current()})
	if fail != nil {
		// The checker's bytes may be the reply itself, a slice of the
		// reader's buffer that the next read overwrites.
		fail.Actual = x.keep(fail.Actual)
	}
	return fail
}

// protoSwitch returns the protocol a send step's command switches its
// connection to (HELLO 2/3 answered without an error, RESET), or 0.
func protoSwitch(st *cases.Step, v resp.Value) int {
	if st.Action != cases.ActSend || len(st.Send) == 0 || isError(v) {
		return 0
	}
	switch {
	case st.Send[0].IsWord("RESET"):
		return 2
	case st.Send[0].IsWord("HELLO"):
		if len(st.Send) > 1 {
			if p, _ := st.Send[1].Literal(); p == "2" || p == "3" {
				return int(p[0] - '0')
			}
		}
	}
	return 0
}

// capture keeps the reply for {cap:NAME}: the payload text of a textual
// value, the raw frame otherwise; with a pattern, its first group.
func (x *caseRun) capture(st *cases.Step, v resp.Value) *Failure {
	text := v.Raw
	if v.Kind.Textual() {
		text = v.Str
	}
	if st.CaptureMatch != nil {
		m := st.CaptureMatch.FindSubmatch(text)
		if m == nil {
			return &Failure{Offset: -1, Expected: "a reply matching /" + st.CaptureMatch.String() + "/",
				Message: fmt.Sprintf("capture %q: the reply does not match /%s/", st.Capture, st.CaptureMatch)}
		}
		text = m[1]
	}
	x.env.Captures[st.Capture] = append([]byte(nil), text...)
	return nil
}

// writeCommand sends args as an array of blob strings, streaming large
// arguments straight to the socket, and returns the bytes kept for reports.
func (c *conn) writeCommand(timeout time.Duration, args [][]byte) ([]byte, int, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	return c.wbuf, len(c.wbuf), c.write(timeout, c.wbuf)
}

// guarded says whether steps are checked by guard before they are sent.
func (x *caseRun) guarded() bool { return x.opts.guarded() }
