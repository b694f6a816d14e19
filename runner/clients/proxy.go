package clients

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Dir is the direction of a recorded frame.
type Dir int

// The directions.
const (
	ToServer Dir = iota // a command the client sent
	ToClient            // a reply or push the server sent
)

// String names the direction for reports.
func (d Dir) String() string {
	if d == ToServer {
		return "client>server"
	}
	return "server>client"
}

// MarshalText encodes the direction as "client>server" or "server>client".
func (d Dir) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText decodes "client>server" or "server>client".
func (d *Dir) UnmarshalText(b []byte) error {
	switch string(b) {
	case "client>server":
		*d = ToServer
	case "server>client":
		*d = ToClient
	default:
		return fmt.Errorf("unknown direction %q", b)
	}
	return nil
}

// Event is one frame that crossed the proxy.
type Event struct {
	Dir   Dir
	Value resp.Value // cloned; Raw is the exact bytes
	// Bad holds bytes that were not valid RESP (Value is then zero); from
	// there on the direction is forwarded without framing.
	Bad []byte
	// OverLimit, with Bad, says the bytes start a frame over the proxy's
	// limits (resp.LimitText: the limit and the flag that raises it):
	// not forwarded, the connection ended.
	OverLimit string
	Time      time.Time
	// Injected marks a frame the proxy sent on its own (Fault.ExtraAfter):
	// the client received it, but it replies to no command.
	Injected bool
	// Upstream, on a cluster, holds the bytes the server sent when the
	// proxy rewrote node addresses in them (see addrMap): Value is what the
	// client received. Nil when the frame went through as sent. For a
	// reply Fault.Serve replaced, the server's reply.
	Upstream []byte
	// Served marks a frame Fault.Serve sent in place of the server's
	// reply.
	Served bool
	// seq numbers the proxy's events from 1 across all its connections, in
	// the order they were recorded.
	seq uint64
}

// Fault makes the proxy misbehave on purpose.
type Fault struct {
	// Split writes every server→client frame in pieces, cut at these byte
	// offsets of the frame (offsets beyond the frame are ignored), with
	// Delay between pieces: the client sees one reply across several TCP
	// reads.
	Split []int
	// Delay is the pause between the pieces of a split frame; 0 means
	// 20ms.
	Delay time.Duration
	// ExtraAfter, if set, names a command (case-insensitive): after the
	// first reply to it on each connection the proxy sends ExtraReply too,
	// a frame no command asked for. Every later reply on that connection
	// is then one behind for a library that reads it: the shift the
	// canary must report as desync.
	ExtraAfter string
	// ExtraReply is the injected frame; empty means "+respcheck-extra\r\n".
	ExtraReply []byte
	// Serve, if set, is asked about every command a client sends, with the
	// protocol the connection is in (2, or 3 after a HELLO 3): when it
	// returns bytes (push frames, then one reply), the proxy forwards the
	// command, drops the server's reply and sends the client those bytes
	// instead, recorded as what the server sent (Event.Served; the reply's
	// Upstream holds the server's). The server's replies are paired with
	// commands first in, first out (in RESP3 a (un)subscribe's
	// confirmation push counts as its reply), so Serve suits
	// request-reply traffic: a (un)subscribe of one channel as the last
	// command of its connection, but no other subscription traffic, no
	// MONITOR or CLIENT REPLY OFF on a connection it serves. Used by the
	// reply generator (package runner/replies).
	Serve func(cmd [][]byte, proto int) []byte
}

// proxy is a recording TCP proxy between client libraries and a server.
// Every accepted connection gets a proxyConn holding what crossed it.
type proxy struct {
	// lns are the listeners: one on a standalone server; on a cluster one
	// per node (see newClusterProxy), the first the seed the clients get.
	lns   []proxyListener
	fault Fault
	// addrs, on a cluster, rewrites the nodes' addresses in what the
	// servers send into the listeners' (see addrMap); nil otherwise.
	addrs *addrMap
	// limits are what frames may declare, in both directions (see
	// proxyLimits).
	limits resp.Limits

	mu   sync.Mutex
	taps []*proxyConn
	wg   sync.WaitGroup
	done bool
	// seq is the number of events recorded so far on every connection.
	seq atomic.Uint64
	// moved is the number of bytes read so far from every connection's
	// client and server, forwarding the number of frames read whole and
	// not yet written on: a wait that sees moved grow, or forwarding not
	// 0, sees the proxy at work (see await).
	moved      atomic.Int64
	forwarding atomic.Int32
	// beforeSend, if set, sees each command a client sent once recorded
	// (its connection's ID, its event's seq) and before it is forwarded
	// (Recorder.keepKeys: the keys it touches first, read as they were);
	// held holds the connection's frames recorded before it and not yet
	// forwarded (a pipeline's head), which beforeSend flushes before it
	// waits on anything. args are valid during the call only.
	beforeSend func(conn int, seq uint64, args [][]byte, held *bufio.Writer)
}

// Work is the number of bytes the proxy has read so far, from clients and
// servers, and whether it is writing on a frame it has read (a 10 MiB one
// takes the race-built proxy a while on a loaded machine).
func (p *proxy) Work() (moved int64, forwarding bool) {
	return p.moved.Load(), p.forwarding.Load() > 0
}

// proxyListener is one listener of the proxy and the server it forwards
// to.
type proxyListener struct {
	ln       net.Listener
	upstream target.Config
}

// proxyConn is one proxied connection and its recording.
type proxyConn struct {
	// ID numbers the proxy's connections from 1 in accept order.
	ID int
	// Node is the server the connection goes to (its upstream address).
	Node  string
	addrs *addrMap       // rewrites server→client frames on a cluster, or nil
	seq   *atomic.Uint64 // the proxy's event counter
	moved *atomic.Int64  // the proxy's byte counter, or nil
	fwd   *atomic.Int32  // the proxy's count of frames being forwarded, or nil
	mu    sync.Mutex
	rec   recording
	// claimed marks ToServer events already matched to a request.
	claimed map[int]bool
	client  net.Conn
	server  net.Conn
	closed  bool
	// serverEnded says the server ended the connection (its side read
	// EOF or failed while the proxy had not closed it): a library's error
	// on a later command is the closed connection it was told about.
	serverEnded bool
	// injected says Fault.ExtraAfter has fired on this connection.
	injected bool
	// serve is Fault.Serve; served holds, per command forwarded and not
	// yet replied to, what Serve returned for it (nil: the server's
	// reply goes through); proto3 says a HELLO 3 went by.
	serve  func([][]byte, int) []byte
	served []served
	proto3 bool
	// paired is the last pairing of the recorded events (pairsLocked).
	paired pairCache
	// beforeSend is the proxy's.
	beforeSend func(conn int, seq uint64, args [][]byte, held *bufio.Writer)
	// args holds the arguments of the frame beforeSend is called with,
	// reused from frame to frame (ToServer's pump only).
	args [][]byte
}

// newProxy listens on 127.0.0.1 with a free port and forwards every
// connection to upstream, opened with upstream's TLS, AUTH and SELECT
// (target.Config.Dial in RESP2) before the client's first byte is
// forwarded: the handshake with the server is the proxy's, the client's own
// handshake (HELLO 3, CLIENT SETINFO) goes through as sent.
func newProxy(upstream target.Config, fault Fault) (*proxy, error) {
	p, err := listenProxy([]target.Config{upstream}, fault)
	if err != nil {
		return nil, err
	}
	p.start()
	return p, nil
}

// listenProxy opens one listener on 127.0.0.1 with a free port per
// upstream; start begins accepting.
func listenProxy(upstreams []target.Config, fault Fault) (*proxy, error) {
	return listenProxyOn("127.0.0.1:0", upstreams, fault)
}

// listenProxyOn is listenProxy on addr (host:port; port 0 picks a free
// one for each upstream).
func listenProxyOn(addr string, upstreams []target.Config, fault Fault) (*proxy, error) {
	if fault.Delay <= 0 {
		fault.Delay = 20 * time.Millisecond
	}
	p := &proxy{fault: fault, limits: proxyLimits(upstreams[0].Limits)}
	for _, up := range upstreams {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.lns = append(p.lns, proxyListener{ln: ln, upstream: up})
	}
	return p, nil
}

func (p *proxy) start() {
	for _, l := range p.lns {
		p.wg.Add(1)
		go p.accept(l)
	}
}

// Addr is the proxy's host:port, for the clients: on a cluster the seed's
// (the listener of the node that owns the case's slot).
func (p *proxy) Addr() string { return p.lns[0].ln.Addr().String() }

// Addrs are the host:port of every listener, the seed's first.
func (p *proxy) Addrs() []string {
	out := make([]string, len(p.lns))
	for i, l := range p.lns {
		out[i] = l.ln.Addr().String()
	}
	return out
}

// Taps returns the connections accepted so far.
func (p *proxy) Taps() []*proxyConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*proxyConn(nil), p.taps...)
}

// Close stops listening, closes every connection and waits for the
// forwarding goroutines.
func (p *proxy) Close() error {
	p.mu.Lock()
	p.done = true
	taps := append([]*proxyConn(nil), p.taps...)
	p.mu.Unlock()
	var err error
	for _, l := range p.lns {
		if e := l.ln.Close(); err == nil {
			err = e
		}
	}
	for _, t := range taps {
		t.Close()
	}
	p.wg.Wait()
	return err
}

func (p *proxy) accept(l proxyListener) {
	defer p.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		tc, err := l.upstream.Dial(context.Background(), 2)
		if err != nil {
			c.Close()
			continue
		}
		s := tc.NC
		p.mu.Lock()
		if p.done {
			p.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		t := &proxyConn{ID: len(p.taps) + 1, Node: l.upstream.Addr, addrs: p.addrs, seq: &p.seq, moved: &p.moved, fwd: &p.forwarding, client: c, server: s, claimed: map[int]bool{}, serve: p.fault.Serve, beforeSend: p.beforeSend, rec: recording{lim: p.limits}}
		p.taps = append(p.taps, t)
		p.wg.Add(2)
		p.mu.Unlock()
		go func() { defer p.wg.Done(); t.pump(c, s, ToServer, Fault{}, p.limits) }()
		go func() { defer p.wg.Done(); t.pump(s, c, ToClient, p.fault, p.limits) }()
	}
}

// Close closes both sides of the connection (used after a hang, to unblock
// the library).
func (t *proxyConn) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.client.Close()
	t.server.Close()
}

// Events returns a copy of the recording.
func (t *proxyConn) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.rec.events()...)
}

// Seq is the number of events the proxy has recorded so far: an event
// recorded later has a greater seq.
func (p *proxy) Seq() uint64 { return p.seq.Load() }

// record keeps e and returns its seq.
func (t *proxyConn) record(e Event) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.recordLocked(e)
}

// recordLocked is record with t.mu held.
func (t *proxyConn) recordLocked(e Event) uint64 {
	e.seq = t.seq.Add(1)
	t.rec.addFull(e)
	return e.seq
}

// recordFrame keeps a copy of frame, a whole RESP frame that crossed in
// direction dir at at (UnixNano) and goes on as it came, and returns the
// copy and its seq.
func (t *proxyConn) recordFrame(dir Dir, frame []byte, at int64) ([]byte, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	seq := t.seq.Add(1)
	return t.rec.addFrame(dir, frame, at, seq), seq
}

// pump copies src to dst, framing and recording what passes (see
// framer). Frames are forwarded once complete (so the recording always
// precedes delivery); after bytes that are not RESP, the rest is forwarded
// as it comes. A frame over the limits is recorded as bad bytes and not
// forwarded (a library would allocate what it declares): a client gets the
// error reply Redis sends, and the connection ends.
func (t *proxyConn) pump(src, dst net.Conn, dir Dir, f Fault, lim resp.Limits) {
	defer dst.Close()
	defer src.Close()
	var r io.Reader = src
	if t.moved != nil {
		r = countingReader{src, t.moved}
	}
	// Frames go out through w, flushed whenever the framer must wait for
	// more bytes: a pipeline that arrived in one read leaves in one
	// write (redis-benchmark -P 16 through the capture proxy: one write
	// per frame gave 8% of direct's requests per second), a lone command
	// at once.
	w := bufio.NewWriterSize(dst, 32<<10)
	defer w.Flush()
	fr := newFramer(r, lim)
	fr.flush = w.Flush
	for {
		pc, err := fr.next()
		if err != nil {
			if dir == ToClient {
				t.mu.Lock()
				t.serverEnded = !t.closed
				t.mu.Unlock()
			}
			return
		}
		if t.fwd != nil {
			t.fwd.Add(1)
		}
		more := t.forward(pc, src, w, dir, f)
		if t.fwd != nil {
			t.fwd.Add(-1)
		}
		if !more {
			return
		}
	}
}

// forward records one piece of src's stream and writes it on to dst; more
// is false when the connection must end (a write failed, or the piece was
// over the limits).
func (t *proxyConn) forward(pc piece, src net.Conn, dst *bufio.Writer, dir Dir, f Fault) (more bool) {
	var err error
	switch pc.kind {
	case pieceFrame:
		if t.serve != nil {
			if sub, ok := t.substitute(pc.frame, dir); ok {
				return writeSplit(dst, sub, f) == nil
			}
		}
		frame, seq := t.recordOne(dir, pc.frame, pc.at)
		if dir == ToServer && t.beforeSend != nil {
			t.args = appendExchangeArgs(t.args[:0], pc.frame)
			t.beforeSend(t.ID, seq, t.args, dst)
		}
		if extra := t.extraAfter(f); extra != nil {
			// Recorded before the reply is delivered, so no later
			// command can come between them.
			frame = append(append([]byte(nil), frame...), extra...)
		}
		err = writeSplit(dst, frame, f)
	case pieceBad:
		t.record(Event{Dir: dir, Bad: bytes.Clone(pc.bytes), Time: time.Now()})
		_, err = dst.Write(pc.bytes)
	case pieceRaw:
		_, err = dst.Write(pc.bytes)
	case pieceTooLong:
		t.record(Event{Dir: dir, Bad: bytes.Clone(pc.bytes), OverLimit: resp.LimitText(pc.err), Time: time.Now()})
		if dir == ToServer {
			t.refuse(src, pc.typ)
		}
		return false
	}
	return err == nil
}

// recordOne records a frame read from the stream (valid until the next
// read) and returns the bytes to forward and its seq: on a cluster, what
// the client gets is what is recorded and judged (the node addresses
// rewritten, the server's bytes kept as Upstream).
func (t *proxyConn) recordOne(dir Dir, frame resp.Value, at int64) ([]byte, uint64) {
	if dir == ToClient && t.addrs != nil {
		if v, ok := t.addrs.rewrite(frame); ok {
			e := Event{Dir: dir, Value: v, Upstream: bytes.Clone(frame.Raw), Time: time.Now()}
			return v.Raw, t.record(e)
		}
	}
	return t.recordFrame(dir, frame.Raw, at)
}

// refuse answers a client's command over the limits as Redis does, and
// records the reply as the proxy's own.
func (t *proxyConn) refuse(client net.Conn, typ byte) {
	msg := protocolError(typ)
	if _, v, err := resp.Parse(msg); err == nil {
		t.record(Event{Dir: ToClient, Value: v.Clone(), Time: time.Now(), Injected: true})
	}
	client.SetWriteDeadline(time.Now().Add(time.Second))
	client.Write(msg)
}

// extraAfter returns the frame to inject after the reply just recorded, or
// nil: the first reply to a command named f.ExtraAfter on this connection.
// The injected frame is recorded too.
func (t *proxyConn) extraAfter(f Fault) []byte {
	if f.ExtraAfter == "" || t.injected {
		return nil
	}
	t.mu.Lock()
	events := t.rec.events()
	last := len(events) - 1
	hit := false
	pairs, _ := t.pairsLocked()
	for i, pr := range pairs {
		cmd := events[i].Value
		if pr.reply == last && cmd.Kind == resp.Array && len(cmd.Elems) > 0 && strings.EqualFold(string(cmd.Elems[0].Str), f.ExtraAfter) {
			hit = true
		}
	}
	t.mu.Unlock()
	if !hit {
		return nil
	}
	t.injected = true
	extra := f.ExtraReply
	if len(extra) == 0 {
		extra = []byte("+respcheck-extra\r\n")
	}
	_, v, err := resp.Parse(extra)
	if err != nil {
		return nil
	}
	t.record(Event{Dir: ToClient, Value: v.Clone(), Time: time.Now(), Injected: true})
	return extra
}

// writeSplit writes frame to dst: buffered, or, where f splits frames,
// each part in a write of its own (flushed), f.Delay apart.
func writeSplit(dst *bufio.Writer, frame []byte, f Fault) error {
	last := 0
	for _, at := range f.Split {
		if at <= last || at >= len(frame) {
			continue
		}
		if err := dst.Flush(); err != nil {
			return err
		}
		if _, err := dst.Write(frame[last:at]); err != nil {
			return err
		}
		if err := dst.Flush(); err != nil {
			return err
		}
		time.Sleep(f.Delay)
		last = at
	}
	_, err := dst.Write(frame[last:])
	if err == nil && last > 0 {
		err = dst.Flush()
	}
	return err
}

// exchange is a command a client sent and what the server answered it.
type exchange struct {
	tap    *proxyConn
	cmd    int // index of the command event
	reply  *resp.Value
	pushes []resp.Value // pushes that arrived between the command and the reply
	more   []resp.Value // further frames of the same reply (SUBSCRIBE a b)
	// injected are frames the proxy sent on its own (Fault.ExtraAfter)
	// before the reply; they are not in pushes.
	injected []resp.Value
	bad      []byte
	// overLimit is the reader's error when bad starts a frame over the
	// proxy's limits.
	overLimit string
	pending   bool // the command was seen but its reply has not arrived
	// serverEnded says the server had ended the connection when the
	// exchange was read (proxyConn.serverEnded).
	serverEnded bool
	// fault is the first frame the server sent on the connection, up to
	// this exchange's reply, that breaks RESP3 (see frameFault): what the
	// library made of the reply depends on how it read that frame, so
	// the step is not judged.
	fault error
}

// wanted describes the command one library call sent, for claim.
type wanted struct {
	// args is the command; with byName only its name (args[0]) must match
	// (typed wrappers may send other arguments than the case's), and never
	// a canary.
	args   [][]byte
	byName bool
	// from and to bound the call: only events with from < seq <= to can be
	// its command (the proxy's Seq when the call began, and when the next
	// call on the same library connection began). The library's own
	// handshake on connections opened before the call, and the commands of
	// earlier and later calls, fall outside.
	from, to uint64
	// own is the connection the pinned library connection was last seen
	// on, or nil; foreign reports connections seen carrying other pinned
	// connections' commands. Connections are searched in this order: own,
	// then any other that is not foreign, then foreign ones (a library
	// that multiplexes two pinned connections over one).
	own     *proxyConn
	foreign func(*proxyConn) bool
}

func (w wanted) matches(v resp.Value) bool {
	if w.byName {
		return v.Kind == resp.Array && len(v.Elems) > 0 && bytes.EqualFold(v.Elems[0].Str, w.args[0]) &&
			!isCanaryCommand(v)
	}
	return sameCommand(v, w.args)
}

// rank orders the connections a call's command is looked for on: 0 the
// call's own connection (wanted.own), 1 any other, 2 one seen carrying
// another pinned connection's commands (wanted.foreign), looked at last.
func (w wanted) rank(t *proxyConn) int {
	switch {
	case t == w.own:
		return 0
	case w.foreign != nil && w.foreign(t):
		return 2
	}
	return 1
}

// claim finds the command a library call sent, among the unclaimed
// commands the proxy saw within the call's bounds, and the reply the
// server sent to it (the n-th non-push frame for the n-th command of its
// connection), and marks the command claimed. ok is false if no such
// command was seen.
//
// Every match must come from one connection, the one that carried the
// call: a library may open more connections than the case has (a pool, a
// dedicated connection beside its shared one) and send its own handshake
// (HELLO, CLIENT SETINFO...) on each. The connection is chosen by rank
// (see wanted.own), then by its earliest match; on that connection the last
// match is the call's: a handshake the library sends on a connection it
// dials for the call precedes the call's command, and a library that sends
// a command again decodes the last reply.
func (p *proxy) claim(w wanted) (exchange, bool) {
	var best *proxyConn
	bestRank, bestFirst, bestIdx := 0, uint64(0), -1
	for _, t := range p.Taps() {
		rank := w.rank(t)
		t.mu.Lock()
		first, last, opening := uint64(0), -1, -1
		for i, e := range t.rec.events() {
			if e.Dir == ToServer && opening < 0 {
				opening = i
			}
			if e.seq <= w.from || e.seq > w.to {
				continue
			}
			if e.Dir == ToServer && e.Bad == nil && !t.claimed[i] && w.matches(e.Value) {
				if last < 0 {
					first = e.seq
				}
				last = i
			}
		}
		t.mu.Unlock()
		if p.addrs != nil && last == opening && rank == 1 {
			// A cluster client opens connections to other nodes while a
			// call runs, each with its handshake (HELLO 3...): a match that
			// opens its connection is taken only when no other is there.
			rank = 2
		}
		if last >= 0 && (best == nil || rank < bestRank || rank == bestRank && first < bestFirst) {
			best, bestRank, bestFirst, bestIdx = t, rank, first, last
		}
	}
	if best == nil {
		return exchange{}, false
	}
	best.mu.Lock()
	best.claimed[bestIdx] = true
	best.mu.Unlock()
	return p.replyOf(exchange{tap: best, cmd: bestIdx, pending: true}), true
}

// claimSeq finds the commands one batch call sent (a pipeline, or MULTI,
// the queued commands and EXEC), in order, on one proxied connection, with
// their replies: cmds[k] is the first unclaimed match after cmds[k-1]'s
// within the call's bounds (w's args are ignored). A command not found is
// not sent (sent[k] false) and the next is looked for after the last one
// found. The connection is chosen by rank (see wanted.own), then by the
// most commands found, then by its earliest match. With commit false
// nothing is claimed (a look to see whether all were recorded).
func (p *proxy) claimSeq(w wanted, cmds [][][]byte, commit bool) ([]exchange, []bool) {
	xs, sent := make([]exchange, len(cmds)), make([]bool, len(cmds))
	var best *proxyConn
	var bestIdx []int
	bestRank, bestFound, bestFirst := 0, 0, uint64(0)
	for _, t := range p.Taps() {
		rank := w.rank(t)
		t.mu.Lock()
		idx, found, first := t.seqMatches(w, cmds)
		t.mu.Unlock()
		if found == 0 {
			continue
		}
		if best == nil || rank < bestRank || rank == bestRank && (found > bestFound || found == bestFound && first < bestFirst) {
			best, bestIdx, bestRank, bestFound, bestFirst = t, idx, rank, found, first
		}
	}
	if best == nil {
		return xs, sent
	}
	for k, i := range bestIdx {
		if i < 0 {
			continue
		}
		if commit {
			best.mu.Lock()
			best.claimed[i] = true
			best.mu.Unlock()
		}
		xs[k], sent[k] = p.replyOf(exchange{tap: best, cmd: i, pending: true}), true
	}
	return xs, sent
}

// seqMatches is claimSeq's walk of one connection (t.mu held): the event
// index of each command (-1 if not found), how many were found and the seq
// of the first found.
func (t *proxyConn) seqMatches(w wanted, cmds [][][]byte) (idx []int, found int, first uint64) {
	idx = make([]int, len(cmds))
	next := 0
	events := t.rec.events()
	for k, args := range cmds {
		idx[k] = -1
		for i := next; i < len(events); i++ {
			e := events[i]
			if e.seq <= w.from || e.seq > w.to || e.Dir != ToServer || e.Bad != nil || t.claimed[i] || !sameCommand(e.Value, args) {
				continue
			}
			if found == 0 {
				first = e.seq
			}
			idx[k], next = i, i+1
			found++
			break
		}
	}
	return idx, found, first
}

// replyOf re-reads the reply of a claimed exchange (after waiting), as
// pairEvents pairs the connection's frames.
func (p *proxy) replyOf(x exchange) exchange {
	t := x.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	x.pushes, x.reply, x.bad, x.injected, x.overLimit = nil, nil, nil, nil, ""
	events := t.rec.events()
	pairs, _ := t.pairsLocked()
	pr := pairs[x.cmd]
	upto := len(events)
	if pr != nil && pr.reply >= 0 {
		upto = pr.reply + 1
	}
	x.fault = frameFault(events[:upto])
	x.serverEnded = t.serverEnded
	if pr == nil {
		// The command came after bytes from the server that are not RESP,
		// where pairing stops (the server's side is forwarded raw since):
		// they are what the library got.
		for _, e := range events[:x.cmd] {
			if e.Dir == ToClient && e.Bad != nil {
				x.bad, x.overLimit, x.pending = e.Bad, e.OverLimit, false
				break
			}
		}
		return x
	}
	for _, i := range pr.pushes {
		if events[i].Injected {
			x.injected = append(x.injected, events[i].Value)
		} else {
			x.pushes = append(x.pushes, events[i].Value)
		}
	}
	if pr.reply >= 0 {
		v := events[pr.reply].Value
		x.reply, x.pending = &v, false
		x.more = nil
		for _, i := range pr.more {
			x.more = append(x.more, events[i].Value)
		}
		return x
	}
	// No reply yet: bytes that are not RESP after the command end it.
	for _, e := range events[x.cmd:] {
		if e.Dir == ToClient && e.Bad != nil {
			x.bad, x.overLimit, x.pending = e.Bad, e.OverLimit, false
		}
	}
	return x
}

func sameCommand(v resp.Value, args [][]byte) bool {
	if v.Kind != resp.Array || len(v.Elems) != len(args) {
		return false
	}
	for i := range args {
		e := v.Elems[i]
		if e.Kind != resp.BlobString {
			return false
		}
		if !bytes.Equal(e.Str, args[i]) && !(keyword(args[i]) && bytes.EqualFold(e.Str, args[i])) {
			return false
		}
	}
	return true
}

// keyword reports whether a is a command name or option keyword (letters
// only), which libraries may send in another letter case.
func keyword(a []byte) bool {
	if len(a) == 0 {
		return false
	}
	for _, c := range a {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// fault is frameFault of every frame recorded on t so far.
func (t *proxyConn) fault() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return frameFault(t.rec.events())
}

// frameFault returns why the first frame the server sent among events
// breaks RESP3, or nil: bytes that are not RESP (a length that lies, say),
// or a frame that decodes but breaks a rule (a push frame nested in an
// aggregate: resp.CheckFrame). Offsets count from that frame's first
// byte; a frame before the last one is named by its first bytes.
func frameFault(events []Event) error {
	for i, e := range events {
		if e.Dir != ToClient {
			continue
		}
		var err error
		switch {
		case e.OverLimit != "":
			// Valid RESP over respcheck's own limits (--max-depth): not
			// the server's fault, and the step says so itself.
		case e.Bad != nil:
			if _, err = resp.ParseExact(e.Bad); err == nil {
				err = fmt.Errorf("bytes that are not RESP: %s", resp.Escape(e.Bad[:min(len(e.Bad), 40)]))
			}
		case e.Injected:
		default:
			err = resp.CheckFrame(e.Value)
		}
		if err == nil {
			continue
		}
		if i < len(events)-1 {
			raw := e.Value.Raw
			if e.Bad != nil {
				raw = e.Bad
			}
			return fmt.Errorf("%w (in the earlier frame %s... on this connection)", err, resp.Escape(raw[:min(len(raw), 24)]))
		}
		return err
	}
	return nil
}

// countingReader adds the bytes read from r to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}
