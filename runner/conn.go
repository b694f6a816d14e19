package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// conn is one raw connection of a case: a socket, a resp.Reader over it and
// the push frames that arrived out of band while a reply was awaited.
type conn struct {
	name string
	// node is the address the connection went to (a cluster node).
	node   string
	tc     *target.Conn
	nc     net.Conn
	r      *resp.Reader
	w      *bufio.Writer
	proto  int
	pushes []resp.Value // cloned
	// pending are the async send steps whose replies have not been read
	// yet, oldest first; reading is the one the read step in progress
	// reads.
	pending []*cases.Step
	reading *cases.Step
	// tx says, after MULTI, which queued commands' replies can name keys
	// (keyEchoes), in order; execEchoes is the last EXEC's (noteCommand).
	tx, execEchoes []bool
	// wbuf is reused to encode commands.
	wbuf []byte
	// until is the deadline of c's reads and writes that extend set; the
	// zero time once a read deadline was set by other means (strayGrace).
	until time.Time
	// halted says the run was cancelled (caseRun.interrupt): c's deadline
	// is in the past for good, and extend leaves it there.
	halted atomic.Bool
	// rawTail holds, on a shared target, the bytes of the raw steps
	// that do not end a command yet: the guard reads the next raw step's
	// bytes after them (guardPartialRaw).
	rawTail []byte
	// reset is set once a RESET went out on the connection and its
	// credentials and database were not restored since (runStep).
	reset bool
	// noSentinel says a command may answer a later command with nothing,
	// or with something else than its reply (a partial raw command,
	// MONITOR): the end-of-case check waits strayGrace on this connection
	// instead of a sentinel round trip.
	noSentinel bool
	// closed says the server closed the connection (a step expected it):
	// the next step on the connection's name opens a new one.
	closed bool
	// multi says, on a shared target, that the commands the guard let
	// through opened a MULTI that no EXEC, DISCARD or RESET ended yet:
	// what is sent now runs at EXEC (see caseRun.guard).
	multi bool
	// stateful says a command sent on c may have changed what the
	// connection is for later commands (see statefulCommands): it does
	// not go on to another case (run.reusable).
	stateful bool
}

// noteCommand records what a command sent on c means for the end-of-case
// sentinel (see noSentinel).
func (c *conn) noteCommand(args [][]byte) {
	if len(args) == 0 {
		return
	}
	c.stateful = c.stateful || stateful(args[0])
	// CLIENT REPLY OFF and SKIP are answered by nothing, so they can only
	// be async sends (c.pending).
	if bytes.EqualFold(args[0], []byte("MONITOR")) {
		c.noSentinel = true
	}
	switch name := strings.ToUpper(string(args[0])); {
	case c.tx != nil && (name == "MULTI" || name == "WATCH"):
		// Refused inside a transaction without ending it (Redis; Valkey
		// aborts it): no reply of EXEC's.
	case name == "MULTI":
		c.tx = []bool{}
	case name == "EXEC":
		c.execEchoes, c.tx = c.tx, nil
	case name == "DISCARD":
		c.tx = nil
	case name == "RESET":
		c.tx, c.reset = nil, true
	case c.tx != nil:
		c.tx = append(c.tx, keyEchoes[name])
	}
}

// dial opens a connection of a case (handshake for proto included) to the
// node of the run's target that place names for the case's slot (see
// target.Target.Place; a standalone server is its own only node).
func dial(ctx context.Context, t *target.Target, slot int, place, name string, proto int) (*conn, error) {
	tc, node, err := t.DialSlot(ctx, proto, slot, place)
	if err != nil {
		return nil, err
	}
	return &conn{name: name, node: node.Addr, tc: tc, nc: tc.NC, r: tc.R, w: tc.W, proto: proto}, nil
}

// dialAddr opens a connection of a case to the server cfg names.
func dialAddr(ctx context.Context, cfg target.Config, name string, proto int) (*conn, error) {
	tc, err := cfg.Dial(ctx, proto)
	if err != nil {
		return nil, err
	}
	return &conn{name: name, node: cfg.Addr, tc: tc, nc: tc.NC, r: tc.R, w: tc.W, proto: proto}, nil
}

// roundTrip sends one command and reads its reply, skipping pushes. The
// value is valid until the next read on c.
func (c *conn) roundTrip(timeout time.Duration, args ...string) (resp.Value, error) {
	if err := c.write(timeout, resp.AppendCommandString(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	return c.readReply(timeout, nil)
}

// write sends b within timeout.
func (c *conn) write(timeout time.Duration, b []byte) error {
	c.extend(timeout)
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.w.Flush()
}

// readReply reads the next reply. Push frames are queued on c.pushes unless
// acceptPush says the awaited reply is itself a push (SUBSCRIBE's reply in
// RESP3 is one). The returned value is valid until the next read on c.
func (c *conn) readReply(timeout time.Duration, acceptPush func(resp.Value) bool) (resp.Value, error) {
	c.extend(timeout)
	for {
		v, err := c.r.Read()
		if err != nil {
			return resp.Value{}, c.unfinished(err)
		}
		if err := resp.CheckFrame(v); err != nil {
			return v, malformedFrame(err)
		}
		// Out of band only in RESP3: on a RESP2 connection a push is a
		// reply in a type RESP2 does not have (checked by the caller).
		if v.Kind == resp.Push && c.proto == 3 && (acceptPush == nil || !acceptPush(v)) {
			c.pushes = append(c.pushes, v.Clone())
			continue
		}
		return v, nil
	}
}

// readPush returns the next push frame: a queued one, else the next frame on
// the wire. A non-push frame read here is returned with errNotPush.
func (c *conn) readPush(timeout time.Duration) (resp.Value, error) {
	if len(c.pushes) > 0 {
		v := c.pushes[0]
		c.pushes = c.pushes[1:]
		return v, nil
	}
	c.extend(timeout)
	v, err := c.r.Read()
	if err != nil {
		return resp.Value{}, c.unfinished(err)
	}
	if err := resp.CheckFrame(v); err != nil {
		return v, malformedFrame(err)
	}
	if v.Kind != resp.Push && c.proto == 3 {
		return v, errNotPush
	}
	return v, nil
}

var errNotPush = errors.New("a reply arrived where a push was expected")

// malformedFrame is the error of a frame that decodes but breaks a rule of
// RESP3 (resp.CheckFrame): a server finding, whose *resp.SyntaxError makes
// the case's result Malformed.
func malformedFrame(err error) error {
	return fmt.Errorf("the server's frame is malformed (offsets count from the frame's first byte): %w", err)
}

// unfinished adds to err, a read that ended for want of bytes (a deadline
// passed), what the frame the server started lacks, from the bytes it
// sent of it. A length or count the bytes contradict (a streamed
// aggregate without its end marker, an array one element short) is a
// server finding, as malformedFrame is; other errors pass through.
func (c *conn) unfinished(err error) error {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || c.r.Buffered() == 0 {
		return err
	}
	_, perr := resp.ParseExact(c.r.Pending())
	if perr == nil {
		return err
	}
	if errors.Is(perr, resp.ErrWrongLength) {
		return fmt.Errorf("the server's frame is malformed: it stopped after %d bytes until the deadline passed (offsets count from the frame's first byte): %w (%w)",
			c.r.Buffered(), perr, err)
	}
	return fmt.Errorf("the server's frame stopped after %d bytes until the deadline passed: %v (%w)", c.r.Buffered(), perr, err)
}

// extend makes the deadline of c's next reads and writes at least timeout
// and at most timeout/8 more away. Moving a deadline costs two runtime timer
// updates: a connection sending many steps of one timeout moves it once per
// timeout/8 instead of on every round trip. A halted connection
// (caseRun.interrupt) keeps its past deadline: extend does nothing there.
func (c *conn) extend(timeout time.Duration) {
	if c.halted.Load() {
		return
	}
	now := time.Now()
	if left := c.until.Sub(now); left < timeout || left > timeout+timeout/8 {
		c.until = now.Add(timeout + timeout/8)
		c.nc.SetDeadline(c.until)
	}
}

func (c *conn) close() error { return c.nc.Close() }

// haltAfter ends c's reads and writes after d at the latest, for good:
// an end-of-case check once the run is interrupted (run.check).
func (c *conn) haltAfter(d time.Duration) {
	c.halted.Store(true)
	c.nc.SetDeadline(time.Now().Add(d))
}

// halt unblocks c's reads and writes for good (see caseRun.interrupt).
func (c *conn) halt() {
	c.halted.Store(true)
	c.nc.SetDeadline(time.Unix(1, 0))
}

var isError = target.IsError
