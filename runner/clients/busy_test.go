package clients

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestSlowCLIIsNotAHang runs, through valkey-cli 9.1.2 --no-raw, a SET and
// a GET of a 10 MiB random blob with a 1 ms step timeout (escaping the
// line and printing the reply take the CLI about a second of CPU), then a
// BLPOP that blocks with a 200 ms one: the blob steps match, with the note
// that they were slow and not hung; the BLPOP, whose CLI waits on its
// socket without using CPU, is a hang noted waiting (after one quiet
// window).
// Before busyConn, every step past its timeout was a hang (CI saw
// valkey-cli judged hung on the 1 MiB blob case under load).
func TestSlowCLIIsNotAHang(t *testing.T) {
	var d Driver
	for _, c := range cliTestDrivers(t) {
		if c.Library() == "valkey-cli-9.1.2[--no-raw]" {
			d = c
		}
	}
	if d == nil {
		t.Skip("valkey-cli 9.1.2 not installed")
	}
	srv := servers.ForTest(t, "valkey-9.1.2")
	f, err := cases.Load("slow.yaml", []byte(`suite: slow
cases:
  - name: a 10 MiB blob, then a BLPOP that blocks
    steps:
      - {send: [SET, "{key}", "{gen:random:10MiB}"], reply: "+OK\r\n", timeout: 1ms}
      - {send: [GET, "{key}"], reply: "$10485760\r\n{gen:random:10MiB}\r\n", timeout: 1ms}
      - {send: [BLPOP, "{key}:list", "0"], reply: "*-1\r\n", timeout: 200ms}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{d}, Protos: []int{3}, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || len(rep.Results[0].Steps) != 3 {
		for _, r := range rep.Results {
			t.Logf("%s %s %q %d steps", r.Client, r.Verdict, r.Reason, len(r.Steps))
		}
		t.Fatalf("%d results", len(rep.Results))
	}
	steps := rep.Results[0].Steps
	for _, sv := range steps[:2] {
		if sv.Verdict != Match || !strings.Contains(strings.Join(sv.Notes, "\n"), "slow, not hung") {
			t.Errorf("line %d %s: %s %v, want a match noted slow", sv.Step.Pos.Line, resp.EscapeCommand(sv.Args), sv.Verdict, sv.Notes)
		}
	}
	for _, sv := range steps {
		t.Logf("line %d: %s %v", sv.Step.Pos.Line, sv.Verdict, sv.Notes)
	}
	if sv := steps[2]; sv.Verdict != Hang || !strings.Contains(strings.Join(sv.Notes, "\n"), "printed nothing, and the proxy moved no byte") {
		t.Errorf("BLPOP: %s %v, want a hang noted waiting", sv.Verdict, sv.Notes)
	}
}

// steadyConn is a busyConn whose process uses a steady share of a CPU
// (perMille of the time since it started), read in whole clock ticks as
// /proc/PID/stat gives it.
type steadyConn struct {
	start    time.Time
	perMille int64
}

func (c steadyConn) Do(context.Context, [][]byte) Native { return Native{} }
func (c steadyConn) Busy() (time.Duration, bool) {
	used := time.Since(c.start) * time.Duration(c.perMille) / 1000
	return used.Truncate(10 * time.Millisecond), true
}
func (c steadyConn) IO() (int64, bool) { return 0, false }

// TestAwaitSteadyCPUIsNotAHang: a call whose CLI uses 3% of a CPU (15 ms
// of CPU time in each 500 ms window: a loaded machine's share) and
// answers 2 s past its 1 ms timeout is not hung (judged window against
// window with a 20 ms floor, it was); one whose CLI uses no CPU is.
func TestAwaitSteadyCPUIsNotAHang(t *testing.T) {
	idle := func() (int64, bool) { return 0, false }
	for _, tc := range []struct {
		perMille int64
		hung     bool
	}{{30, false}, {0, true}} {
		done := make(chan outcome, 1)
		start := time.Now()
		go func() {
			time.Sleep(2 * time.Second)
			done <- outcome{n: Native{Kind: "nil"}}
		}()
		a, ok := await(context.Background(), steadyConn{start, tc.perMille}, idle, done, start, time.Millisecond)
		if !ok || a.out.hung != tc.hung {
			t.Errorf("%d‰ of a CPU: hung %v (ok %v, %v past), want hung %v", tc.perMille, a.out.hung, ok, a.past, tc.hung)
		}
	}
}

// TestAwaitTakesAReadyOutcome: a wait whose deadline was already past
// when it began (an async step's start is when it was queued) takes the
// outcome that is there, every time (a select on the fired timer and
// done picked either).
func TestAwaitTakesAReadyOutcome(t *testing.T) {
	idle := func() (int64, bool) { return 0, false }
	for i := range 200 {
		done := make(chan outcome, 1)
		done <- outcome{n: Native{Kind: "nil"}}
		var c Conn = steadyConn{time.Now(), 0}
		if i%2 == 1 {
			c = nil // not a busyConn
		}
		a, ok := await(context.Background(), c, idle, done, time.Now().Add(-time.Second), time.Millisecond)
		if !ok || a.out.hung {
			t.Fatalf("try %d: hung %v (ok %v), want the ready outcome", i, a.out.hung, ok)
		}
	}
}

// TestProcCPU reads the CPU time and the busy time (running or waiting
// for a CPU) of a process that spins and of one that sleeps: the first
// grows by about a window's time, the second not at all; and of four
// spinners sharing one CPU (taskset): each is busy the whole window while
// it runs a quarter of it, as a CLI on a loaded CI machine is.
func TestProcCPU(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	type growth struct{ cpu, busy time.Duration }
	grow := func(cmd *exec.Cmd) growth {
		pid := cmd.Process.Pid
		c1, ok1 := procCPU(pid)
		b1, ok2 := procBusy(pid)
		time.Sleep(busyWindow)
		c2, ok3 := procCPU(pid)
		b2, ok4 := procBusy(pid)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			t.Fatalf("%v: CPU or busy time not read", cmd.Args)
		}
		return growth{c2 - c1, b2 - b1}
	}
	spin := start("sh", "-c", "while :; do :; done")
	sleep := start("sleep", "9")
	time.Sleep(100 * time.Millisecond)
	if g := grow(spin); g.cpu < busyMinCPU || g.busy < busyMinCPU {
		t.Errorf("a spinning shell used %v of CPU and was busy %v in %v, want at least %v", g.cpu, g.busy, busyWindow, busyMinCPU)
	}
	if g := grow(sleep); g.cpu != 0 || g.busy != 0 {
		t.Errorf("sleep used %v of CPU and was busy %v in %v, want 0", g.cpu, g.busy, busyWindow)
	}
	if _, ok := procCPU(1 << 30); ok {
		t.Error("a process that does not exist has a CPU time")
	}
	if _, ok := procBusy(1 << 30); ok {
		t.Error("a process that does not exist has a busy time")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	var shared []*exec.Cmd
	for range 4 {
		shared = append(shared, start("taskset", "-c", "0", "sh", "-c", "while :; do :; done"))
	}
	time.Sleep(100 * time.Millisecond)
	if g := grow(shared[0]); g.busy < 2*g.cpu || g.busy < busyWindow/2 {
		t.Errorf("one of four spinners on one CPU used %v of CPU and was busy %v in %v, want busy most of the window and over twice its CPU time", g.cpu, g.busy, busyWindow)
	}
}
