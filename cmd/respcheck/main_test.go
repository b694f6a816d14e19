package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/servers"
)

var update = flag.Bool("update", false, "rewrite testdata/help-*.txt from the current help text")

// respcheck runs the command line in-process and returns its exit status,
// stdout and stderr.
func respcheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainRun(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunBundledSuiteOnAThrowawayServer(t *testing.T) {
	servers.ForTest(t, "redis-7.0.15").Stop() // fails in CI, skips elsewhere, when the build is missing
	code, out, errs := respcheck(t, "run", "--server", "redis-7.0.15")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "redis 7.0.15 at 127.0.0.1:") || !strings.Contains(out, " 0 failed") {
		t.Errorf("summary line missing:\n%s", out)
	}
}

func TestMalformedCaseFileIsExit2WithPosition(t *testing.T) {
	bad := writeFile(t, "bad.yaml", "suite: bad\ncases:\n  - name: x\n    steps:\n      - send: [PING]\n        repyl: \"+PONG\\r\\n\"\n")
	// --addr points nowhere: reaching for the server would be exit 3.
	code, out, errs := respcheck(t, "run", "--addr", "127.0.0.1:1", bad)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errs)
	}
	if !strings.Contains(errs, "bad.yaml:6:9:") || !strings.Contains(errs, "repyl") {
		t.Errorf("stderr lacks file:line:col of the unknown field:\n%s", errs)
	}
}

func TestWrongExpectationIsExit1WithDiff(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "wrong.yaml", `suite: wrong
cases:
  - name: PING answers PONG
    steps:
      - send: [PING]
        reply: "+PING\r\n"
`)
	code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--proto", "2", f)
	if code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	for _, want := range []string{"FAIL  wrong/PING answers PONG [RESP2]", "wrong.yaml:5:9 > \"PING\"", "wrong.yaml:6:16: reply differs at byte 2", `want: "+PING\r\n"`, `got: "+PONG\r\n"`, "PONG", "0 passed, 1 failed, 0 skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestServerKilledMidRunIsExit3(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "slow.yaml", `suite: slow
cases:
  - name: blocks
    steps: [{send: [BLPOP, "{key}", "0"]}]
  - name: after
    steps: [{send: [PING]}]
`)
	go func() {
		time.Sleep(300 * time.Millisecond)
		srv.Signal(syscall.SIGKILL)
	}()
	start := time.Now()
	code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--jobs", "1", "--timeout", "2s", f)
	t.Logf("exited after %v", time.Since(start))
	if code != exitServer {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "stopped answering") {
		t.Errorf("stderr: %s", errs)
	}
}

func TestUnreachableServerIsExit3(t *testing.T) {
	code, _, errs := respcheck(t, "run", "--addr", "127.0.0.1:1", "--timeout", "1s")
	if code != exitServer || !strings.Contains(errs, "connection refused") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if code, _, _ := respcheck(t, "bench", "--addr", "127.0.0.1:1"); code != exitServer {
		t.Errorf("bench unreachable: exit %d, want %d", code, exitServer)
	}
}

func TestUsageErrorsAreExit2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--proto", "4"},
		{"run", "--format", "xml"},
		{"run", "--run", "("},
		{"run", "--nosuchflag"},
		{"nosuchcommand"},
		{"run", "--addr", "a:1", "-u", "redis://b:2"},
		{"bench", "--format", "xml"},
		{"bench", "--proto", "4"},
		{"bench", "--trials", "0"},
		{"bench", "--addr", "x:1", "-u", "redis://y"},
		{"bench", "extra"},
		{"run", "-o", "/nonexistent-dir/x.json"},
		{"run", "-o", "main_test.go/x.json"},
	} {
		code, _, errs := respcheck(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
		if !strings.HasPrefix(errs, "respcheck: ") {
			t.Errorf("%v: stderr %q lacks the respcheck: prefix", args, errs)
		}
	}
}

// mixedCases is a case file whose cases pass, fail (at byte 5 of the
// reply) and skip (on Redis), in both protocols.
const mixedCases = `suite: mixed
cases:
  - name: passes
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: fails
    steps: [{send: [ECHO, "a\x00b"], reply: "$3\r\nabc\r\n"}]
  - name: skips
    requires: {server: valkey}
    steps: [{send: [PING]}]
`

func TestReportFormats(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "mixed.yaml", mixedCases)
	dir := t.TempDir()
	for _, format := range []string{"json", "junit", "tap"} {
		out := filepath.Join(dir, "report."+format)
		code, stdout, errs := respcheck(t, "run", "--addr", srv.Addr(), "--format", format, "--out", out, f)
		if code != exitFindings {
			t.Fatalf("%s: exit %d\n%s%s", format, code, stdout, errs)
		}
		if !strings.Contains(stdout, "2 passed, 2 failed, 2 skipped") {
			t.Errorf("%s: stdout summary:\n%s", format, stdout)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		switch format {
		case "json":
			var rep struct {
				Server  struct{ Family, Version string }
				Summary struct{ Passed, Failed, Skipped, Errors int }
				Results []struct {
					Case, Status string
					Proto        int
					Steps        []struct {
						Reply string
						Value json.RawMessage
					}
				}
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatalf("json: %v\n%s", err, data)
			}
			if err := schema.Check("run", data); err != nil {
				t.Errorf("the run report does not match its schema: %v", err)
			}
			if rep.Summary.Passed != 2 || rep.Summary.Failed != 2 || rep.Summary.Skipped != 2 || len(rep.Results) != 6 {
				t.Errorf("json summary %+v, %d results", rep.Summary, len(rep.Results))
			}
			if rep.Server.Family != "redis" || rep.Server.Version != "7.0.15" {
				t.Errorf("json server %+v", rep.Server)
			}
			for _, r := range rep.Results {
				if r.Case == "fails" && (len(r.Steps) != 1 || string(r.Steps[0].Reply) != "$3\r\na\x00b\r\n" || !strings.Contains(string(r.Steps[0].Value), `"blob string"`)) {
					t.Errorf("json step of the failing case: %+v", r.Steps)
				}
			}
		case "junit":
			var suites struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Skipped  int `xml:"skipped,attr"`
			}
			if err := xml.Unmarshal(data, &suites); err != nil {
				t.Fatalf("junit: %v", err)
			}
			if suites.Tests != 6 || suites.Failures != 2 || suites.Skipped != 2 {
				t.Errorf("junit counts %+v", suites)
			}
		case "tap":
			s := string(data)
			if !strings.HasPrefix(s, "TAP version 13\n1..6\n") || strings.Count(s, "\nnot ok ") != 2 || strings.Count(s, "# SKIP") != 2 {
				t.Errorf("tap:\n%s", s)
			}
		}
	}
}

// TestHelpUpToDate keeps the help texts under a golden file; go test
// -update rewrites them.
func TestHelpUpToDate(t *testing.T) {
	for _, cmd := range []string{"", "run", "list", "record", "diff", "serve", "clients", "bench", "report"} {
		args := []string{"help"}
		name := "help-respcheck.txt"
		if cmd != "" {
			args = append(args, cmd)
			name = "help-" + cmd + ".txt"
		}
		code, out, errs := respcheck(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		golden := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil || string(want) != out {
			t.Errorf("%s is stale; run: go test ./cmd/respcheck -run TestHelpUpToDate -update\ngot:\n%s", golden, out)
		}
	}
}

// TestMiniredisTarget runs cases against the embedded miniredis, which
// needs nothing installed, and identifies it by HELLO 3 (it has no INFO
// server).
func TestMiniredisTarget(t *testing.T) {
	code, out, errs := respcheck(t, "run", "--server", "miniredis", "--run", "strings/SET then GET returns the value")
	if code != exitOK || !strings.Contains(out, "miniredis 8.4.0 at 127.0.0.1:") || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	// A file whose cases the emulator answers otherwise than Redis: each
	// difference is declared in the cases (a miniredis expectation, a
	// known difference or a gate), so the run passes with known
	// differences. The whole suite's run on miniredis is runner's
	// TestBundledSuite (it ran here too: 15 CPU-s for the same check).
	code, out, errs = respcheck(t, "run", "--server", "miniredis", "--run", "^errors/")
	if code != exitOK || !strings.Contains(out, "miniredis 8.4.0") || !regexp.MustCompile(`[1-9]\d* known differences`).MatchString(out) {
		t.Errorf("errors.yaml: exit %d\n%s%s", code, out, errs)
	}
}

// TestClientsRefusesASharedServer: client libraries send the cases'
// commands without run's guard and cleanup, so an existing server needs
// --allow-destructive.
func TestClientsRefusesASharedServer(t *testing.T) {
	code, _, errs := respcheck(t, "clients", "--addr", "127.0.0.1:1", "--clients", "go-redis")
	if code != exitUsage || !strings.Contains(errs, "--allow-destructive") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}

// TestMiniredisPanicIsADeadServer: miniredis v2.40.0 panics on "*0\r\n";
// it runs in a child process, so the panic is a dead throwaway server, not
// a crashed respcheck: the case is an error showing the panic from the
// server's log, a fresh emulator is started, and the run goes on (exit 1).
func TestMiniredisPanicIsADeadServer(t *testing.T) {
	f := writeFile(t, "z.yaml", "suite: z\ncases:\n  - name: empty array\n    steps: [{raw: \"*0\\r\\n\", any: true}]\n")
	code, out, errs := respcheck(t, "run", "--server", "miniredis", "--proto", "2", f)
	for _, want := range []string{"ERROR z/empty array [RESP2]", "panic: runtime error", "server restarted: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s%s", want, out, errs)
		}
	}
	if code != exitFindings {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFindings, out, errs)
	}
}

// TestDiffWithoutGoldensIsExit2: pointing diff at directories without
// golden files is a mistake, not "identical recordings".
func TestDiffWithoutGoldensIsExit2(t *testing.T) {
	code, _, errs := respcheck(t, "diff", t.TempDir(), t.TempDir())
	if code != exitUsage || !strings.Contains(errs, "holds no golden files") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}

// TestVarFlag sets {var:NAME} with --var (a value holding '=' and ','),
// and names an unset variable at its file:line:col.
func TestVarFlag(t *testing.T) {
	servers.ForTest(t, "redis-8.6.3").Stop()
	f := writeFile(t, "vars.yaml", "suite: vars\ncases:\n  - name: echo\n    steps:\n      - send: [ECHO, \"{var:greeting}\"]\n        value: \"a=b,c\"\n")
	code, out, errs := respcheck(t, "run", "--server", "redis-8.6.3", "--var", "greeting=a=b,c", f)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, _, errs = respcheck(t, "list", f)
	if code != exitUsage || !strings.Contains(errs, `vars.yaml:5:22: variable "greeting" is not set: give --var greeting=VALUE`) {
		t.Errorf("list without --var: exit %d\n%s", code, errs)
	}
	if code, _, errs = respcheck(t, "list", "--var", "greeting", f); code != exitUsage || !strings.Contains(errs, `bad --var "greeting": want NAME=VALUE`) {
		t.Errorf("--var without '=': exit %d\n%s", code, errs)
	}
	if code, out, errs = respcheck(t, "coverage", "--server", "redis-8.6.3", "--var", "greeting=x", f); code != exitOK || !strings.Contains(out, "by 1 cases") {
		t.Errorf("coverage --var: exit %d\n%s%s", code, out, errs)
	}
}

// TestListCountsTheFilesOfTheSelectedCases: with --tags, the summary counts
// the files the listed cases come from, not every file loaded.
func TestListCountsTheFilesOfTheSelectedCases(t *testing.T) {
	tagged := writeFile(t, "tagged.yaml", "suite: t\ncases:\n  - name: a\n    tags: [x]\n    steps:\n      - send: [PING]\n        reply: \"+PONG\\r\\n\"\n")
	plain := writeFile(t, "plain.yaml", "suite: p\ncases:\n  - name: b\n    steps:\n      - send: [PING]\n        reply: \"+PONG\\r\\n\"\n")
	code, out, errs := respcheck(t, "list", "--tags", "x", tagged, plain)
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(errs, "1 case in 1 file") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
