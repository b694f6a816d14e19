// Package testrelay is a TCP relay for tests that need a slow server
// rather than a broken one: slow to connect (a loaded machine's accept
// queue), slow to answer (a remote upstream), or slow on its first
// connection only. Bytes pass unchanged and in order; only their timing
// changes. Malformed or split replies are the replay server's job
// (runner/golden/replay).
package testrelay

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// TB is what Start needs of a *testing.T or *testing.B.
type TB interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
}

// Options says how the relay slows each connection; the zero value
// relays at once.
type Options struct {
	// DialDelay is how long after accepting a connection the relay dials
	// the upstream (the client's bytes wait meanwhile).
	DialDelay time.Duration
	// ReplyDelay holds each chunk the upstream sends (one read, up to 64
	// KiB) this long before it goes on to the client.
	ReplyDelay time.Duration
	// FirstOnly applies ReplyDelay to the first connection alone.
	FirstOnly bool
}

// Start listens on a free port of 127.0.0.1 and relays each connection to
// upstream as o says, until the test ends (tb.Cleanup closes the
// listener; the connections end with their peers). It returns the
// relay's address. An upstream that cannot be dialled within 5 s closes
// the client's connection.
func Start(tb TB, upstream string, o Options) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			delay := o.ReplyDelay
			if o.FirstOnly && n.Add(1) > 1 {
				delay = 0
			}
			go relay(c, upstream, o.DialDelay, delay)
		}
	}()
	return ln.Addr().String()
}

// relay joins c to a connection to upstream dialled wait after the
// accept, each chunk from upstream held for delay.
func relay(c net.Conn, upstream string, wait, delay time.Duration) {
	defer c.Close()
	time.Sleep(wait)
	up, err := net.DialTimeout("tcp", upstream, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	go func() {
		io.Copy(up, c)
		up.Close()
	}()
	buf := make([]byte, 64<<10)
	for {
		k, err := up.Read(buf)
		if k > 0 {
			time.Sleep(delay)
			if _, werr := c.Write(buf[:k]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
