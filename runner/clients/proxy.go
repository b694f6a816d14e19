package clients

import (
	"bytes"
	"net"
	"sync"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// Dir is the direction of a recorded frame.
type Dir int

// The directions.
const (
	ToServer Dir = iota // a command the client sent
	ToClient            // a reply or push the server sent
)

func (d Dir) String() string {
	if d == ToServer {
		return "client>server"
	}
	return "server>client"
}

// MarshalText encodes the direction as "client>server" or "server>client".
func (d Dir) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Event is one frame that crossed the proxy.
type Event struct {
	Dir   Dir
	Value resp.Value // cloned; Raw is the exact bytes
	// Bad holds bytes that were not valid RESP (Value is then zero); from
	// there on the direction is forwarded without framing.
	Bad  []byte
	Time time.Time
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
}

// Proxy is a recording TCP proxy between client libraries and a server.
// Every accepted connection gets a Tap holding what crossed it.
type Proxy struct {
	ln       net.Listener
	upstream string
	fault    Fault

	mu   sync.Mutex
	taps []*Tap
	wg   sync.WaitGroup
	done bool
}

// Tap is one proxied connection and its recording.
type Tap struct {
	// ID numbers the proxy's connections from 1 in accept order.
	ID     int
	mu     sync.Mutex
	events []Event
	// claimed marks ToServer events already matched to a request.
	claimed map[int]bool
	client  net.Conn
	server  net.Conn
	closed  bool
}

// NewProxy listens on 127.0.0.1 with a free port and forwards every
// connection to upstream.
func NewProxy(upstream string, fault Fault) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if fault.Delay <= 0 {
		fault.Delay = 20 * time.Millisecond
	}
	p := &Proxy{ln: ln, upstream: upstream, fault: fault}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port, for the clients.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Taps returns the connections accepted so far.
func (p *Proxy) Taps() []*Tap {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Tap(nil), p.taps...)
}

// Close stops listening, closes every connection and waits for the
// forwarding goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.done = true
	taps := append([]*Tap(nil), p.taps...)
	p.mu.Unlock()
	err := p.ln.Close()
	for _, t := range taps {
		t.Close()
	}
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.done {
			p.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		t := &Tap{ID: len(p.taps) + 1, client: c, server: s, claimed: map[int]bool{}}
		p.taps = append(p.taps, t)
		p.wg.Add(2)
		p.mu.Unlock()
		go func() { defer p.wg.Done(); t.pump(c, s, ToServer, Fault{}) }()
		go func() { defer p.wg.Done(); t.pump(s, c, ToClient, p.fault) }()
	}
}

// Close closes both sides of the connection (used after a hang, to unblock
// the library).
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.client.Close()
	t.server.Close()
}

// Events returns a copy of the recording.
func (t *Tap) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}

func (t *Tap) record(e Event) {
	t.mu.Lock()
	t.events = append(t.events, e)
	t.mu.Unlock()
}

// pump copies src to dst, framing and recording what passes. Frames are
// forwarded once complete (so the recording always precedes delivery);
// after bytes that are not RESP, the rest is forwarded as it comes.
func (t *Tap) pump(src, dst net.Conn, dir Dir, f Fault) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 32<<10)
	raw := false
	for {
		n, err := src.Read(chunk)
		if n > 0 {
			if raw {
				if _, werr := dst.Write(chunk[:n]); werr != nil {
					return
				}
			} else {
				buf = append(buf, chunk[:n]...)
				off := 0
				for off < len(buf) {
					m, v, perr := resp.ParseLimits(buf[off:], resp.DefaultLimits)
					if perr == nil && m == 0 {
						break // incomplete: wait for more bytes
					}
					if perr != nil {
						t.record(Event{Dir: dir, Bad: bytes.Clone(buf[off:]), Time: time.Now()})
						if _, werr := dst.Write(buf[off:]); werr != nil {
							return
						}
						off, raw = len(buf), true
						break
					}
					t.record(Event{Dir: dir, Value: v.Clone(), Time: time.Now()})
					if werr := writeSplit(dst, buf[off:off+m], f); werr != nil {
						return
					}
					off += m
				}
				buf = append(buf[:0], buf[off:]...)
			}
		}
		if err != nil {
			return
		}
	}
}

func writeSplit(dst net.Conn, frame []byte, f Fault) error {
	last := 0
	for _, at := range f.Split {
		if at <= last || at >= len(frame) {
			continue
		}
		if _, err := dst.Write(frame[last:at]); err != nil {
			return err
		}
		time.Sleep(f.Delay)
		last = at
	}
	_, err := dst.Write(frame[last:])
	return err
}

// exchange is a command a client sent and what the server answered it.
type exchange struct {
	tap     *Tap
	cmd     int // index of the command event
	reply   *resp.Value
	pushes  []resp.Value // pushes that arrived between the command and the reply
	bad     []byte
	pending bool // the command was seen but its reply has not arrived
}

// claim finds the first unclaimed command equal to args on any tap and
// the reply the server sent to it (the n-th non-push frame for the n-th
// command of the tap), and marks the command claimed. ok is false if no
// such command was seen.
func (p *Proxy) claim(args [][]byte) (exchange, bool) {
	for _, t := range p.Taps() {
		t.mu.Lock()
		idx := -1
		for i, e := range t.events {
			if e.Dir == ToServer && e.Bad == nil && !t.claimed[i] && sameCommand(e.Value, args) {
				idx = i
				t.claimed[i] = true
				break
			}
		}
		t.mu.Unlock()
		if idx >= 0 {
			return p.replyOf(exchange{tap: t, cmd: idx, pending: true}), true
		}
	}
	return exchange{}, false
}

// replyOf re-reads the reply of a claimed exchange (after waiting).
func (p *Proxy) replyOf(x exchange) exchange {
	t := x.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	cmds := 0
	for i, e := range t.events {
		if i == x.cmd {
			break
		}
		if e.Dir == ToServer && e.Bad == nil {
			cmds++
		}
	}
	replies := 0
	x.pushes = nil
	for _, e := range t.events {
		if e.Dir != ToClient {
			continue
		}
		if e.Bad != nil {
			x.bad, x.pending = e.Bad, false
			return x
		}
		if e.Value.Kind == resp.Push {
			if replies == cmds {
				x.pushes = append(x.pushes, e.Value)
			}
			continue
		}
		if replies == cmds {
			v := e.Value
			x.reply, x.pending = &v, false
			return x
		}
		replies++
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
