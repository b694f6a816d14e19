package clients

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/internal/memtest"
	"github.com/respcheck/respcheck/runner/target"
)

// fakeUpstream is a server that answers the first bytes of every connection
// with reply, and keeps what it received.
type fakeUpstream struct {
	ln    net.Listener
	reply []byte
	mu    sync.Mutex
	got   []byte
}

func newFakeUpstream(t *testing.T, reply string) *fakeUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &fakeUpstream{ln: ln, reply: []byte(reply)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return u
}

func (u *fakeUpstream) serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	for replied := false; ; replied = true {
		n, err := c.Read(buf)
		u.mu.Lock()
		u.got = append(u.got, buf[:n]...)
		u.mu.Unlock()
		if err != nil {
			return
		}
		if !replied && len(u.reply) > 0 {
			c.Write(u.reply)
		}
	}
}

func (u *fakeUpstream) received() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return string(u.got)
}

// talk writes in to the proxy on a new connection and returns what came
// back until the connection closed or a short deadline passed, and whether
// it closed.
func talk(t *testing.T, addr, in string) (string, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	out, err := io.ReadAll(c)
	// A reset is a close with the client's bytes unread.
	return string(out), err == nil || errors.Is(err, syscall.ECONNRESET)
}

// TestProxyRefusesHugeCommandHeaders: a command that declares a bulk or an
// argument count over the limits gets Redis's error reply from the proxy
// and a closed connection, is recorded as bad bytes, is not forwarded, and
// allocates nothing of what it declares.
func TestProxyRefusesHugeCommandHeaders(t *testing.T) {
	up := newFakeUpstream(t, "")
	p, err := newProxy(target.Config{Addr: up.ln.Addr().String()}, Fault{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct{ name, in, want string }{
		{"2 GB bulk", "*1\r\n$2000000000\r\nabc", "-ERR Protocol error: invalid bulk length\r\n"},
		{"2G arguments", "*2000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"2G elements in an argument", "*2\r\n$3\r\nGET\r\n*2000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"over the bulk limit by one", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"over the argument limit by one", "*1048577\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
	} {
		var out string
		var closed bool
		grew, allocated := memtest.During(func() { out, closed = talk(t, p.Addr(), tc.in) })
		t.Logf("%s: heap %+d bytes, %d bytes allocated", tc.name, grew, allocated)
		if out != tc.want || !closed {
			t.Errorf("%s: got %q (closed %v), want %q and a closed connection", tc.name, out, closed, tc.want)
		}
		if allocated > 4<<20 {
			t.Errorf("%s: %d bytes allocated", tc.name, allocated)
		}
		taps := p.Taps()
		ev := taps[len(taps)-1].Events()
		if len(ev) != 2 || string(ev[0].Bad) != tc.in || !ev[1].Injected || string(ev[1].Value.Raw) != tc.want {
			t.Errorf("%s: recorded %+v", tc.name, ev)
		}
	}
	if got := up.received(); got != "" {
		t.Errorf("the upstream received %q", got)
	}
}

// TestProxyEndsOnHugeReplyHeaders: a reply that declares a bulk or an
// element count over the limits is recorded as bad bytes and not forwarded
// (a library would allocate what it declares); the client's connection is
// closed, and nothing of the declared size is allocated.
func TestProxyEndsOnHugeReplyHeaders(t *testing.T) {
	for _, tc := range []struct{ name, reply string }{
		{"2 GB bulk", "$2000000000\r\nabc"},
		{"2G elements", "*2000000000\r\n:1\r\n"},
		{"2G pairs, nested", "*1\r\n%2000000000\r\n"},
	} {
		up := newFakeUpstream(t, tc.reply)
		p, err := newProxy(target.Config{Addr: up.ln.Addr().String()}, Fault{})
		if err != nil {
			t.Fatal(err)
		}
		var out string
		var closed bool
		grew, allocated := memtest.During(func() { out, closed = talk(t, p.Addr(), "*1\r\n$4\r\nPING\r\n") })
		t.Logf("%s: heap %+d bytes, %d bytes allocated", tc.name, grew, allocated)
		if out != "" || !closed {
			t.Errorf("%s: the client got %q (closed %v), want nothing and a closed connection", tc.name, out, closed)
		}
		if allocated > 4<<20 {
			t.Errorf("%s: %d bytes allocated", tc.name, allocated)
		}
		ev := p.Taps()[0].Events()
		if len(ev) != 2 || ev[0].Dir != ToServer || ev[1].Dir != ToClient || string(ev[1].Bad) != tc.reply {
			t.Errorf("%s: recorded %+v", tc.name, ev)
		}
		p.Close()
	}
}

// TestClaimAfterBadBytes: a command the client sent after the server's
// bytes that were not RESP (pairing stops there) is answered by those
// bytes, not by a nil pairing (found by FuzzPairing: a panic).
func TestClaimAfterBadBytes(t *testing.T) {
	events := wire(t, "> PING", "<+PONG\r\n")
	events = append(events, Event{Dir: ToClient, Bad: []byte("x\r\n")})
	events = append(events, wire(t, "> GET k")...)
	for i := range events {
		events[i].seq = uint64(i + 1)
	}
	tap := tapOf(events)
	p := &proxy{taps: []*proxyConn{tap}}
	x, ok := p.claim(wanted{args: [][]byte{[]byte("GET"), []byte("k")}, to: 100})
	if !ok || x.cmd != 3 || x.pending || string(x.bad) != "x\r\n" || x.reply != nil {
		t.Fatalf("claim: %v %+v", ok, x)
	}
}

// tapOf is a proxied connection that recorded events (their seq as set).
func tapOf(events []Event) *proxyConn {
	tap := &proxyConn{seq: new(atomic.Uint64), claimed: map[int]bool{}}
	for i := range events {
		tap.rec.addFull(events[i])
	}
	return tap
}
