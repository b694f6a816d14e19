package main

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// knownCrashFile is a case that really crashes valkey-8.0.1, declared as
// a known crash, and a case after it.
const knownCrashFile = "../../testdata/servers/repro/known-crash.yaml"

// TestKnownCrashRun: "respcheck run --server valkey-8.0.1" runs the case
// that crashes the throwaway server, restarts it (the report lists the
// restart) and exits 0 with the case known; against --addr the case is
// skipped with its reason and the server stays up.
func TestKnownCrashRun(t *testing.T) {
	if _, err := servers.Find("valkey-8.0.1"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := knownCrashFile
	code, out, errs := respcheck(t, "run", "--server", "valkey-8.0.1", "--servers", "1", "--proto", "2", "-v", f)
	for _, want := range []string{"known known-crash/EVAL unpack of a huge range is an error [RESP2] (known difference: Valkey 8.0.1 and 8.1.1 segfault in Lua's unpack (known crash: ",
		"crashed by signal", "server restarted: ", "1 passed, 0 failed, 0 skipped, 1 known difference"} {
		if !strings.Contains(out, want) {
			t.Errorf("throwaway: output lacks %q", want)
		}
	}
	if code != exitOK {
		t.Errorf("throwaway: exit %d, want 0\n%s%s", code, out, errs)
	}
	srv := servers.ForTest(t, "valkey-8.0.1")
	code, out, errs = respcheck(t, "run", "--addr", srv.Addr(), "--proto", "2", "-v", f)
	if code != exitOK || !strings.Contains(out, "known to crash valkey 8.0.1, and this run cannot start the server again") ||
		!strings.Contains(out, "1 passed, 0 failed, 1 skipped") || srv.Exited() {
		t.Errorf("--addr: exit %d, server exited %v\n%s%s", code, srv.Exited(), out, errs)
	}
}

// TestServerRepros runs the scripts of testdata/servers/repro on the
// pinned builds: valkey-lua-unpack-crash.sh (the known crash above,
// without respcheck): Valkey 8.0.1 and 8.1.1 crash, the others answer
// with the error; script-time-frozen.sh: TIME inside a script is frozen on Redis
// 8.6.3 and Valkey 9.1.2, not on Redis 7.0.15 (the clock of respcheck
// bench's script tables); script-shutdown-nosave.sh: a script that wrote
// is UNKILLABLE, and after SHUTDOWN NOSAVE and a restart from the AOF
// neither of its writes is there (the note of bench's script-kill);
// redis-hsetex-crash.sh and redis-set-ifdeq-get-two-replies.sh: the
// faults of Redis 8.6.3 that respcheck explore found (an assertion on
// HSETEX, two replies to SET ... IFDEQ ... GET).
func TestServerRepros(t *testing.T) {
	const unpack, frozen, nosave = "valkey-lua-unpack-crash.sh", "script-time-frozen.sh", "script-shutdown-nosave.sh"
	const hsetex, ifdeq = "redis-hsetex-crash.sh", "redis-set-ifdeq-get-two-replies.sh"
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, tc := range []struct{ script, build, want string }{
		{unpack, "valkey-8.0.1", "CRASHED\n"},
		{unpack, "valkey-8.1.1", "CRASHED\n"},
		{unpack, "redis-8.0.6", "ANSWERED: ERR user_script:1: too many results to unpack"},
		{unpack, "redis-7.0.15", "ANSWERED: ERR user_script:1: too many results to unpack"},
		{unpack, "redis-8.6.3", "ANSWERED: ERR user_script:1: too many results to unpack"},
		{unpack, "valkey-9.1.2", "ANSWERED: ERR user_script:1: too many results to unpack"},
		{frozen, "redis-7.0.15", "ADVANCES: "},
		{frozen, "redis-8.6.3", "FROZEN: "},
		{frozen, "valkey-9.1.2", "FROZEN: "},
		{nosave, "redis-7.0.15", "UNKILLABLE\nAFTER RESTART: control=1 script=0\n"},
		{nosave, "redis-8.6.3", "UNKILLABLE\nAFTER RESTART: control=1 script=0\n"},
		{nosave, "valkey-9.1.2", "UNKILLABLE\nAFTER RESTART: control=1 script=0\n"},
		// respcheck explore's faults of Redis 8.6.3 (runner/explore).
		{hsetex, "redis-8.6.3", "CRASHED\nt_hash.c:3463 'dictExpireMeta->expireMeta.trash == 0' is not true\n"},
		{hsetex, "valkey-9.1.2", "ANSWERED: 1\n"},
		{ifdeq, "redis-8.6.3", "OK\nv\nERR must be exactly 16 hexadecimal characters\nDESYNC\n"},
	} {
		b, err := servers.Find(tc.build)
		if err != nil {
			if servers.InCI() {
				t.Fatal(err)
			}
			t.Log(err)
			continue
		}
		// Four scripts at a time: they mostly wait on their server (its
		// start, its crash, its restart), 57 s one after the other here.
		// A port free now (the script's random one may be taken).
		port := freePort(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			// stdout only: bash reports the dead server on stderr.
			// A deadline: the scripts' CLI calls have one each (timeout
			// 20), and a server frozen in its crash handler once left the
			// CLI, and the package, waiting for go test's 60 minutes.
			ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "../../testdata/servers/repro/"+tc.script, b.Bin, port)
			cmd.WaitDelay = time.Second
			out, err := cmd.Output()
			if err != nil || !strings.HasPrefix(string(out), tc.want) {
				t.Errorf("%s on %s: %v\n%s", tc.script, tc.build, err, out)
			}
		}()
	}
	wg.Wait()
}

// TestFrozenKnownCrashIsKilled: a known crash whose server freezes
// instead of exiting (as valkey-8.1.1 once did, deadlocked in its own
// crash handler; here the test SIGSTOPs the throwaway server while the
// case runs) ends as the watchdog ends a frozen server: its verdict
// after the step deadline, then SIGKILL of the throwaway server, a fresh
// one, the case known and the run going on, exit 0 (before: exit 3, "its
// process is still running, but does not answer").
func TestFrozenKnownCrashIsKilled(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "freeze.yaml", `suite: freeze
cases:
  - name: first
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: freezes the server
    known: [{server: redis, crash: true, reason: "the test freezes the server"}]
    steps: [{send: [BLPOP, "{key}", "0"], reply: "*-1\r\n"}]
  - name: after
    steps: [{send: [PING], reply: "+PONG\r\n"}]
`)
	cmd, stdout, stderr := startRespcheck(t, "run", "--server", "redis-7.0.15", "--servers", "1", "--jobs", "1", "--proto", "2", "--timeout", "2s", "-v", f)
	waitFor(t, "the first case's result", func() bool { return strings.Contains(stdout.String(), "freeze/first [RESP2]") })
	kids := children(cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("children %v, want the one server", kids)
	}
	syscall.Kill(kids[0], syscall.SIGSTOP)
	t.Cleanup(func() { syscall.Kill(kids[0], syscall.SIGKILL) })
	if code := exitCode(t, cmd, time.Now()); code != exitOK {
		t.Errorf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{`known freeze/freezes the server [RESP2] (known difference: the test freezes the server (known crash: the server at `,
		`server restarted: the known crash of "freezes the server" (RESP2): the server at `, "2 passed, 0 failed, 0 skipped, 1 known difference"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q\n%s%s", want, stdout, stderr)
		}
	}
}

// TestUndeclaredCrashAfterABatch: Redis 8.6.3's HSETEX assertion (an
// undeclared crash) in a plain case that took the connection of three
// passing cases: the two on data alone run again alone on the server
// started in its place and pass, the PUBLISH (not run again: beyond its
// keys) stands as it ran, no stray having been seen; the crashing case is
// an error and is not run again (it would crash the fresh server too), and
// the server is started again once, as when each case had a connection of
// its own.
func TestUndeclaredCrashAfterABatch(t *testing.T) {
	big := strings.Repeat("y", 300)
	f := writeFile(t, "crash.yaml", `suite: crash
cases:
  - name: pub
    steps: [{send: [PUBLISH, "{key}", hi], reply: ":0\r\n"}]
  - name: a1
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
  - name: a2
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
  - name: crash
    steps: [{send: [HSETEX, "{key}", PXAT, "4102444800000", FIELDS, "2", f1, x, f1, "`+big+`"], reply: ":1\r\n"}]
  - name: a3
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
`)
	code, stdout, stderr := respcheck(t, "run", "--server", "redis-8.6.3", "--servers", "1", "--jobs", "1", "--proto", "2", f)
	if code != exitFindings || !strings.Contains(stdout, "4 passed, 0 failed, 0 skipped, 1 error") || strings.Count(stdout, "server restarted") != 1 {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
}
