package target_test

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/respcheck/respcheck/runner/target"
)

// slowFirst listens on a port of its own and relays each connection to
// addr, the first one's bytes from the server held for delay: a live
// server on a loaded machine.
func slowFirst(t *testing.T, addr string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			first := n.Add(1) == 1
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer s.Close()
				go func() {
					buf := make([]byte, 4096)
					for {
						k, err := s.Read(buf)
						if err != nil {
							return
						}
						if first {
							time.Sleep(delay)
						}
						c.Write(buf[:k])
					}
				}()
				buf := make([]byte, 4096)
				for {
					k, err := c.Read(buf)
					if err != nil {
						return
					}
					s.Write(buf[:k])
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestAliveOnALoadedMachine: a server whose first answer takes longer
// than the ping's second is alive (the next ping is answered at once); a
// server that accepts and never answers is not, and neither is a port
// that refuses.
func TestAliveOnALoadedMachine(t *testing.T) {
	m := miniredis.RunT(t)
	slow := &target.Target{Config: target.Config{Addr: slowFirst(t, m.Addr(), 1500*time.Millisecond)}}
	if !slow.Alive() {
		t.Error("a server whose first PING took 1.5 s: not alive")
	}
	frozen, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Close()
	go func() {
		for {
			c, err := frozen.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	if (&target.Target{Config: target.Config{Addr: frozen.Addr().String()}}).Alive() {
		t.Error("a server that never answers: alive")
	}
	t.Logf("a frozen server found in %v", time.Since(start))
	refused := frozen.Addr().String()
	frozen.Close()
	if (&target.Target{Config: target.Config{Addr: refused}}).Alive() {
		t.Error("a closed port: alive")
	}
}
