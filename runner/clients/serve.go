package clients

import (
	"bytes"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// served is what Fault.Serve returned for one command the proxy
// forwarded (nil: the server's reply goes through), whether the command
// is a (un)subscribe, whose reply is a push in RESP3, and how many frames
// the server sends for it: one, or one per channel of a (un)subscribe
// (the ones after the first are dropped when sub replaced the first).
type served struct {
	sub       []byte
	subscribe bool
	frames    int
	replaced  bool
}

// substitute applies Fault.Serve to one frame crossing t. A command is
// queued with what Serve returns for it (before it is forwarded, so its
// reply cannot come first) and goes on: ok false. A reply (not a push, but
// a subscribe confirmation to a (un)subscribe) takes the head of the
// queue: when that holds bytes, they are recorded as the server's frames
// and returned to be written instead (ok true).
func (t *proxyConn) substitute(v resp.Value, dir Dir) (sub []byte, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir == ToServer {
		// Every frame the server reads gets its entry: one that is not a
		// command of blob strings is answered too.
		var e served
		if args := commandArgs(v); len(args) > 0 {
			t.track(args)
			proto := 2
			if t.proto3 {
				proto = 3
			}
			_, _, sub := subscribeFamily(string(args[0]))
			e = served{sub: t.serve(args, proto), subscribe: sub, frames: 1}
			if sub {
				e.frames = max(1, len(args)-1)
			}
		}
		t.served = append(t.served, e)
		return nil, false
	}
	if len(t.served) == 0 || v.Kind == resp.Push && !(t.served[0].subscribe && confirmation(v)) {
		return nil, false
	}
	head := &t.served[0]
	sub, replaced := head.sub, head.replaced
	if head.frames--; head.frames <= 0 {
		t.served = t.served[1:]
	} else {
		head.replaced = head.replaced || sub != nil
	}
	switch {
	case sub == nil:
		return nil, false
	case replaced:
		// A later confirmation of a (un)subscribe whose first Serve
		// replaced: what was served stands for them all.
		return []byte{}, true
	}
	now := time.Now()
	for rest := sub; len(rest) > 0; {
		n, fv, err := resp.ParseLimits(rest, resp.AnyDepth(rest))
		if err != nil {
			t.recordLocked(Event{Dir: ToClient, Bad: bytes.Clone(rest), Time: now, Served: true})
			break
		}
		e := Event{Dir: ToClient, Value: fv.Clone(), Time: now, Served: true}
		if n == len(rest) {
			// The last frame is the reply (a push only as a subscribe
			// confirmation): the server's is kept beside it.
			e.Upstream = bytes.Clone(v.Raw)
		}
		t.recordLocked(e)
		rest = rest[n:]
	}
	return sub, true
}

// confirmation reports whether v is a (un)subscribe confirmation (its
// first element names a subscribe command: subscribeFamily).
func confirmation(v resp.Value) bool {
	if len(v.Elems) == 0 {
		return false
	}
	_, _, ok := subscribeFamily(string(v.Elems[0].Str))
	return ok
}

// track follows the connection's protocol: HELLO 3 switches it to RESP3,
// HELLO 2 and RESET back (a HELLO the server refuses is taken as done).
func (t *proxyConn) track(args [][]byte) {
	switch name := strings.ToUpper(string(args[0])); {
	case name == "HELLO" && len(args) > 1:
		t.proto3 = string(args[1]) == "3"
	case name == "RESET":
		t.proto3 = false
	}
}

// commandArgs is a command frame's arguments (an array of blob strings),
// or nil.
func commandArgs(v resp.Value) [][]byte { return appendCommandArgs(nil, v) }

// appendCommandArgs is commandArgs appended to buf[:0] (buf reused: the
// capture proxy's one slice a connection).
func appendCommandArgs(buf [][]byte, v resp.Value) [][]byte {
	if v.Kind != resp.Array || len(v.Elems) == 0 {
		return buf[:0]
	}
	for _, e := range v.Elems {
		if e.Kind != resp.BlobString {
			return buf[:0]
		}
		buf = append(buf, e.Str)
	}
	return buf
}
