package clients

import (
	"bytes"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// substitute applies Fault.Serve to one frame crossing t. A command is
// queued with what Serve returns for it (before it is forwarded, so its
// reply cannot come first) and goes on: ok false. A reply (not a push)
// takes the head of the queue: when that holds bytes, they are recorded
// as the server's frames and returned to be written instead (ok true).
func (t *proxyConn) substitute(v resp.Value, dir Dir) (sub []byte, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir == ToServer {
		// Every frame the server reads gets its entry: one that is not a
		// command of blob strings is answered too.
		var sub []byte
		if args := commandArgs(v); len(args) > 0 {
			t.track(args)
			proto := 2
			if t.proto3 {
				proto = 3
			}
			sub = t.serve(args, proto)
		}
		t.served = append(t.served, sub)
		return nil, false
	}
	if v.Kind == resp.Push || len(t.served) == 0 {
		return nil, false
	}
	sub, t.served = t.served[0], t.served[1:]
	if sub == nil {
		return nil, false
	}
	now := time.Now()
	for rest := sub; len(rest) > 0; {
		n, fv, err := resp.ParseLimits(rest, resp.AnyDepth(rest))
		if err != nil {
			t.recordLocked(Event{Dir: ToClient, Bad: bytes.Clone(rest), Time: now, Served: true})
			break
		}
		e := Event{Dir: ToClient, Value: fv.Clone(), Time: now, Served: true}
		if fv.Kind != resp.Push {
			e.Upstream = bytes.Clone(v.Raw)
		}
		t.recordLocked(e)
		rest = rest[n:]
	}
	return sub, true
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
func commandArgs(v resp.Value) [][]byte {
	if v.Kind != resp.Array || len(v.Elems) == 0 {
		return nil
	}
	args := make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != resp.BlobString {
			return nil
		}
		args[i] = e.Str
	}
	return args
}
