package main

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestServerKilledIsAlwaysExit3 loops TestServerKilledMidRunIsExit3's
// scenario with every CPU kept busy by goroutines that burn it: a server
// killed while a case blocks on it is exit 3 every time. Under CI load the
// run once exited 1: the cases ended (the blocked one cancelled, the next
// one not run) and the run's end cancelled its context before the
// watchdog's loss was recorded, which then passed for an interruption.
func TestServerKilledIsAlwaysExit3(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "slow.yaml", `suite: slow
cases:
  - name: blocks
    steps: [{send: [BLPOP, "{key}", "0"]}]
  - name: after
    steps: [{send: [PING]}]
`)
	ctx, stop := context.WithCancel(context.Background())
	var burners sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		burners.Add(1)
		go func() {
			defer burners.Done()
			for n := 0; ctx.Err() == nil; n++ {
				_ = strings.Repeat("x", n%64)
			}
		}()
	}
	defer burners.Wait()
	defer stop()
	for i := range 20 {
		srv := servers.ForTest(t, "redis-7.0.15")
		c := dialRawTCP(t, srv.Addr())
		go func() {
			// Kill the server once the case blocks on it (or after 10 s).
			for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait); time.Sleep(5 * time.Millisecond) {
				if c.blocked(t) > 0 {
					break
				}
			}
			srv.Signal(syscall.SIGKILL)
		}()
		code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--jobs", "1", "--timeout", "2s", f)
		if code != exitServer || !strings.Contains(errs, "stopped answering") {
			t.Fatalf("iteration %d: exit %d, want 3\n%s%s", i, code, out, errs)
		}
	}
}
