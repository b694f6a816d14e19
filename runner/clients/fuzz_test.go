package clients

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/internal/fuzzseed"
)

// fuzzLimits are small, for the fuzzer to cross them.
var fuzzLimits = resp.Limits{MaxBlobLen: 4096, MaxAggregateLen: 64, MaxDepth: 16}

// indexes is 0 … len(s)-1, for fuzzseed.Sample to pick seeds of
// slices that go together.
func indexes[T any](s []T) []int {
	out := make([]int, len(s))
	for i := range out {
		out[i] = i
	}
	return out
}

// recordedStreams returns, per recorded case of the redis 8.6.3 goldens,
// the commands it sent and the replies and pushes it read, each
// concatenated: real traffic in both directions of the proxy (each
// distinct pair once).
func recordedStreams(f *testing.F) (cmds, replies [][]byte) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "redis-8.6.3", "*"+golden.Ext))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no goldens: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if filepath.Base(p) == golden.ServerFile {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		g, err := golden.Parse(p, data)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range g.Cases {
			var in, out []byte
			for _, st := range c.Steps {
				if st.Sent != nil && st.Sent.Full() {
					in = append(in, st.Sent.Data...)
				}
				for _, b := range st.Pushes {
					if b.Full() {
						out = append(out, b.Data...)
					}
				}
				if st.Reply != nil && st.Reply.Full() {
					out = append(out, st.Reply.Data...)
				}
			}
			if key := string(in) + "\x00" + string(out); !seen[key] {
				seen[key] = true
				cmds, replies = append(cmds, in), append(replies, out)
			}
		}
	}
	return cmds, replies
}

// hostileFrames are frames no server should send.
var hostileFrames = []string{
	"$2000000000\r\nabc", "*2000000000\r\n:1\r\n", "*1\r\n%2000000000\r\n", "$5000\r\n", "*65\r\n", "x\r\n",
	"PING\r\n", "+OK\r\n+OK", "*1\r\n$4\r\nPING\r\n$-1\r\n:1\r\n", "|1\r\n+a\r\n+b\r\n", "$?\r\n;1\r\na\r\n;0\r\n",
	"*?\r\n:1\r\n.\r\n", ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n",
}

// FuzzProxyFraming feeds bytes through the proxy's framer, as a socket that
// returns them cut every cut bytes, and through pump over in-memory
// connections, in the direction dir chooses: never a panic; every frame
// is one resp.Parse reads whole; the framing does not depend on how the
// bytes arrive; pump forwards exactly the framed, bad and raw bytes and
// records a frame per frame; a frame over the limits ends the connection,
// and a client gets Redis's error reply.
func FuzzProxyFraming(f *testing.F) {
	cmds, replies := recordedStreams(f)
	for _, i := range fuzzseed.SampleN(indexes(cmds), 8) {
		f.Add(cmds[i], uint16(7), false)
		f.Add(replies[i], uint16(3), true)
	}
	for _, s := range hostileFrames {
		f.Add([]byte(s), uint16(1), true)
		f.Add([]byte(s), uint16(2), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, toClient bool) {
		whole := frameAll(t, bytes.NewReader(in))
		pieces := frameAll(t, &cutReader{b: in, cut: max(int(cut), 1)})
		if !slices.EqualFunc(whole.pieces, pieces.pieces, bytes.Equal) || whole.end != pieces.end {
			t.Fatalf("framing depends on the reads: %q / %q", whole.pieces, pieces.pieces)
		}
		whole.check(t, in)
		dir := ToServer
		if toClient {
			dir = ToClient
		}
		checkPump(t, in, dir, whole)
	})
}

// framing is what a framer made of a stream: the bytes of each frame, then
// those it did not frame (bad, raw or over the limits), and how it ended.
type framing struct {
	pieces [][]byte
	frames []resp.Value
	rest   []byte // bytes after the frames that were not framed
	end    pieceKind
	eof    error
}

const endClean pieceKind = 255 // no bad bytes, no frame over the limits

func frameAll(t *testing.T, r io.Reader) framing {
	fr := newFramer(r, fuzzLimits)
	fm := framing{end: endClean}
	for {
		pc, err := fr.next()
		if err != nil {
			fm.eof = err
			return fm
		}
		switch pc.kind {
		case pieceFrame:
			fm.pieces = append(fm.pieces, bytes.Clone(pc.frame.Raw))
			fm.frames = append(fm.frames, pc.frame.Clone())
			if fm.end != endClean {
				t.Fatalf("a frame after %d", fm.end)
			}
		case pieceRaw:
			fm.rest = append(fm.rest, pc.bytes...)
		case pieceBad, pieceTooLong:
			fm.rest = append(fm.rest, pc.bytes...)
			fm.end = pc.kind
			if pc.kind == pieceTooLong {
				fm.eof = io.EOF
				return fm // the proxy reads no further
			}
		}
	}
}

// check checks a framing of in against resp.ParseLimits.
func (fm framing) check(t *testing.T, in []byte) {
	off := 0
	for i, raw := range fm.pieces {
		n, v, err := resp.ParseLimits(in[off:], fuzzLimits)
		if err != nil || n != len(raw) || !bytes.Equal(in[off:off+n], raw) || !resp.Equal(v, fm.frames[i]) {
			t.Fatalf("frame %d %q: ParseLimits says %d, %v", i, raw, n, err)
		}
		off += n
	}
	rest := in[off:]
	_, _, perr := resp.ParseLimits(rest, fuzzLimits)
	switch fm.end {
	case endClean:
		// The stream ended, cleanly or inside a frame, which is dropped.
		if fm.eof != io.EOF && fm.eof != io.ErrUnexpectedEOF || len(fm.rest) > 0 || perr != nil {
			t.Fatalf("clean end %v with %q left, %q not framed (%v)", fm.eof, rest, fm.rest, perr)
		}
	case pieceBad:
		if !bytes.Equal(fm.rest, rest) || perr == nil || resp.OverLimit(perr) {
			t.Fatalf("bad bytes %q: want the rest %q, which ParseLimits refuses (%v)", fm.rest, rest, perr)
		}
	case pieceTooLong:
		if !bytes.HasPrefix(rest, fm.rest) || !resp.OverLimit(perr) {
			t.Fatalf("too long %q: the rest %q, ParseLimits says %v", fm.rest, rest, perr)
		}
	}
}

// cutReader returns b cut bytes at a time.
type cutReader struct {
	b   []byte
	cut int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.cut)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// checkPump runs pump over in-memory connections: in arrives from src one
// byte at a time, then src's end; what pump forwards to dst, writes back
// to src and records must agree with fm.
func checkPump(t *testing.T, in []byte, dir Dir, fm framing) {
	srcPeer, src := memPipe()
	dst, dstPeer := memPipe()
	tap := &proxyConn{seq: new(atomic.Uint64), claimed: map[int]bool{}, client: src, server: dst}
	done := make(chan struct{})
	go func() { defer close(done); tap.pump(src, dst, dir, Fault{}, fuzzLimits) }()
	go func() {
		io.Copy(srcPeer, iotest.OneByteReader(bytes.NewReader(in)))
		srcPeer.CloseWrite()
	}()
	back := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(srcPeer) // until pump closes src
		back <- b
	}()
	forwarded, _ := io.ReadAll(dstPeer)
	<-done
	answered := <-back
	want := bytes.Join(append(slices.Clone(fm.pieces), fm.rest), nil)
	if fm.end == pieceTooLong {
		want = bytes.Join(fm.pieces, nil)
	}
	if !bytes.Equal(forwarded, want) {
		t.Fatalf("pump forwarded %q, want %q", forwarded, want)
	}
	if fm.end == pieceTooLong && dir == ToServer {
		if !bytes.HasPrefix(answered, []byte("-ERR Protocol error: ")) {
			t.Fatalf("pump answered %q to a client's frame over the limits", answered)
		}
	} else if len(answered) > 0 {
		t.Fatalf("pump answered %q to the sender", answered)
	}
	frames := 0
	for _, e := range tap.Events() {
		if e.Bad == nil && !e.Injected {
			if e.Dir != dir || frames >= len(fm.pieces) || !bytes.Equal(e.Value.Raw, fm.pieces[frames]) {
				t.Fatalf("event %+v recorded, frame %d of %q", e, frames, fm.pieces)
			}
			frames++
		}
	}
	if frames != len(fm.pieces) {
		t.Fatalf("%d frames recorded, %d framed", frames, len(fm.pieces))
	}
}

// memConn is one end of an in-memory connection that can be half-closed.
type memConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

// memPipe returns the two ends of an in-memory connection.
func memPipe() (*memConn, *memConn) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	return &memConn{r: r1, w: w2}, &memConn{r: r2, w: w1}
}

func (c *memConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *memConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *memConn) CloseWrite() error                { return c.w.Close() }
func (c *memConn) Close() error                     { c.r.Close(); return c.w.Close() }
func (c *memConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzPairing frames a command stream and a reply stream (as the proxy
// does, up to bytes that are not RESP), interleaves their events in the
// order the fuzzer's bits choose and pairs them: never a panic; every
// command gets a pairing whose reply, pushes and further frames are frames
// from the server, each used once, its reply and further frames after it;
// claim finds a command exactly when an unclaimed one matches.
func FuzzPairing(f *testing.F) {
	cmds, replies := recordedStreams(f)
	for _, i := range fuzzseed.Sample(indexes(cmds)) {
		f.Add(cmds[i], replies[i], uint64(0x5555555555555555))
	}
	for _, s := range hostileFrames {
		f.Add([]byte("*1\r\n$4\r\nPING\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n"), []byte(s), uint64(0xf0f0))
	}
	f.Fuzz(func(t *testing.T, cmds, replies []byte, order uint64) {
		events := interleave(streamEvents(cmds, ToServer), streamEvents(replies, ToClient), order)
		tap := tapOf(events)
		checkPairs(t, events, pairEvents(events))
		_ = tap.state()
		checkClaims(t, &proxy{taps: []*proxyConn{tap}}, tap)
		if len(events) > 0 && len(events[0].Value.Elems) > 0 {
			tap.extraAfter(Fault{ExtraAfter: string(events[0].Value.Elems[0].Str)})
		}
	})
}

// streamEvents frames b as the proxy does, up to bytes that are not RESP,
// which end it as a bad event.
func streamEvents(b []byte, dir Dir) []Event {
	fr := newFramer(bytes.NewReader(b), fuzzLimits)
	var out []Event
	for {
		pc, err := fr.next()
		if err != nil {
			return out
		}
		switch pc.kind {
		case pieceFrame:
			out = append(out, Event{Dir: dir, Value: pc.frame.Clone()})
		case pieceBad, pieceTooLong:
			return append(out, Event{Dir: dir, Bad: bytes.Clone(pc.bytes)})
		}
	}
}

// interleave merges two event streams, taking from a when the next bit of
// order is set (from the low bit, cycling), and numbers them.
func interleave(a, b []Event, order uint64) []Event {
	var out []Event
	for bit := 0; len(a) > 0 || len(b) > 0; bit++ {
		if len(b) == 0 || len(a) > 0 && order>>(bit%64)&1 == 1 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
		out[len(out)-1].seq = uint64(len(out))
	}
	return out
}

func checkPairs(t *testing.T, events []Event, pairs map[int]*pairing) {
	used := map[int]int{}
	for i, e := range events {
		if e.Bad != nil {
			break
		}
		if p := pairs[i]; (p != nil) != (e.Dir == ToServer) {
			t.Fatalf("event %d (%s): pairing %+v", i, e.Dir, p)
		}
	}
	for cmd, p := range pairs {
		server := func(j int, what string) {
			if j < 0 || j >= len(events) || events[j].Dir != ToClient || events[j].Bad != nil {
				t.Fatalf("command %d: %s %d is not a frame from the server", cmd, what, j)
			}
			if prev, dup := used[j]; dup {
				t.Fatalf("event %d paired with commands %d and %d", j, prev, cmd)
			}
			used[j] = cmd
		}
		if p.reply >= 0 {
			server(p.reply, "reply")
			if p.reply < cmd {
				t.Fatalf("command %d: reply %d before it", cmd, p.reply)
			}
		} else if len(p.more) > 0 {
			t.Fatalf("command %d: further frames without a reply", cmd)
		}
		for _, j := range p.pushes {
			server(j, "push")
		}
		for _, j := range p.more {
			server(j, "further frame")
			if j < p.reply {
				t.Fatalf("command %d: further frame %d before its reply %d", cmd, j, p.reply)
			}
		}
	}
}

// checkClaims claims every command in turn: claim succeeds exactly when an
// unclaimed command matches, with one of them.
func checkClaims(t *testing.T, p *proxy, tap *proxyConn) {
	for _, e := range tap.rec.events() {
		args := commandArgs(e.Value)
		if e.Dir != ToServer || e.Bad != nil || args == nil {
			continue
		}
		w := wanted{args: args, from: 0, to: math.MaxUint64}
		want := false
		for k, o := range tap.rec.events() {
			want = want || o.Dir == ToServer && o.Bad == nil && !tap.claimed[k] && w.matches(o.Value)
		}
		claimedBefore := len(tap.claimed)
		x, got := p.claim(w)
		if got != want {
			t.Fatalf("claim of %q: %v, want %v", args, got, want)
		}
		if got && (len(tap.claimed) != claimedBefore+1 || !w.matches(tap.rec.events()[x.cmd].Value)) {
			t.Fatalf("claim of %q took event %d %+v", args, x.cmd, tap.rec.events()[x.cmd])
		}
		if got {
			p.replyOf(x)
		}
	}
}

// nativeOf is a faithful host value of v, as a dynamic language's library
// would decode it: the adapter response FuzzAdapterResponse's seeds send.
func nativeOf(v resp.Value) Native {
	var n Native
	switch v.Kind {
	case resp.SimpleString, resp.BlobString, resp.VerbatimString:
		n = stringNative("str", string(v.Str))
	case resp.SimpleError, resp.BlobError:
		n = errNative("error", "ResponseError", "ResponseError", string(v.Str))
	case resp.Integer:
		n = textNative("int", "int", strconv.FormatInt(v.Int, 10))
	case resp.BigNumber:
		n = textNative("bigint", "bigint", string(v.Str))
	case resp.Double:
		n = textNative("float", "float", strconv.FormatFloat(v.Float, 'g', -1, 64))
	case resp.Boolean:
		n = textNative("bool", "bool", strconv.FormatBool(v.Bool))
	case resp.Null, resp.NilBlobString, resp.NilArray:
		n = Native{Kind: "nil", Type: "None"}
	case resp.Map:
		n = Native{Kind: "map", Type: "dict", Pairs: [][2]Native{}}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			n.Pairs = append(n.Pairs, [2]Native{nativeOf(v.Elems[i]), nativeOf(v.Elems[i+1])})
		}
	default: // arrays, sets, pushes
		n = Native{Kind: "list", Type: "list"}
		if v.Kind == resp.Set {
			n.Kind, n.Type = "set", "set"
		}
		for _, e := range v.Elems {
			n.Elems = append(n.Elems, nativeOf(e))
		}
	}
	if v.Attr != nil {
		a := nativeOf(*v.Attr)
		n.Attr = &a
	}
	return n
}

// FuzzAdapterResponse decodes a line as the Go side reads an adapter's
// stdout and uses what it got as respcheck does: the libraries of a hello,
// and the value of a call, rendered and judged, under every library's
// contract, against the reply frame the fuzzer also chose. Never a panic;
// a line that is not a response is an error.
func FuzzAdapterResponse(f *testing.F) {
	_, replies := recordedStreams(f)
	seen := map[string]bool{}
	var frames []resp.Value
	for _, out := range replies {
		for _, v := range streamEvents(out, ToClient) {
			if v.Bad == nil && !seen[string(v.Value.Raw)] {
				seen[string(v.Value.Raw)] = true
				frames = append(frames, v.Value)
			}
		}
	}
	for _, v := range fuzzseed.Sample(frames) {
		n := nativeOf(v)
		line, _ := json.Marshal(adapterResp{ID: 3, Value: &n})
		f.Add(line, v.Raw)
	}
	for _, s := range []string{
		`{"id":1,"libraries":[{"name":"ioredis","version":"6.0.0","protos":[2,3]},{"name":"x","error":"cannot load"}]}`,
		`{"id":2,"ok":true}`, `{"id":2,"error":"no"}`, `{"id":5,"wrapper":"digest(key)","value":{"kind":"string","type":"str","text":"OK"}}`,
		`{"id":5,"wrapper":""}`, `{"id":3,"value":{"kind":"bytes","type":"Buffer","b64":"!!"}}`, `{"id":3,"value":null}`,
		`{"id":3,"value":{"kind":"map","type":"Object","pairs":[[{"kind":"string","text":"value"},{"kind":"int","text":"1"}],[{"kind":"string","text":"attributes"},{"kind":"map","pairs":[]}]]}}`,
		`{"id":3,"value":{"kind":"exception","type":"TypeError","error":{"class":"TypeError","message":"x"}}}`, `not json`, `{"id":"x"}`,
	} {
		f.Add([]byte(s), []byte("*2\r\n:1\r\n|1\r\n+a\r\n+b\r\n$1\r\nx\r\n"))
	}
	libs := []string{"unknown/resp2"}
	for name := range contracts {
		libs = append(libs, name+"/resp3")
	}
	slices.Sort(libs)
	f.Fuzz(func(t *testing.T, line, frame []byte) {
		r, err := decodeResponse(line)
		if err != nil {
			return
		}
		a := &Adapter{Name: "fuzz"}
		for _, l := range r.Libraries {
			d := &adapterDriver{a: a, lib: l}
			_, _, _, _ = d.Library(), d.Version(), d.Protos(), d.API()
		}
		n := adapterValue(r, nil)
		_ = n.String()
		n.Bytes()
		_ = n.RESP()
		nf, v, perr := resp.ParseLimits(frame, fuzzLimits)
		if perr != nil || nf == 0 {
			return
		}
		for _, lib := range libs {
			vd, notes := contractFor(lib).JudgeFrames([]resp.Value{v, v}, n)
			if vd < Match || vd > Crash || (n.Kind == "exception") != (vd == Crash) {
				t.Fatalf("%s: verdict %v for %s: %v", lib, vd, n, notes)
			}
		}
	})
}

// FuzzMessageNative decodes bytes as the CacheMarshal serialisation of a
// rueidis or valkey-go message: never a panic, and a work bounded by the
// input (a declared count of children is not trusted).
func FuzzMessageNative(f *testing.F) {
	node := func(typ byte, v uint64, payload string) []byte {
		b := append([]byte{typ}, binary.BigEndian.AppendUint64(nil, v)...)
		return append(b, payload...)
	}
	ttl := make([]byte, 7)
	f.Add(append(ttl, node('$', 2, "hi")...))
	f.Add(append(ttl, node(':', 42, "")...))
	f.Add(append(append(append(ttl, node('*', 2, "")...), node('+', 2, "OK")...), node('_', 0, "")...))
	f.Add(append(append(append(ttl, node('%', 2, "")...), node(',', 3, "1.5")...), node('#', 1, "")...))
	f.Add(append(ttl, node('*', math.MaxUint64, "")...))
	f.Add(append(ttl, node('*', 1<<40, "")...))
	f.Add(append(ttl, node('$', math.MaxUint64, "x")...))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := messageNative("RedisMessage", b)
		_ = n.String()
		if c := countNatives(&n); c > 2*len(b)+2 {
			t.Fatalf("%d nodes decoded from %d bytes", c, len(b))
		}
	})
}

// countNatives counts the nodes of a Native tree.
func countNatives(n *Native) int {
	c := 1
	for i := range n.Elems {
		c += countNatives(&n.Elems[i])
	}
	for i := range n.Pairs {
		c += countNatives(&n.Pairs[i][0]) + countNatives(&n.Pairs[i][1])
	}
	return c
}
