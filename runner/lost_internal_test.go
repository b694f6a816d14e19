package runner

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestLossOutlivesTheRunsEnd: a server killed while a case blocks on it
// ends the run with ServerLost (exit 3) even when the run's items have
// all ended, and the run's context with them, before the watchdog's
// verdict (lossHook holds the verdict until then, as a loaded machine
// once did: the run exited 1, "3 results not run: the server stopped
// answering", the loss taken for an interruption).
func TestLossOutlivesTheRunsEnd(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f, err := cases.Load("slow.yaml", []byte(`suite: slow
cases:
  - name: blocks
    steps: [{send: [BLPOP, "{key}", "0"]}]
  - name: after
    steps: [{send: [PING]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	lossHook = func(ctx context.Context) {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Second):
			t.Error("the run's context was not done 20 s after the loss")
		}
	}
	defer func() { lossHook = nil }()
	go func() {
		// Kill the server once the case blocks on it (or after 10 s).
		for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait) && !blocked(srv.Addr()); {
			time.Sleep(5 * time.Millisecond)
		}
		srv.Signal(syscall.SIGKILL)
	}()
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Addr: srv.Addr(), Jobs: 1, StepTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ServerLost == nil || !strings.Contains(rep.ServerLost.Error(), "stopped answering") {
		for _, r := range rep.Results {
			t.Logf("%s RESP%d: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
		t.Errorf("ServerLost = %v, want the loss", rep.ServerLost)
	}
}

// blocked reports whether a client of the server at addr is blocked
// (INFO clients' blocked_clients).
func blocked(addr string) bool {
	nc, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Second))
	nc.Write([]byte("INFO clients\r\n"))
	buf := make([]byte, 4096)
	n, _ := nc.Read(buf)
	return strings.Contains(string(buf[:n]), "blocked_clients:1")
}
