package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// lockedBuffer is a bytes.Buffer that a process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRespcheck starts the test binary as respcheck (TestMain) with args,
// in a process group of its own, under a 50 s deadline.
func startRespcheck(t *testing.T, args ...string) (*exec.Cmd, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errs lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errs
}

// waitFor polls cond every 10 ms for at most 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for wait := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatalf("20 s without %s", what)
		}
	}
}

// exitCode waits for cmd and returns its exit status (-1: none).
func exitCode(t *testing.T, cmd *exec.Cmd, sent time.Time) int {
	t.Helper()
	err := cmd.Wait()
	t.Logf("exited %v after the signal", time.Since(sent))
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", err)
	return -1
}

const blockingCases = `suite: block
cases:
  - name: first
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: blocks
    steps:
      - send: [BLPOP, "{key}", "0"]
        timeout: 60s
  - name: after
    steps: [{send: [PING], reply: "+PONG\r\n"}]
`

// TestSIGTERMWritesTheReport: SIGTERM to "respcheck run -o report.json"
// while a case blocks on the server ends the process with 143, and the
// report file holds the results so far: the case that passed, then the
// case in flight and the one after it not run (a skip with not_run and
// the reason "not run: interrupted (SIGTERM)"; the case in flight was an
// error "context canceled", and the exit 130).
func TestSIGTERMWritesTheReport(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "block.yaml", blockingCases)
	out := filepath.Join(t.TempDir(), "report.json")
	cmd, stdout, stderr := startRespcheck(t, "run", "--addr", srv.Addr(), "--proto", "2", "--jobs", "1", "-o", out, f)
	c := dialRawTCP(t, srv.Addr())
	waitFor(t, "the case blocking", func() bool { return c.blocked(t) > 0 })
	sent := time.Now()
	syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	if code := exitCode(t, cmd, sent); code != 143 {
		t.Errorf("exit %d, want 143\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report: %v\n%s%s", err, stdout, stderr)
	}
	var rep struct {
		Summary struct {
			NotRun int `json:"not_run"`
		}
		Results []struct {
			Case, Status, Reason string
			NotRun               bool `json:"not_run"`
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"first": "pass", "blocks": "skip", "after": "skip"}
	for _, r := range rep.Results {
		if r.Status != want[r.Case] || r.Status == "skip" && (!r.NotRun || r.Reason != "not run: interrupted (SIGTERM)") {
			t.Errorf("%s: %s, not_run %v, %q", r.Case, r.Status, r.NotRun, r.Reason)
		}
	}
	if len(rep.Results) != 3 || rep.Summary.NotRun != 2 {
		t.Errorf("%d results, %d not run; want 3, 2\n%s", len(rep.Results), rep.Summary.NotRun, data)
	}
	if !strings.Contains(stdout.String(), "2 results not run: interrupted (SIGTERM)") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if n := c.dbsize(t); n != 0 {
		t.Errorf("%d keys left", n)
	}
}

// TestSIGINTOnAThrowawayServer: SIGINT to "respcheck run --server
// redis-7.0.15 -o report.tap" mid-run is exit 130 with the TAP report
// written, its interrupted results "# SKIP not run: interrupted (SIGINT)".
func TestSIGINTOnAThrowawayServer(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "block.yaml", blockingCases)
	out := filepath.Join(t.TempDir(), "report.tap")
	cmd, stdout, stderr := startRespcheck(t, "run", "--server", "redis-7.0.15", "--servers", "1", "--jobs", "1", "--proto", "2", "-v", "-o", out, f)
	waitFor(t, "the first case's result", func() bool { return strings.Contains(stdout.String(), "block/first [RESP2]") })
	sent := time.Now()
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	if code := exitCode(t, cmd, sent); code != 130 {
		t.Errorf("exit %d, want 130\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report: %v\n%s%s", err, stdout, stderr)
	}
	for _, want := range []string{"ok 1 - block/first [RESP2]\n", "ok 2 - block/blocks [RESP2] # SKIP not run: interrupted (SIGINT)\n",
		"ok 3 - block/after [RESP2] # SKIP not run: interrupted (SIGINT)\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the TAP report lacks %q:\n%s", want, data)
		}
	}
}

// TestClientsSIGTERMWritesTheReport: SIGTERM to "respcheck clients -o
// report.json" once its first child process (the Go adapter, or the
// emulator) is up is exit 143 with the report written, every result not
// run (before, a Ctrl-C while the adapters started wrote no report).
func TestClientsSIGTERMWritesTheReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	cmd, stdout, stderr := startRespcheck(t, "clients", "--server", "miniredis", "--clients", "go-redis", "-o", out, "../../testdata/clients/nil-kinds.yaml")
	pid := cmd.Process.Pid
	waitFor(t, "a child process", func() bool { return len(children(pid)) > 0 })
	sent := time.Now()
	syscall.Kill(pid, syscall.SIGTERM)
	if code := exitCode(t, cmd, sent); code != 143 {
		t.Errorf("exit %d, want 143\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report: %v\n%s%s", err, stdout, stderr)
	}
	var rep struct {
		Results []struct {
			Verdict, Reason string
			NotRun          bool `json:"not_run"`
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	notRun := 0
	for _, r := range rep.Results {
		if r.NotRun && r.Verdict == "skip" && r.Reason == "not run: interrupted (SIGTERM)" {
			notRun++
		}
	}
	if notRun == 0 {
		t.Errorf("no result not run, of %d:\n%s\n%s%s", len(rep.Results), data, stdout, stderr)
	}
}
