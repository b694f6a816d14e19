package replies

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// Class says whether a real server sends a frame's shape.
type Class int

const (
	// Served: a pinned build sends this shape. Every kind but the blob
	// error, in the encodings servers write (no streamed form, doubles as
	// Redis prints them, verbatim formats txt and mkd), attributes only as
	// DEBUG PROTOCOL attrib sends one (a map of one pair before a top-level
	// reply) and pushes only before a reply (CLIENT TRACKING invalidations,
	// Pub/Sub messages). Frame.Lua reproduces many of them through EVAL.
	Served Class = iota
	// SpecOnly: the RESP3 specification allows the shape but no pinned
	// build sends it (blob errors, streamed aggregates and strings, doubles
	// such as "1E10" or "+1.5", other verbatim formats, attributes inside
	// aggregates).
	SpecOnly
)

func (c Class) String() string {
	if c == Served {
		return "served"
	}
	return "spec-only"
}

// Frame is one generated reply: what the proxy sends a library for one
// command (commandOf its ID) instead of the server's reply: for GET any
// reply, for the other commands one of their shape (shapes.go).
type Frame struct {
	// ID is the frame's number in its generator's sequence (from 0).
	ID int
	// Proto is the protocol the frame is written in (2 or 3): it goes
	// only to a connection in that protocol.
	Proto int
	// Pushes are push frames (RESP3) sent before the reply, out of band.
	Pushes []resp.Value
	// Reply is the reply; Reply.Raw is not set (see Bytes).
	Reply resp.Value
	// More are further frames of the same reply: the confirmations after
	// the first of a (un)subscribe of several channels.
	More []resp.Value
	// Class says whether a pinned build sends the shape.
	Class Class
}

// Bytes is the frame on the wire: the pushes, the reply, its further
// frames.
func (f Frame) Bytes() []byte {
	var b []byte
	for _, p := range f.Pushes {
		b = resp.Append(b, p)
	}
	b = resp.Append(b, f.Reply)
	for _, m := range f.More {
		b = resp.Append(b, m)
	}
	return b
}

// generator makes frames from a seed: the same seed and protocol give the
// same frames.
type generator struct {
	r     *rand.Rand // the current frame's stream (see Frame)
	proto int
	next  int
	seed  uint64
}

// newGenerator returns a generator of frames in proto (2 or 3) from seed.
func newGenerator(seed uint64, proto int) *generator {
	return &generator{proto: proto, seed: seed}
}

// Next returns the next frame: Frame(0), Frame(1), ... in turn.
func (g *generator) Next() Frame {
	f := g.Frame(g.next)
	g.next++
	return f
}

// Frame returns frame id of g's sequence, drawn from a stream of its own
// (the seed, the protocol and id), so that every client configuration can
// be served frames at its own pace and a finding's frame made again from
// its id. Safe for concurrent use.
func (g *generator) Frame(id int) Frame {
	one := &generator{r: rand.New(rand.NewPCG(g.seed, uint64(g.proto)<<56|uint64(id))), proto: g.proto, seed: g.seed}
	return one.draw(id)
}

// draw makes frame id from g's stream.
func (g *generator) draw(id int) Frame {
	f := Frame{ID: id, Proto: g.proto}
	cmd := commandArgs(f.ID)
	if cmd[0] == "HELLO" {
		// The same in both protocols, with nothing before or on it.
		f.Reply = g.hello(f.ID)
		f.Class = classify(f)
		return f
	}
	if g.proto == 3 && g.r.IntN(12) == 0 {
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			f.Pushes = append(f.Pushes, g.push())
		}
	}
	switch {
	case len(cmd) == 3 && cmd[2] == frameKey2:
		// One confirmation per channel.
		f.Reply, f.More = g.confirmation(cmd[0], 0), []resp.Value{g.confirmation(cmd[0], 1)}
	case cmd[0] != "GET":
		f.Reply = g.shaped(cmd[0]) // that command's shape (shapes.go)
	case g.r.IntN(50) == 0:
		f.Reply = g.deep()
	default:
		f.Reply = g.value(0, 4)
	}
	if g.proto == 3 && g.r.IntN(25) == 0 && f.Reply.Attr == nil {
		// DEBUG PROTOCOL attrib's shape: one pair before a top-level reply.
		f.Reply.Attr = &resp.Value{Kind: resp.Attribute, Elems: []resp.Value{blob("key-popularity"),
			{Kind: resp.Array, Elems: []resp.Value{blob("key:123"), {Kind: resp.Integer, Int: 90}}}}}
	}
	f.Class = classify(f)
	return f
}

// deep is a chain of one-element aggregates 20 to 120 levels deep around
// a leaf.
func (g *generator) deep() resp.Value {
	v := g.leaf()
	for n := 20 + g.r.IntN(100); n > 0; n-- {
		k := resp.Array
		if g.proto == 3 {
			k = []resp.Kind{resp.Array, resp.Array, resp.Map, resp.Set}[g.r.IntN(4)]
		}
		if k == resp.Map {
			v = resp.Value{Kind: k, Elems: []resp.Value{blob("k"), v}}
		} else {
			v = resp.Value{Kind: k, Elems: []resp.Value{v}}
		}
	}
	return v
}

// value is a reply at depth, aggregates allowed while depth < max.
func (g *generator) value(depth, max int) resp.Value {
	var v resp.Value
	if depth < max && g.r.IntN(100) < 45-10*depth {
		v = g.aggregate(depth, max)
	} else {
		v = g.leaf()
	}
	if g.proto == 3 && depth > 0 && g.r.IntN(40) == 0 {
		// An attribute inside an aggregate: the spec allows it anywhere.
		a := resp.Value{Kind: resp.Attribute}
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			a.Elems = append(a.Elems, blob(g.text(false)), g.leaf())
		}
		v.Attr = &a
	}
	return v
}

func (g *generator) size() int {
	switch p := g.r.IntN(100); {
	case p < 20:
		return 0
	case p < 80:
		return 1 + g.r.IntN(3)
	case p < 97:
		return 4 + g.r.IntN(16)
	default:
		return 100 + g.r.IntN(900)
	}
}

func (g *generator) aggregate(depth, max int) resp.Value {
	kinds := []resp.Kind{resp.Array}
	if g.proto == 3 {
		kinds = []resp.Kind{resp.Array, resp.Array, resp.Map, resp.Map, resp.Set}
	}
	v := resp.Value{Kind: kinds[g.r.IntN(len(kinds))]}
	n := g.size()
	if n > 20 {
		max = depth + 1 // wide, then shallow
	}
	for range n {
		if v.Kind == resp.Map {
			v.Elems = append(v.Elems, g.key(depth, max))
		}
		v.Elems = append(v.Elems, g.value(depth+1, max))
	}
	if g.proto == 3 && g.r.IntN(40) == 0 {
		v.Streamed = true
	}
	return v
}

// key is a map key: mostly a blob string, sometimes any reply.
func (g *generator) key(depth, max int) resp.Value {
	if g.r.IntN(4) > 0 {
		return blob(g.text(false))
	}
	return g.value(depth+1, max)
}

func (g *generator) push() resp.Value {
	switch g.r.IntN(3) {
	case 0:
		return resp.Value{Kind: resp.Push, Elems: []resp.Value{blob("invalidate"), {Kind: resp.Array, Elems: []resp.Value{blob(g.text(false))}}}}
	case 1:
		return resp.Value{Kind: resp.Push, Elems: []resp.Value{blob("message"), blob("ch"), blob(g.text(false))}}
	}
	return resp.Value{Kind: resp.Push, Elems: []resp.Value{blob("pmessage"), blob("ch*"), blob("ch1"), blob(g.text(false))}}
}

func blob(s string) resp.Value { return resp.Value{Kind: resp.BlobString, Str: []byte(s)} }

// leaf is a reply that is not an aggregate.
func (g *generator) leaf() resp.Value {
	if g.proto == 2 {
		switch g.r.IntN(10) {
		case 0:
			return g.simple(resp.SimpleString, g.line())
		case 1:
			return g.simple(resp.SimpleError, g.errText())
		case 2, 3:
			return g.integer()
		case 4:
			return resp.Value{Kind: resp.NilBlobString}
		case 5:
			return resp.Value{Kind: resp.NilArray}
		}
		return blob(g.text(true))
	}
	switch g.r.IntN(16) {
	case 0:
		return g.simple(resp.SimpleString, g.line())
	case 1:
		return g.simple(resp.SimpleError, g.errText())
	case 2, 3:
		return g.integer()
	case 4:
		return resp.Value{Kind: resp.Null}
	case 5, 6:
		return g.double()
	case 7:
		return resp.Value{Kind: resp.Boolean, Bool: g.r.IntN(2) == 0}
	case 8:
		return resp.Value{Kind: resp.BlobError, Str: []byte(g.errText() + g.pick("", "", "\r\nsecond line", "\x00"))}
	case 9:
		return g.verbatim()
	case 10:
		return g.bigNumber()
	}
	v := blob(g.text(true))
	if g.r.IntN(40) == 0 {
		v.Streamed = true
	}
	return v
}

// simple is a simple string or error. Servers write these from C strings:
// Redis 8.6.3 and Valkey 9.1.2 cut EVAL's {err="ERR \0"} at the NUL, so
// a NUL makes the frame SpecOnly (classify).
func (g *generator) simple(k resp.Kind, s string) resp.Value {
	return resp.Value{Kind: k, Str: []byte(s)}
}

func (g *generator) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// edgeTexts are payloads libraries have been seen to convert: numbers,
// booleans and nil spelled as text, bytes that are not UTF-8, framing
// characters.
var edgeTexts = []string{"", "OK", "0", "1", "-1", "01", "1.0", "3.14", "1e3", "inf", "nan", "true", "false",
	"True", "nil", "null", "None", "NULL", "+OK", "$-1", "*-1", "ERR x", " ", "a b", "\x00", "a\x00b",
	"\xff\xfe", "\xc3\x28", "é", "日本", "\U0001F600", "QUEUED", "PONG", "a\r\nb", "\r\n", "\n", "{}", "[]", "[1,2]"}

// text is a string payload; with crlf, \r and \n may occur.
func (g *generator) text(crlf bool) string {
	switch p := g.r.IntN(100); {
	case p < 45:
		s := edgeTexts[g.r.IntN(len(edgeTexts))]
		if !crlf && strings.ContainsAny(s, "\r\n") {
			return "x"
		}
		return s
	case p < 97:
		b := make([]byte, 1+g.r.IntN(12))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789:_-"[g.r.IntN(39)]
		}
		return string(b)
	default:
		return strings.Repeat("abcdefghij", 100+g.r.IntN(1000))
	}
}

// line is a simple string's text: never \r or \n.
func (g *generator) line() string {
	s := g.text(false)
	if g.r.IntN(3) == 0 {
		return g.pick("OK", "PONG", "QUEUED", "string", "none", "")
	}
	return s
}

var errTexts = []string{"ERR unknown command", "WRONGTYPE Operation against a key holding the wrong kind of value",
	"MOVED 3999 127.0.0.1:6381", "ASK 3999 127.0.0.1:6381", "NOSCRIPT No matching script", "LOADING loading",
	"BUSY busy", "READONLY read only", "EXECABORT Transaction discarded", "NOAUTH Authentication required.",
	"ERR", "x", "", "-ERR doubled dash", "OOM command not allowed"}

func (g *generator) errText() string {
	if g.r.IntN(4) == 0 {
		return "ERR " + g.text(false)
	}
	return errTexts[g.r.IntN(len(errTexts))]
}

var ints = []int64{0, 1, -1, 42, 1 << 31, -(1 << 31), 1<<53 - 1, 1 << 53, 1<<53 + 1, -(1<<53 + 1),
	1<<63 - 1, -1 << 63, 4294967296, 10}

func (g *generator) integer() resp.Value {
	if g.r.IntN(2) == 0 {
		return resp.Value{Kind: resp.Integer, Int: ints[g.r.IntN(len(ints))]}
	}
	return resp.Value{Kind: resp.Integer, Int: g.r.Int64N(2000) - 1000}
}

// serverDoubles are doubles as Redis prints them (Redis 8.6.3 and Valkey
// 9.1.2 ZSCORE and DEBUG PROTOCOL double in RESP3: shortest round-trip text,
// "inf", "-inf", "nan"); specDoubles are spellings the RESP3 grammar
// allows that no pinned build writes.
var (
	serverDoubles = []string{"0", "-0", "1", "1.5", "-2.5", "3.141", "0.1", "1e+308", "-1e+308", "5e-324",
		"1.7976931348623157e+308", "inf", "-inf", "nan", "123456789.125", "10000000000000000", "9007199254740992"}
	specDoubles = []string{"1E10", "+1.5", "1.0", "-0.0", "10e-2", "1e10", "1e+16"}
)

func (g *generator) double() resp.Value {
	s := serverDoubles[g.r.IntN(len(serverDoubles))]
	if g.r.IntN(8) == 0 {
		s = specDoubles[g.r.IntN(len(specDoubles))]
	}
	return resp.Value{Kind: resp.Double, Str: []byte(s)}
}

func (g *generator) bigNumber() resp.Value {
	s := g.pick("0", "1", "-1", "9223372036854775808", "-9223372036854775809",
		"3492890328409238509324850943850943825024385", "-3492890328409238509324850943850943825024385", "42")
	if g.r.IntN(3) == 0 {
		s = strconv.FormatInt(g.r.Int64(), 10) + strconv.FormatInt(g.r.Int64N(1e18), 10)
	}
	return resp.Value{Kind: resp.BigNumber, Str: []byte(s)}
}

func (g *generator) verbatim() resp.Value {
	f := g.pick("txt", "txt", "mkd")
	if g.r.IntN(5) == 0 {
		f = g.pick("bin", "xyz", "TXT", "a:b")
	}
	v := resp.Value{Kind: resp.VerbatimString, Str: []byte(g.text(true))}
	copy(v.Format[:], f)
	return v
}
