package runner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// frozenCases write a key, then wait on the server: each would wait out
// its own step deadline if nothing watched the server.
func frozenCases(n int) string {
	var b strings.Builder
	b.WriteString("suite: frozen\ncases:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: waits %d\n    steps:\n", i)
		b.WriteString("      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n")
		b.WriteString("      - {send: [BLPOP, \"{key}:list\", \"0.5\"], any: true}\n")
	}
	return b.String()
}

// TestFrozenServerEndsTheRunQuickly: a server frozen with SIGSTOP mid-run
// ends a run against it (a shared target) whatever --jobs is: the watchdog's
// PING goes unanswered, the cases running then end at once saying so (none
// waits out its own deadline, none after them starts), and the keys their
// cleanup could not delete are listed. How long it takes is measured, not
// asserted (logged here; docs/measurements.md gives the CLI's figures).
func TestFrozenServerEndsTheRunQuickly(t *testing.T) {
	const step = 2 * time.Second
	for _, jobs := range []int{1, 8} {
		t.Run(fmt.Sprintf("jobs=%d", jobs), func(t *testing.T) {
			srv := servers.ForTest(t, "redis-7.0.15")
			t.Cleanup(func() { srv.Signal(syscall.SIGCONT) })
			var frozeAt time.Time
			var mu sync.Mutex
			go func() {
				time.Sleep(700 * time.Millisecond)
				mu.Lock()
				frozeAt = time.Now()
				mu.Unlock()
				srv.Signal(syscall.SIGSTOP)
			}()
			rep := run(t, srv.Addr(), load(t, frozenCases(40)), runner.Options{Jobs: jobs, StepTimeout: step,
				Shared: true, RunID: runner.NewRunID()})
			mu.Lock()
			took := time.Since(frozeAt)
			mu.Unlock()
			if rep.ServerLost == nil || !strings.Contains(rep.ServerLost.Error(), "no reply to PING within") {
				t.Fatalf("ServerLost = %v, want the watchdog's unanswered PING", rep.ServerLost)
			}
			t.Logf("the run ended %v after the freeze (step timeout %v)", took, step)
			died := 0
			for _, r := range rep.Results {
				if strings.Contains(r.Reason, "during this case") {
					died++
				}
				if r.Status == runner.Error && !r.NotRun && !strings.Contains(r.Reason, "during this case") {
					t.Errorf("%s: %q, an error of its own (a deadline waited out?)", r.Case.Name, r.Reason)
				}
				if r.Status == runner.Skip {
					t.Errorf("%s: skipped (%s)", r.Case.Name, r.Reason)
				}
			}
			if died == 0 || died > jobs {
				t.Errorf("%d results say the server stopped answering during their case, want 1 to %d (those running)", died, jobs)
			}
			if len(rep.KeysLeft) == 0 || !strings.HasPrefix(rep.KeysLeft[0], "rc:{") {
				t.Errorf("KeysLeft = %q, want the patterns of the running cases' keys", rep.KeysLeft)
			}
		})
	}
}

// TestInterruptedRunLearnsOfAFrozenServer: a Ctrl-C (the run's context
// cancelled) while the shared target is frozen does not leave the cleanup
// waiting out the step deadline on it: the watchdog goes on probing after
// the interruption with the short hurrySilence limit (1 s, named in the
// reason), the cases running then say the server stopped answering, their
// keys are listed as left, the final DBSIZE is not tried, and the run
// stays an interruption (no ServerLost).
func TestInterruptedRunLearnsOfAFrozenServer(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	t.Cleanup(func() { srv.Signal(syscall.SIGCONT) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		time.Sleep(700 * time.Millisecond)
		srv.Signal(syscall.SIGSTOP)
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	rep, err := runner.Run(ctx, load(t, frozenCases(40)), runner.Options{Addr: srv.Addr(), Jobs: 4,
		StepTimeout: 20 * time.Second, Shared: true, RunID: runner.NewRunID()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ServerLost != nil {
		t.Errorf("ServerLost = %v, want none: the run was interrupted", rep.ServerLost)
	}
	died := 0
	for _, r := range rep.Results {
		if strings.Contains(r.Reason, "no reply to PING within 1s, during this case") {
			died++
		}
	}
	if died == 0 {
		for _, r := range rep.Results {
			t.Logf("%s: %v %s", r.Case.Name, r.Status, r.Reason)
		}
		t.Errorf("no result says the server stopped answering within the interrupted run's 1 s limit")
	}
	if len(rep.KeysLeft) == 0 || rep.DBSize[1] != -1 {
		t.Errorf("KeysLeft = %q, DBSize = %v: want the running cases' keys listed and no DBSIZE after", rep.KeysLeft, rep.DBSize)
	}
}

// TestDeadServerIsStartedAgain: a throwaway server killed by a case
// (DEBUG SEGFAULT) is replaced (Options.Respawn) and the run goes on: the
// killing case is an error that says so, with the note Respawn gave, the
// later cases pass on the fresh server, and the report lists the restart.
func TestDeadServerIsStartedAgain(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	var mu sync.Mutex
	respawns := 0
	respawn := func(i int) (string, string, error) {
		mu.Lock()
		defer mu.Unlock()
		respawns++
		return servers.ForTest(t, "redis-7.0.15").Addr(), "the log said goodbye", nil
	}
	src := `suite: dies
cases:
  - {name: before, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - name: kills the server
    exclusive: true
    steps:
      - {send: [DEBUG, SEGFAULT], reply: "+OK\r\n"}
  - {name: after 1, steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]}
  - {name: after 2, steps: [{send: [PING], reply: "+PONG\r\n"}]}
`
	rep := run(t, srv.Addr(), load(t, src), runner.Options{Protos: []int{2}, Jobs: 4, Respawn: respawn})
	if rep.ServerLost != nil {
		t.Fatalf("ServerLost = %v, want the run to go on", rep.ServerLost)
	}
	killer := result(t, rep, "kills the server", 2)
	if killer.Status != runner.Error || !strings.Contains(killer.Reason, "during this case") ||
		!strings.Contains(killer.Reason, "the log said goodbye") {
		t.Errorf("killing case: %s %q", killer.Status, killer.Reason)
	}
	for _, name := range []string{"before", "after 1", "after 2"} {
		if r := result(t, rep, name, 2); r.Status != runner.Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Reason)
		}
	}
	if respawns != 1 || len(rep.Restarts) != 1 || !strings.Contains(rep.Restarts[0], `"kills the server"`) {
		t.Errorf("%d respawns, restarts %q; want one, naming the killing case", respawns, rep.Restarts)
	}
}

// TestFrozenServerIsNotRestarted: Respawn refusing (the process still
// runs) ends the run as without it, saying why.
func TestFrozenServerIsNotRestarted(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	t.Cleanup(func() { srv.Signal(syscall.SIGCONT) })
	go func() {
		time.Sleep(300 * time.Millisecond)
		srv.Signal(syscall.SIGSTOP)
	}()
	respawn := func(int) (string, string, error) { return "", "", fmt.Errorf("its process is still running") }
	rep, err := runner.Run(context.Background(), load(t, frozenCases(10)), runner.Options{Addr: srv.Addr(), Protos: []int{2},
		Jobs: 2, StepTimeout: time.Second, Respawn: respawn})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ServerLost == nil || !strings.Contains(rep.ServerLost.Error(), "not started again: its process is still running") {
		t.Errorf("ServerLost = %v", rep.ServerLost)
	}
}
