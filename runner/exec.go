package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// maxKept caps the bytes of a sent command or reply kept in a StepResult;
// longer ones are kept as a prefix and their full length.
const maxKept = 1 << 20

type run struct {
	opts Options
	t    *target.Target
	srv  Server
	// keysRemoved counts keys deleted by the cleanup of Shared runs.
	keysRemoved atomic.Int64
}

// caseRun is the state of one case in one protocol.
type caseRun struct {
	*run
	c     *cases.Case
	proto int
	info  cases.ServerInfo
	env   *cases.Env
	conns map[string]*conn
	order []string
	// mu guards conns against interrupt, which runs on another goroutine.
	mu sync.Mutex
	// slab and argSlab hold the bytes and argument lists kept in
	// StepResults, so that keeping them costs no allocation per step.
	slab    []byte
	argSlab [][]byte
	// keysConn asks COMMAND GETKEYS for the guard of shared runs.
	keysConn *conn
}

// interrupt unblocks every read and write of the case at once, for a
// cancelled run (Ctrl-C): the case ends and cleans up its keys.
func (x *caseRun) interrupt() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range x.conns {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
}

// keep copies b for a StepResult, capped at maxKept bytes, into the case's
// slab.
func (x *caseRun) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	b = b[:min(len(b), maxKept)]
	var out []byte
	if len(b) > 64<<10 {
		out = append([]byte(nil), b...)
	} else {
		if cap(x.slab)-len(x.slab) < len(b) {
			x.slab = make([]byte, 0, max(16<<10, 2*cap(x.slab)))
		}
		start := len(x.slab)
		x.slab = append(x.slab, b...)
		out = x.slab[start:len(x.slab):len(x.slab)]
	}
	// The run's password never reaches a report or a golden, wherever it
	// shows up (a CONFIG GET requirepass reply, a raw AUTH).
	if pw := x.opts.Password; len(pw) >= 4 && bytes.Contains(out, []byte(pw)) {
		copy(out, bytes.ReplaceAll(out, []byte(pw), bytes.Repeat([]byte("*"), len(pw))))
	}
	return out
}

func (x *caseRun) keepArgs(args [][]byte) [][]byte {
	if cap(x.argSlab)-len(x.argSlab) < len(args) {
		x.argSlab = make([][]byte, 0, max(256, len(args)))
	}
	start := len(x.argSlab)
	for _, a := range args {
		x.argSlab = append(x.argSlab, x.keep(a))
	}
	return x.argSlab[start:len(x.argSlab):len(x.argSlab)]
}

func (r *run) runItem(ctx context.Context, it item) *Result {
	start := time.Now()
	res := &Result{Case: it.c, Proto: it.proto}
	defer func() { res.Duration = time.Since(start) }()
	info := r.srv.Info(it.proto)
	if r.opts.Shared && !r.opts.AllowDestructive {
		if cmd, pos, bad := destructiveUse(it.c); bad {
			res.Status = Skip
			res.Reason = fmt.Sprintf("sends %s at %s, which reaches beyond the run's own keys (--allow-destructive runs it)", cmd, pos)
			return res
		}
	}
	if reason, err := r.t.Skip(ctx, it.c, it.proto); err != nil {
		// A gate that cannot be checked is not a skip: the server failed
		// to answer a probe or COMMAND INFO.
		res.Status, res.Reason = Error, err.Error()
		var se *resp.SyntaxError
		res.Malformed = errors.As(err, &se)
		return res
	} else if reason != "" {
		res.Status, res.Reason = Skip, reason
		return res
	}
	for _, k := range it.c.Known {
		if k.Server.Match(info) {
			res.Known = k
			break
		}
	}
	if it.c.Scenario != nil {
		return r.runScenario(ctx, it, res)
	}
	x := &caseRun{run: r, c: it.c, proto: it.proto, info: info, conns: map[string]*conn{},
		env: &cases.Env{KeyPrefix: cases.KeyPrefix(r.opts.RunID + " " + it.c.ID() + " " + strconv.Itoa(it.proto)),
			Captures: map[string][]byte{}}}
	res.KeyPrefix = x.env.KeyPrefix
	defer x.close()
	defer context.AfterFunc(ctx, x.interrupt)()
	res.Steps = make([]StepResult, 0, len(it.c.Steps)+len(it.c.Cleanup))
	for _, st := range it.c.Steps {
		sr, fail, err := x.step(ctx, st)
		res.Steps = append(res.Steps, sr)
		if err != nil {
			var rf *refusal
			if errors.As(err, &rf) {
				res.Status = Skip
				res.Reason = fmt.Sprintf("%s: %s (--allow-destructive runs it)", st.Pos, rf.reason)
				x.cleanup(ctx, res)
				return res
			}
			res.Status, res.Reason = Error, fmt.Sprintf("%s: %v", st.Pos, err)
			var se *resp.SyntaxError
			res.Malformed = errors.As(err, &se)
			x.cleanup(ctx, res)
			return res
		}
		if fail != nil {
			fail.Step = st
			res.Failure = fail
			res.Status, res.Reason = Fail, fmt.Sprintf("%s: %s", st.Pos, fail.Message)
			break
		}
	}
	x.cleanup(ctx, res)
	if res.Status == Pass && len(it.c.Steps) > 0 {
		last := it.c.Steps[len(it.c.Steps)-1]
		fail, err := x.strayReplies()
		switch {
		case err != nil:
			res.Status, res.Reason, res.Malformed = Error, fmt.Sprintf("%s: %v", last.Pos, err), true
		case fail != nil:
			fail.Step = last
			res.Failure = fail
			res.Status, res.Reason = Fail, fmt.Sprintf("%s: %s", last.Pos, fail.Message)
		}
	}
	switch {
	case res.Known != nil && res.Status == Fail:
		res.Status, res.Reason = KnownDiff, res.Known.Reason
	case res.Known != nil && res.Status == Pass:
		res.Status = Fail
		res.Reason = fmt.Sprintf("%s: known difference no longer reproduces on %s %s: %s",
			res.Known.Pos, r.srv.Family, r.srv.Version, res.Known.Reason)
	}
	return res
}

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

// strayGrace is how long the end-of-case check waits for a reply that
// nobody asked for.
const strayGrace = 2 * time.Millisecond

// strayReplies checks that no connection of the case holds a reply after
// its last step: a server that answers one command twice (Redis 8.6.3 does,
// for SET ... IFDEQ with a malformed digest on an existing key) shifts every
// later reply by one. Push frames are out of band and allowed.
func (x *caseRun) strayReplies() (*Failure, error) {
	for _, name := range x.order {
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
			}
			if err != nil {
				break // nothing more (a timeout), or the connection is gone
			}
			if v.Kind == resp.Push {
				continue
			}
			return &Failure{Actual: x.keep(v.Raw), Offset: -1, Expected: "nothing more",
				Message: fmt.Sprintf("connection %q received a reply after the last step, to no command", name)}, nil
		}
	}
	return nil, nil
}

func (x *caseRun) close() {
	if x.opts.Shared && len(x.conns) > 0 {
		if c, err := x.t.Dial(context.Background(), 2); err == nil {
			n, _ := target.DeleteKeys(c, x.env.KeyPrefix)
			x.keysRemoved.Add(int64(n))
			c.Close()
		}
	}
	for _, name := range x.order {
		x.conns[name].close()
	}
	if x.keysConn != nil {
		x.keysConn.close()
	}
}

func (x *caseRun) conn(ctx context.Context, name string) (*conn, error) {
	if name == "" {
		name = "default"
	}
	if c, ok := x.conns[name]; ok {
		return c, nil
	}
	c, err := dial(ctx, x.t, name, x.proto)
	if err != nil {
		return nil, fmt.Errorf("connection %q: %w", name, err)
	}
	x.mu.Lock()
	x.conns[name] = c
	x.mu.Unlock()
	x.order = append(x.order, name)
	return c, nil
}

// step executes one step. A non-nil error is an infrastructure problem
// (status Error); a non-nil Failure is a reply that did not match.
func (x *caseRun) step(ctx context.Context, st *cases.Step) (StepResult, *Failure, error) {
	sr := StepResult{Step: st, Conn: st.Conn}
	if sr.Conn == "" {
		sr.Conn = "default"
	}
	start := time.Now()
	defer func() { sr.Duration = time.Since(start) }()
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = x.opts.StepTimeout
	}
	if st.Action == cases.ActSleep {
		select {
		case <-time.After(st.Sleep):
			return sr, nil, nil
		case <-ctx.Done():
			return sr, nil, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return sr, nil, err
	}
	c, err := x.conn(ctx, st.Conn)
	if err != nil {
		return sr, nil, err
	}
	// A cancelled run (Ctrl-C) unblocks a read or write at once, so the
	// case can end and clean up its keys.
	var exp *cases.Expect
	if len(st.Expect) > 0 {
		var ok bool
		if exp, ok = st.Expect.Resolve(x.info); !ok {
			return sr, nil, fmt.Errorf("no expectation of this step matches %s %s in RESP%d",
				x.srv.Family, x.srv.Version, x.proto)
		}
	}
	switch st.Action {
	case cases.ActSend:
		var big bool
		if big, err = x.bigCommand(st); err != nil {
			return sr, nil, err
		}
		if big {
			if x.guarded() {
				if err := x.guard(ctx, [][][]byte{x.smallArgs(st)}); err != nil {
					return sr, nil, err
				}
			}
			sr.Args, sr.Sent, sr.SentSize, sr.SentSHA256, err = x.streamCommand(c, timeout, st)
			break
		}
		args := make([][]byte, len(st.Send))
		for i, t := range st.Send {
			if args[i], err = t.Expand(x.env); err != nil {
				return sr, nil, err
			}
		}
		if x.guarded() {
			if err := x.guard(ctx, [][][]byte{args}); err != nil {
				return sr, nil, err
			}
		}
		sr.Args = x.keepArgs(args)
		var sent []byte
		sent, sr.SentSize, err = c.writeCommand(timeout, args)
		sr.Sent = x.keep(sent)
		// Passwords never reach a report, a golden or a log.
		if shown, secret := redacted(args); secret {
			sr.Args = x.keepArgs(shown)
			sr.Sent = x.keep(resp.AppendCommand(nil, shown...))
		}
	case cases.ActRaw:
		var b []byte
		if b, err = st.Raw.Expand(x.env); err != nil {
			return sr, nil, err
		}
		if x.guarded() {
			if cmds, ok := rawCommands(b); ok {
				if err := x.guard(ctx, cmds); err != nil {
					return sr, nil, err
				}
			}
		}
		sr.Sent, sr.SentSize = x.keep(redactRaw(b)), len(b)
		if len(b) > maxKept {
			sr.SentSHA256 = hexSHA256(b, x.env.KeyPrefix)
		}
		err = c.write(timeout, b)
	case cases.ActRead:
		if c.pending == 0 {
			return sr, nil, errors.New("read step without an earlier async send on this connection")
		}
		c.pending--
	}
	if err != nil {
		return sr, nil, fmt.Errorf("write: %w", err)
	}
	if st.Async {
		c.pending++
		return sr, nil, nil
	}
	var v resp.Value
	if st.Action == cases.ActPush {
		v, err = c.readPush(timeout)
		if errors.Is(err, errNotPush) {
			sr.Reply = x.keep(v.Raw)
			return sr, &Failure{Actual: sr.Reply, Offset: -1, Expected: "a push frame",
				Message: "want a push frame, got a reply (" + v.Kind.String() + ")"}, nil
		}
	} else {
		before := len(c.pushes)
		v, err = c.readReply(timeout, pushAccepter(exp, x.env))
		for _, p := range c.pushes[before:] {
			sr.Pushes = append(sr.Pushes, x.keep(p.Raw))
		}
	}
	if err != nil {
		return sr, nil, fmt.Errorf("read: %w", err)
	}
	sr.Reply, sr.ReplySize = x.keep(v.Raw), len(v.Raw)
	if len(v.Raw) > maxKept {
		sr.ReplySHA256 = hexSHA256(v.Raw, x.env.KeyPrefix)
	}
	// HELLO 3 (and HELLO 2, RESET) sent by the case switch the protocol of
	// this connection from this reply on.
	if p := protoSwitch(st, v); p != 0 {
		c.proto = p
	}
	if c.proto == 2 {
		if k, ok := resp3Only(v); ok {
			return sr, &Failure{Actual: sr.Reply, Offset: -1, Expected: "a RESP2 reply",
				Message: fmt.Sprintf("a %s, a RESP3 type, on a RESP2 connection (no HELLO 3 was sent)", k)}, nil
		}
	}
	if st.Capture != "" {
		if fail := x.capture(st, v); fail != nil {
			return sr, fail, nil
		}
	}
	if exp == nil {
		exp = &cases.Expect{Kind: cases.ExpectNotError, Pos: st.Pos}
	}
	fail, err := compare(exp, v, x.env)
	if fail != nil {
		fail.Actual = sr.Reply
	}
	if fail == nil && err == nil && x.opts.Golden != nil {
		fail = x.opts.Golden.CheckStep(GoldenStep{Case: x.c, Proto: x.proto, Step: st, Expect: exp,
			KeyPrefix: x.env.KeyPrefix, Reply: v.Raw, Pushes: sr.Pushes})
	}
	return sr, fail, err
}

// protoSwitch returns the protocol a send step's command switches its
// connection to (HELLO 2/3 answered without an error, RESET), or 0.
func protoSwitch(st *cases.Step, v resp.Value) int {
	if st.Action != cases.ActSend || len(st.Send) == 0 || isError(v) {
		return 0
	}
	name, _ := st.Send[0].Literal()
	switch strings.ToUpper(name) {
	case "RESET":
		return 2
	case "HELLO":
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

// pushAccepter says whether a push frame is the awaited reply itself: when
// the expectation is a push (bytes starting with '>' or a typed push).
func pushAccepter(e *cases.Expect, env *cases.Env) func(resp.Value) bool {
	if e == nil || !e.AcceptsPush() {
		return nil
	}
	return func(resp.Value) bool { return true }
}

// writeCommand sends args as an array of blob strings, streaming large
// arguments straight to the socket, and returns the bytes kept for reports.
func (c *conn) writeCommand(timeout time.Duration, args [][]byte) ([]byte, int, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	return c.wbuf, len(c.wbuf), c.write(timeout, c.wbuf)
}

// smallArgs expands the arguments of a large command for the guard, each
// longer than maxGetkeysArg replaced by a byte (a value, not a key).
func (x *caseRun) smallArgs(st *cases.Step) [][]byte {
	args := make([][]byte, len(st.Send))
	for i := range st.Send {
		if n, err := st.Send[i].Size(x.env); err == nil && n > maxGetkeysArg {
			args[i] = []byte("x")
			continue
		}
		args[i], _ = st.Send[i].Expand(x.env)
	}
	return args
}

// guarded says whether steps are checked by guard before they are sent.
func (x *caseRun) guarded() bool { return x.opts.Shared && !x.opts.AllowDestructive }

// bigCommand reports whether a send step's command is larger than maxKept
// and so is streamed (streamCommand) rather than built in memory.
func (x *caseRun) bigCommand(st *cases.Step) (bool, error) {
	var total int64
	for i := range st.Send {
		n, err := st.Send[i].Size(x.env)
		if err != nil {
			return false, err
		}
		total += n + 16
	}
	return total > maxKept, nil
}

// streamCommand sends a large command as an array of blob strings,
// generating each argument straight onto the socket (a 64 MiB generated
// value costs no 64 MiB buffer). It returns the argument prefixes and the
// first 4 KiB of the command for reports, the command's size, and its
// SHA-256 with the key prefix normalised (for goldens).
func (x *caseRun) streamCommand(c *conn, timeout time.Duration, st *cases.Step) (args [][]byte, kept []byte, size int, sum string, err error) {
	c.nc.SetDeadline(time.Now().Add(timeout))
	c.armed = true
	h := sha256.New()
	head := &capWriter{max: 4096}
	out := &countWriter{w: io.MultiWriter(c.w, &prefixHasher{h: h, prefix: []byte(x.env.KeyPrefix)}, head)}
	fmt.Fprintf(out, "*%d\r\n", len(st.Send))
	for i := range st.Send {
		t := &st.Send[i]
		n, err := t.Size(x.env)
		if err != nil {
			return nil, nil, 0, "", err
		}
		fmt.Fprintf(out, "$%d\r\n", n)
		argHead := &capWriter{max: 4096}
		if _, err := t.WriteTo(x.env, io.MultiWriter(out, argHead)); err != nil {
			return nil, nil, 0, "", err
		}
		io.WriteString(out, "\r\n")
		args = append(args, x.keep(argHead.b))
	}
	if err := c.w.Flush(); err != nil {
		return nil, nil, 0, "", err
	}
	return args, x.keep(head.b), out.n, hex.EncodeToString(h.Sum(nil)), nil
}

// capWriter keeps the first max bytes written to it.
type capWriter struct {
	b   []byte
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += n
	return n, err
}

// prefixHasher hashes what is written with the key prefix replaced by
// KeyPlaceholder within each write (Template.WriteTo writes a key in one
// piece), as hexSHA256 does for a whole buffer.
type prefixHasher struct {
	h      hash.Hash
	prefix []byte
}

func (w *prefixHasher) Write(p []byte) (int, error) {
	q := p
	if len(w.prefix) > 0 && bytes.Contains(q, w.prefix) {
		q = bytes.ReplaceAll(q, w.prefix, []byte(KeyPlaceholder))
	}
	w.h.Write(q)
	return len(p), nil
}
