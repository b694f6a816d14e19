package target_test

import (
	"net"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/respcheck/respcheck/runner/internal/testrelay"
	"github.com/respcheck/respcheck/runner/target"
)

// TestAliveOnALoadedMachine: a server whose first answer takes longer
// than the ping's second is alive (the next ping is answered at once); a
// server that accepts and never answers is not, and neither is a port
// that refuses.
func TestAliveOnALoadedMachine(t *testing.T) {
	m := miniredis.RunT(t)
	slow := &target.Target{Config: target.Config{Addr: testrelay.Start(t, m.Addr(), testrelay.Options{ReplyDelay: 1500 * time.Millisecond, FirstOnly: true})}}
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
