package replies

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestShapedFrames: a frame that answers a command other than GET has
// that command's reply shape in its protocol (or is an error), its map
// fields and set members distinct and its scores numbers; each command's
// id comes back from frameID of the command commandOf writes, and a GET
// gets any reply.
func TestShapedFrames(t *testing.T) {
	for _, proto := range []int{2, 3} {
		g := newGenerator(11, proto)
		seen := map[string]int{}
		for range 2 * commandPeriod {
			f := g.Next()
			cmd := commandOf(f.ID)
			args := make([][]byte, len(cmd))
			for i, a := range cmd {
				args[i] = []byte(a)
				if k, ok := strings.CutPrefix(a, "{key:"); ok {
					args[i] = []byte("rc:{00000000}:" + strings.TrimSuffix(k, "}"))
				}
			}
			if id, ok := frameID(args); !ok || id != f.ID {
				t.Fatalf("frameID(%q) = %d %v, want %d", args, id, ok, f.ID)
			}
			seen[cmd[0]]++
			v := f.Reply
			if v.Kind == resp.SimpleError || cmd[0] == "GET" {
				continue
			}
			if why := shapeFault(cmd[0], proto, v); why != "" {
				t.Fatalf("RESP%d frame %d answering %s: %s: %s", proto, f.ID, cmd[0], why, resp.Escape(f.Bytes()))
			}
		}
		for _, c := range append(slices.Clone(frameCommands), terminalCommands...) {
			if seen[c[0]] == 0 {
				t.Errorf("RESP%d: no frame answers %s", proto, c[0])
			}
		}
	}
}

// shapeFault says how v is not a reply of the command named name in
// proto, or "".
func shapeFault(name string, proto int, v resp.Value) string {
	blobs := func(es []resp.Value) bool {
		return !slices.ContainsFunc(es, func(e resp.Value) bool { return e.Kind != resp.BlobString })
	}
	distinct := func(es []resp.Value) bool {
		seen := map[string]bool{}
		for _, e := range es {
			if seen[string(e.Str)] {
				return false
			}
			seen[string(e.Str)] = true
		}
		return true
	}
	keysOf := func(es []resp.Value) []resp.Value {
		var out []resp.Value
		for i := 0; i < len(es); i += 2 {
			out = append(out, es[i])
		}
		return out
	}
	number := func(e resp.Value) bool {
		_, err := strconv.ParseFloat(string(e.Str), 64)
		return (e.Kind == resp.Double) == (proto == 3) && err == nil && string(e.Str) != "nan"
	}
	switch name {
	case "HGETALL", "CONFIG":
		if want := map[int]resp.Kind{2: resp.Array, 3: resp.Map}[proto]; v.Kind != want || len(v.Elems)%2 != 0 || !blobs(v.Elems) || !distinct(keysOf(v.Elems)) {
			return "not a map of distinct fields to blob strings"
		}
	case "SMEMBERS":
		if want := map[int]resp.Kind{2: resp.Array, 3: resp.Set}[proto]; v.Kind != want || !blobs(v.Elems) || !distinct(v.Elems) {
			return "not a set of distinct blob strings"
		}
	case "LRANGE":
		if v.Kind != resp.Array || !blobs(v.Elems) {
			return "not an array of blob strings"
		}
	case "ZRANGE":
		if v.Kind != resp.Array {
			return "not an array"
		}
		for i, e := range v.Elems {
			ok := proto == 2 && (i%2 == 0 && e.Kind == resp.BlobString || i%2 == 1 && number(e)) ||
				proto == 3 && e.Kind == resp.Array && len(e.Elems) == 2 && e.Elems[0].Kind == resp.BlobString && number(e.Elems[1])
			if !ok || proto == 2 && len(v.Elems)%2 != 0 {
				return "not members with scores"
			}
		}
	case "ZSCORE":
		if !number(v) && v.Kind != resp.Null && v.Kind != resp.NilBlobString {
			return "not a score or nil"
		}
	case "TTL", "EXISTS":
		if v.Kind != resp.Integer {
			return "not an integer"
		}
	case "SCAN":
		if v.Kind != resp.Array || len(v.Elems) != 2 || v.Elems[0].Kind != resp.BlobString || v.Elems[1].Kind != resp.Array || !blobs(v.Elems[1].Elems) {
			return "not a cursor and an array of blob strings"
		}
	case "XRANGE":
		if v.Kind != resp.Array {
			return "not an array"
		}
		for _, e := range v.Elems {
			if e.Kind != resp.Array || len(e.Elems) != 2 || e.Elems[0].Kind != resp.BlobString || e.Elems[1].Kind != resp.Array || !blobs(e.Elems[1].Elems) || len(e.Elems[1].Elems)%2 != 0 {
				return "not stream entries"
			}
		}
	case "INFO":
		if want := map[int]resp.Kind{2: resp.BlobString, 3: resp.VerbatimString}[proto]; v.Kind != want || !strings.HasPrefix(string(v.Str), "# ") {
			return "not INFO's text"
		}
	case "HMGET":
		if v.Kind != resp.Array || slices.ContainsFunc(v.Elems, func(e resp.Value) bool {
			return e.Kind != resp.BlobString && e.Kind != resp.Null && e.Kind != resp.NilBlobString
		}) {
			return "not an array of blob strings and nils"
		}
	case "HELLO":
		// A RESP3 map in either protocol: HELLO 3's reply.
		if v.Kind != resp.Map || len(v.Elems) < 14 || string(v.Elems[0].Str) != "server" || string(v.Elems[4].Str) != "proto" || v.Elems[5].Int != 3 {
			return "not HELLO 3's map"
		}
	case "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE":
		want := map[int]resp.Kind{2: resp.Array, 3: resp.Push}[proto]
		if v.Kind != want || len(v.Elems) != 3 || string(v.Elems[0].Str) != strings.ToLower(name) || v.Elems[2].Kind != resp.Integer {
			return "not a subscribe confirmation"
		}
		if c, un := v.Elems[2].Int, strings.Contains(name, "UNSUB"); un && c != 0 || !un && (c < 1 || c > 2) {
			return fmt.Sprintf("subscription count %d: not a fresh connection's", c)
		}
	default:
		return "no shape known to the test"
	}
	return ""
}

// TestHelloFramesAgree: HELLO 3's frame is the same in both protocols'
// generators (a RESP2 library's HELLO 3 is answered from the RESP3
// frames once the proxy saw it, and judged against its own).
func TestHelloFramesAgree(t *testing.T) {
	g2, g3 := newGenerator(3, 2), newGenerator(3, 3)
	hellos := 0
	for range 2 * commandPeriod {
		f2, f3 := g2.Next(), g3.Next()
		if commandArgs(f2.ID)[0] != "HELLO" {
			continue
		}
		hellos++
		if b2, b3 := f2.Bytes(), f3.Bytes(); string(b2) != string(b3) {
			t.Fatalf("frame %d: RESP2 %s, RESP3 %s", f2.ID, resp.Escape(b2), resp.Escape(b3))
		}
	}
	if hellos == 0 {
		t.Fatal("no HELLO frame")
	}
}

// TestServedNamesTheChannels: a (un)subscribe frame is served naming the
// command's own channels, in order (a server echoes them; libraries match
// confirmations by name), its counts as a fresh connection's (1, 2 when
// subscribing, 0 when unsubscribing); other frames are served as drawn.
func TestServedNamesTheChannels(t *testing.T) {
	for _, proto := range []int{2, 3} {
		g := newGenerator(5, proto)
		seen := 0
		for range 4 * commandPeriod {
			f := g.Next()
			cmd := commandOf(f.ID)
			args := [][]byte{[]byte(cmd[0])}
			for i := range cmd[1:] {
				args = append(args, []byte(fmt.Sprintf("ns:chan%d", i)))
			}
			served := f.Served(args)
			if !isSubscribe(cmd[0]) {
				if !bytes.Equal(served.Bytes(), f.Bytes()) {
					t.Fatalf("RESP%d %q: served %q, drawn %q", proto, cmd, served.Bytes(), f.Bytes())
				}
				continue
			}
			seen++
			confs := append([]resp.Value{served.Reply}, served.More...)
			if len(confs) != len(cmd)-1 {
				t.Fatalf("RESP%d %q: %d confirmations", proto, cmd, len(confs))
			}
			for i, c := range confs {
				want := int64(i + 1)
				if strings.Contains(cmd[0], "UNSUB") {
					want = 0
				}
				if string(c.Elems[1].Str) != fmt.Sprintf("ns:chan%d", i) || c.Elems[2].Int != want {
					t.Errorf("RESP%d %q: confirmation %d is %q, want channel ns:chan%d and count %d", proto, cmd, i, resp.Append(nil, c), i, want)
				}
			}
			if f.More != nil && &f.More[0] == &served.More[0] || bytes.Equal(f.Bytes(), served.Bytes()) {
				t.Errorf("RESP%d %q: the drawn frame was changed or not renamed", proto, cmd)
			}
		}
		if seen == 0 {
			t.Fatalf("RESP%d: no (un)subscribe frame in %d", proto, 4*commandPeriod)
		}
	}
}
