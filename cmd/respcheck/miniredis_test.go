package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/report"
)

// TestClientsMiniredis runs clients against the embedded miniredis, which
// has no INFO server: it is identified by HELLO 3, as for run.
func TestClientsMiniredis(t *testing.T) {
	f := writeFile(t, "echo.yaml", `suite: mini
cases:
  - name: ECHO through a library
    steps:
      - send: [ECHO, hello]
        reply: "$5\r\nhello\r\n"
`)
	code, out, errs := respcheck(t, "clients", "--server", "miniredis", "--clients", "go-redis,rueidis", f)
	if code != exitOK || !strings.Contains(out, "server: miniredis 8.4.0 at 127.0.0.1:") || !strings.Contains(out, "4 results: 4 match") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestBenchRefusesMiniredis: bench cannot identify miniredis (no INFO
// server) and would time respcheck's own process: a usage error up front.
func TestBenchRefusesMiniredis(t *testing.T) {
	code, out, errs := respcheck(t, "bench", "--server", "miniredis", "--quick")
	if code != exitUsage || out != "" || !strings.Contains(errs, "bench does not run against --server miniredis") ||
		!strings.Contains(errs, "no INFO server") {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errs)
	}
}

// TestClientsSkipAKnownCrash runs the bundled stream cases through a
// library against miniredis, which one of them (XTRIM MAXLEN -1) is known
// to crash: through the library that case is a skip naming the known
// crash and the run ends normally, where it used to kill the emulator and
// end as a lost server (exit 3). The cases' own check runs it on a server
// of its own, as run does: a known difference in both protocols, the
// emulator started again after each crash.
func TestClientsSkipAKnownCrash(t *testing.T) {
	code, out, errs := respcheck(t, "clients", "--server", "miniredis", "--clients", "go-redis", "--format", "json", "--run", "stream/", "../../cases/suite/stream.yaml")
	var rep report.ClientsJSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\nstdout:\n%.3000s\nstderr:\n%s", code, err, out, errs)
	}
	var libs []string
	for _, r := range rep.Results {
		libs = append(libs, r.Reason)
	}
	known := 0
	if rep.Cases != nil {
		for _, r := range rep.Cases.Results {
			if r.Case == "XTRIM refuses a negative MAXLEN" && r.Status == runner.KnownDiff {
				known++
			}
		}
	}
	// (The check's known crashes say the server stopped answering; the
	// run's own server must not have.)
	if code == exitServer || rep.Cases == nil || strings.Contains(errs, "stopped answering") || strings.Count(strings.Join(libs, "\n"), "known to crash miniredis") != 2 ||
		known != 2 || len(rep.Cases.Restarts) != 2 || rep.Cases.Summary.Failed+rep.Cases.Summary.Errors != 0 {
		t.Errorf("exit %d, %d known crashes in the check\nstdout:\n%.3000s\nstderr:\n%s", code, known, out, errs)
	}
}

// TestExtraAfterThatNeverFires: --extra-after naming a command no step
// sends injects nothing, and says so (it used to be silent, reading as a
// library that survived the fault).
func TestExtraAfterThatNeverFires(t *testing.T) {
	f := writeFile(t, "echo.yaml", "suite: x\ncases:\n  - name: ECHO\n    steps: [{send: [ECHO, hi], reply: \"$2\\r\\nhi\\r\\n\"}]\n")
	for _, tc := range []struct {
		cmd  string
		note bool
	}{{"GET", true}, {"ECHO", false}} {
		code, out, errs := respcheck(t, "clients", "--server", "miniredis", "--clients", "go-redis", "--extra-after", tc.cmd, f)
		if strings.Contains(errs, "injected nothing") != tc.note || code == exitServer {
			t.Errorf("--extra-after %s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.cmd, code, out, errs)
		}
	}
}

// TestMiniredisMovesLiteralKeys: miniredis v2.40.0 answers COMMAND INFO
// SET with its whole command table; the key range is read from the
// table's SET entry, so SET foo is moved into the case's namespace as the
// KEYS pattern is (before, foo was sent as written and KEYS found
// nothing).
func TestMiniredisMovesLiteralKeys(t *testing.T) {
	f := writeFile(t, "lit.yaml", `suite: lit
cases:
  - name: literal
    steps:
      - {send: [SET, foo, v], reply: "+OK\r\n"}
      - {send: [MSET, a, "1", b, "2"], reply: "+OK\r\n"}
      - {send: [KEYS, "*"], value: {array_unordered: [foo, a, b]}}
`)
	code, out, errs := respcheck(t, "run", "--server", "miniredis", f)
	if code != exitOK || !strings.Contains(out, "2 passed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestKnownCrashIsOneLine: miniredis's panic on XTRIM key MAXLEN -1 is a
// crash the bundled suite declares (known: crash), in both protocols: the
// run says so in one line, with the panic's message, and prints no log
// (before: two Go panic stack traces under "server restarted").
func TestKnownCrashIsOneLine(t *testing.T) {
	code, out, errs := respcheck(t, "run", "--server", "miniredis", "--run", "stream/XTRIM refuses a negative MAXLEN")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "server restarted 2 times after known crashes: \"XTRIM refuses a negative MAXLEN\" (RESP2): the server at ") ||
		!strings.Contains(lines[0], "died (panic: runtime error: slice bounds out of range") || !strings.Contains(lines[1], "2 known differences") {
		t.Errorf("want the restarts in one line, then the summary:\n%s%s", out, errs)
	}
}
