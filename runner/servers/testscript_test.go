package servers

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeGo is a stand-in go command for scripts/test's tests function: a
// module example.com/m of the packages named in $FAKE_PKGS (directories
// of the current one), whose test binaries list TestA and TestB and say
// what they ran; a package named broken does not build, the one named in
// $FAKE_FAIL fails its tests, the one named in $FAKE_KILL kills the
// shells that started its test binary, up to the one of PID $FAKE_SHELL;
// with $FAKE_TRACE, each test binary's run appends "+" to that file as it
// starts and "-" as it ends, $FAKE_SLEEP seconds later; the one named in
// $FAKE_GARBLE writes a stray byte to the job pool's FIFO (the shell of
// PID $FAKE_SHELL holds it), which the job's own line then follows: a line
// the pool cannot match to its job.
const fakeGo = `#!/bin/bash
case "$1 $2" in
"list -m") echo example.com/m ;;
"list ./...") for p in $FAKE_PKGS; do echo "example.com/m/$p"; done ;;
"test -c" | "test -race")
	while [ $# -gt 1 ]; do [ "$1" = -o ] && out=$2; shift; done
	if [[ $1 == */broken ]]; then echo "broken/x_test.go:1:1: syntax error"; exit 1; fi
	printf '#!/bin/bash\ncase "$1" in -test.list) printf "TestA\\nTestB\\n" ;; *) [ -z "$FAKE_TRACE" ] || { echo + >>"$FAKE_TRACE"; sleep "${FAKE_SLEEP:-0}"; echo - >>"$FAKE_TRACE"; }; [ "%s" != "./$FAKE_GARBLE" ] || for f in /proc/$FAKE_SHELL/fd/*; do [[ $(readlink $f) != */events ]] || printf 9 >$f; done; [ "%s" != "./$FAKE_KILL" ] || { g=$(ps -o ppid= -p $PPID | tr -d " "); [ "$g" = "$FAKE_SHELL" ] || kill -9 $g; kill -9 $PPID; }; echo "ran: %s $*"; [ "%s" != "./$FAKE_FAIL" ] ;; esac\n' "$1" "$1" "$1" "$1" >"$out"
	chmod +x "$out" ;;
*) echo "ran: go $*"
	# a fuzz target of the package named in $FAKE_FUZZ_FAIL finds a
	# failing input; with $FAKE_FUZZ_DEADLINE, Go's deadline race (no input
	# at fault) as well
	if [[ " $* " == *" -fuzz "* && -n "${FAKE_FUZZ_FAIL:-}" && " $* " == *" ./$FAKE_FUZZ_FAIL/ "* ]]; then
		echo "fuzz: elapsed: 2s, context deadline exceeded"
		[ -n "${FAKE_FUZZ_DEADLINE:-}" ] || echo "Failing input written to testdata/fuzz/FuzzA/0"
		exit 1
	fi ;;
esac
`

// testsHarness runs scripts/test's functions (phase and its helpers, the
// tests and fuzz phases) with fakeGo first in PATH, in a directory
// holding the packages pkgs, with the shell lines body; it returns the
// output.
func testsHarness(t *testing.T, pkgs []string, body string) string {
	t.Helper()
	script, err := filepath.Abs("../../scripts/test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range append([]string{"bin"}, pkgs...) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	// The script's functions: the phases' (SCALE= to the cache check:
	// phase, its watchdog, the process helpers) and the tests phase's.
	harness := "set -euo pipefail\n" + `eval "$(sed -n '/^SCALE=/,/^# Go.s build cache cold/p' "$1")"` + "\n" +
		`eval "$(sed -n '/^RACE_PKGS=/,/^if wanted tests/p' "$1" | sed '$d')"` + "\n" + body
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", harness, "harness", script)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a child left behind holds the output
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "FAKE_PKGS="+strings.Join(pkgs, " "))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	return string(out)
}

// TestScriptsTestFailsWhenAPackageCannotList: scripts/test's tests phase
// fails when a package's test binary does not build, saying so, and still
// runs the other packages' tests; before, the package's tests were left
// out of the plan in silence and the phase passed.
func TestScriptsTestFailsWhenAPackageCannotList(t *testing.T) {
	s := testsHarness(t, []string{"resp", "cases", "broken"}, `rc=0
RESPCHECK_SHARDS=2 tests || rc=$?
echo "tests rc=$rc"
`)
	if !strings.Contains(s, "tests rc=1") || !strings.Contains(s, "go test -c ./broken failed") {
		t.Errorf("a package whose tests cannot be built did not fail the phase:\n%s", s)
	}
	// cases' tests, in one job (neither is heavy); resp's in the race run.
	for _, pkg := range []string{"cases", "resp"} {
		if !regexp.MustCompile(`ran: \./` + pkg + ` -test\.count=1 -test\.timeout=\d+m -test\.run \^\(TestA\|TestB\)\$`).MatchString(s) {
			t.Errorf("the tests of %s did not run:\n%s", pkg, s)
		}
	}
}

// TestScriptsTestFailsWhenAJobFails: a job whose tests fail fails the
// tests phase, the race run's and the others', and every other job still
// runs.
func TestScriptsTestFailsWhenAJobFails(t *testing.T) {
	// cases runs without -race, resp in the race run (RACE_PKGS).
	for _, c := range [][2]string{{"cases", "resp"}, {"resp", "cases"}} {
		failing, other := c[0], c[1]
		s := testsHarness(t, []string{"cases", "resp"}, `rc=0
FAKE_FAIL=`+failing+` RESPCHECK_SHARDS=2 tests || rc=$?
echo "tests rc=$rc"
`)
		if !strings.Contains(s, "tests rc=1") || !strings.Contains(s, "FAIL\t./"+failing) {
			t.Errorf("%s failing did not fail the phase:\n%s", failing, s)
		}
		if !strings.Contains(s, "ok\t./"+other) {
			t.Errorf("%s failing: %s did not run:\n%s", failing, other, s)
		}
	}
}

// TestScriptsTestRunsFuzzTargetsLast: with the fuzz phase inside the
// tests phase (tests fuzz), every fuzz target runs once, after the tests;
// a target that finds a failing input fails the phase while the other
// jobs still run; Go's fuzztime deadline race with no input at fault
// (go.dev/issue/75804) passes with a note. The fuzz phase alone does the
// same.
func TestScriptsTestRunsFuzzTargetsLast(t *testing.T) {
	const setup = `mkdir -p cases resp
printf 'package cases\nfunc FuzzA(f *testing.F) {}\n' >cases/a_test.go
printf 'package resp\nfunc FuzzB(f *testing.F) {}\n' >resp/b_test.go
rc=0
`
	fuzzA, fuzzB := "ran: go test -run ^$ -fuzz ^FuzzA$ -fuzztime 2s", "ran: go test -run ^$ -fuzz ^FuzzB$ -fuzztime 4s"
	for _, phase := range []string{"RESPCHECK_SHARDS=2 tests fuzz", "fuzz"} {
		s := testsHarness(t, []string{"cases", "resp"}, setup+phase+` || rc=$?
echo "phase rc=$rc"
`)
		if !strings.Contains(s, "phase rc=0") || strings.Count(s, fuzzA) != 1 || strings.Count(s, fuzzB) != 1 {
			t.Errorf("%s: want rc 0, each fuzz target run once:\n%s", phase, s)
		}
		if plain := strings.Index(s, "ok\t./cases (plain)"); phase != "fuzz" && (plain < 0 || strings.Index(s, fuzzA) < plain) {
			t.Errorf("%s: the fuzz targets did not run after the tests:\n%s", phase, s)
		}
		if phase != "fuzz" {
			checkJobTable(t, s)
		}
		s = testsHarness(t, []string{"cases", "resp"}, "export FAKE_FUZZ_FAIL=cases\n"+setup+phase+` || rc=$?
echo "phase rc=$rc"
`)
		if !strings.Contains(s, "phase rc=1") || !strings.Contains(s, "FAIL: ./cases/ FuzzA") || strings.Count(s, fuzzB) != 1 {
			t.Errorf("%s: a fuzz target that found a failing input did not fail the phase, or stopped the others:\n%s", phase, s)
		}
		s = testsHarness(t, []string{"cases", "resp"}, "export FAKE_FUZZ_FAIL=cases FAKE_FUZZ_DEADLINE=1\n"+setup+phase+` || rc=$?
echo "phase rc=$rc"
`)
		if !strings.Contains(s, "phase rc=0") || !strings.Contains(s, "note: FuzzA hit Go's fuzztime deadline race") {
			t.Errorf("%s: Go's deadline race with no input at fault failed the phase:\n%s", phase, s)
		}
	}
}

// TestScriptsTestJobKilled: a job whose shell is killed (it cannot say
// it ended) fails the phase instead of leaving it waiting; the others run.
func TestScriptsTestJobKilled(t *testing.T) {
	s := testsHarness(t, []string{"cases", "resp"}, `rc=0
FAKE_KILL=cases FAKE_SHELL=$$ POOL_POLL=1 RESPCHECK_SHARDS=2 tests || rc=$?
echo "tests rc=$rc"
`)
	if !strings.Contains(s, "tests rc=1") || !strings.Contains(s, "ok\t./resp (race)") || !strings.Contains(s, "a job ended without saying so (status 137), failed: plain 2 ./cases") {
		t.Errorf("a killed job did not fail the phase, or stopped the others:\n%s", s)
	}
}

// TestScriptsTestLostWakeUp: a job's line on the pool's FIFO that the pool
// cannot match to its job (garbled here; on a machine whose PIDs wrapped,
// one the pool took for another job's) does not keep the
// phase waiting: the pool reads each job's status from its file at every
// poll. Before, the pool waited for the line of a job that had ended, and
// a CI hung (2026-12-07).
func TestScriptsTestLostWakeUp(t *testing.T) {
	s := testsHarness(t, []string{"cases", "resp"}, `rc=0
FAKE_GARBLE=cases FAKE_SHELL=$$ POOL_POLL=1 RESPCHECK_SHARDS=1 tests || rc=$?
echo "tests rc=$rc"
`)
	if !strings.Contains(s, "tests rc=0") || !strings.Contains(s, "ok\t./cases (plain)") || !strings.Contains(s, "ok\t./resp (race)") {
		t.Errorf("the phase did not end well after a lost line:\n%s", s)
	}
}

// TestScriptsTestPhaseDeadline: a phase still running at its deadline
// (its budget, 1 s, and the grace, 1 s) is stopped with the processes it
// started, and the script ends there, failed, naming it.
func TestScriptsTestPhaseDeadline(t *testing.T) {
	script, err := filepath.Abs("../../scripts/test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	harness := "set -euo pipefail\n" + `eval "$(sed -n '/^SCALE=/,/^# Go.s build cache cold/p' "$1")"` + `
phase first 10 true
RESPCHECK_PHASE_GRACE=1 phase hangs 1 bash -c 'sleep 100 & echo $! >child; wait'
echo "the script went on"
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", harness, "harness", script)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a child left behind holds the output
	out, err := cmd.CombinedOutput()
	s := string(out)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(s, "test: hangs passed its deadline of 2s: stopped") ||
		!strings.Contains(s, "test: FAILED: hangs\n") || !regexp.MustCompile(`hangs +\d+s of +1s STOPPED`).MatchString(s) ||
		strings.Contains(s, "the script went on") {
		t.Errorf("a phase past its deadline did not end the script, failed and named (%v):\n%s", err, s)
	}
	child, err := os.ReadFile(filepath.Join(dir, "child"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(child)))
	if err != nil || pid == 0 {
		t.Fatalf("the phase's child is not known: %q, %v", child, err)
	}
	// Gone, or a zombie its new parent has not reaped yet.
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
		t.Errorf("the phase's child (%d) was not stopped: %s", pid, stat)
	}
}

// TestScriptsTestPhaseOfJobs: the tests phase, its jobs pool inside a
// phase with its watchdog, ends when its jobs have (the pool waited for
// every child of the script, the watchdog too, until its deadline).
func TestScriptsTestPhaseOfJobs(t *testing.T) {
	start := time.Now()
	s := testsHarness(t, []string{"cases", "resp"}, `rc=0
phase tests 60 tests || rc=$?
echo "phase rc=$rc"
`)
	if !strings.Contains(s, "phase rc=0") || !strings.Contains(s, "ok\t./resp (race)") || !regexp.MustCompile(`<== \S+ tests: \d+s`).MatchString(s) {
		t.Errorf("the tests phase did not end well:\n%s", s)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the tests phase took %v: it waited for more than its jobs", took)
	}
	// A pool with no job at all (the fuzz phase of a module without fuzz
	// targets) ends at once too.
	start = time.Now()
	s = testsHarness(t, nil, `rc=0
phase fuzz 60 fuzz || rc=$?
echo "phase rc=$rc"
`)
	if !strings.Contains(s, "phase rc=0") || time.Since(start) > 20*time.Second {
		t.Errorf("an empty fuzz phase did not end at once (%v):\n%s", time.Since(start), s)
	}
}

// TestScriptsTestExtraJobsWhileIdle: with one slot (RESPCHECK_SHARDS=1),
// jobs of 2 s run side by side (one more a poll after the first, and
// after three polls another) while the machine's CPU counters (a fake
// /proc/stat) say it idles, and one at a time while they say it is busy.
func TestScriptsTestExtraJobsWhileIdle(t *testing.T) {
	for _, c := range []struct {
		stat string // the CPU counters: idle ($i, the 4th) or user time grows
		most int    // the most jobs at once
	}{{"1 0 1 $i 0 0 0 0 0 0", 2}, {"$i 0 1 100 0 0 0 0 0 0", 1}} {
		s := testsHarness(t, []string{"p1", "p2", "p3"}, `rc=0
export FAKE_TRACE=$PWD/trace FAKE_SLEEP=2 PROC_STAT=$PWD/stat
i=0
# not a child of this shell's (the pool waits for all of them)
(while :; do i=$((i + 10)); echo "cpu  `+c.stat+`" >stat.new; mv stat.new stat; sleep 0.2; done >/dev/null 2>&1 & echo $! >loop)
# this test's settings, not the caller's
POOL_POLL=1 RESPCHECK_SHARDS=1 RESPCHECK_EXTRA_JOBS=2 RESPCHECK_IDLE_PCT=40 tests || rc=$?
kill "$(cat loop)"
echo "tests rc=$rc"
echo "trace: $(tr -d '\n' <trace)"
`)
		m := regexp.MustCompile(`trace: ([+-]+)`).FindStringSubmatch(s)
		if !strings.Contains(s, "tests rc=0") || m == nil {
			t.Fatalf("counters %q: the phase failed or traced nothing:\n%s", c.stat, s)
		}
		most, now := 0, 0
		for _, r := range m[1] {
			if r == '+' {
				now++
			} else {
				now--
			}
			most = max(most, now)
		}
		if most != c.most {
			t.Errorf("counters %q: %d jobs at most at once (trace %s), want %d:\n%s", c.stat, most, m[1], c.most, s)
		}
	}
}

// TestScriptsTestRefusesZeroShards: RESPCHECK_SHARDS=0 (or a word) fails
// the tests phase; it started no shard, so every test outside the race run
// was left out and the phase passed.
func TestScriptsTestRefusesZeroShards(t *testing.T) {
	s := testsHarness(t, []string{"cases"}, `for n in 0 abc; do
	rc=0
	RESPCHECK_SHARDS=$n tests >/dev/null 2>&1 || rc=$?
	echo "shards=$n rc=$rc"
done
`)
	if strings.Contains(s, "rc=0") {
		t.Errorf("RESPCHECK_SHARDS without a shard passed the phase:\n%s", s)
	}
}

// TestScriptsTestRefusesAnUnknownPhase: scripts/test --phase test (for
// tests) is a usage error; it ran no phase and passed.
func TestScriptsTestRefusesAnUnknownPhase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../scripts/test", "--no-setup", "--phase", "test")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "unknown phase 'test'") {
		t.Errorf("--phase test: %v, want exit 2 naming the phase\n%s", err, out)
	}
}

// TestScriptsHelp: every script's --help exits 0 and prints comment text
// only: scripts/test and install-schemas.sh printed "set -euo pipefail"
// (and a cd) after it, their line ranges being off.
func TestScriptsHelp(t *testing.T) {
	for _, s := range []string{"install-servers.sh", "install-clients.sh", "install-schemas.sh", "setup", "test", "run-suite", "record-goldens"} {
		path := filepath.Join("../../scripts", s)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, "bash", path, "--help").CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s --help: %v\n%s", s, err, out)
			continue
		}
		src := readFile(t, path)
		comments := map[string]bool{}
		for _, l := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(l, "#") {
				comments[strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")] = true
			}
		}
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if !comments[l] && strings.TrimSpace(l) != "" && !strings.Contains(l, "respcheck run --help") {
				t.Errorf("%s --help prints %q, which is no comment of the script", s, l)
			}
		}
	}
}

// jobLine is a line of scripts/test's job table: kind, wall and CPU
// seconds, @start-end seconds into the tests phase, the package.
var jobLine = regexp.MustCompile(`(?m)^(race|plain|fuzz) (\d+) \d+ @(\d+)-(\d+) \./`)

// checkJobTable checks the job table at the end of a tests phase's output
// s: a line for every job (the fake packages' race, plain and fuzz jobs),
// each saying when it ran, its end minus its start its wall time.
func checkJobTable(t *testing.T, s string) {
	t.Helper()
	_, table, ok := strings.Cut(s, "each job's wall and CPU seconds")
	kinds := map[string]int{}
	for _, m := range jobLine.FindAllStringSubmatch(table, -1) {
		kinds[m[1]]++
		wall, _ := strconv.Atoi(m[2])
		start, _ := strconv.Atoi(m[3])
		end, _ := strconv.Atoi(m[4])
		if end < start || end-start != wall {
			t.Errorf("job line %q: @%d-%d is not its wall time of %d s", m[0], start, end, wall)
		}
	}
	if !ok || kinds["race"] == 0 || kinds["plain"] == 0 || kinds["fuzz"] == 0 {
		t.Errorf("the job table does not list every kind of job with its times (%v):\n%s", kinds, s)
	}
}
