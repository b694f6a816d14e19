package main

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestServersFlag: --servers N starts a pool of N throwaway servers of the
// build for one run (the summary names the build once, every case passes),
// and a negative count is a usage error.
func TestServersFlag(t *testing.T) {
	if code, _, errs := respcheck(t, "run", "--servers", "-1"); code != exitUsage || !strings.Contains(errs, "bad --servers -1") {
		t.Errorf("--servers -1: exit %d, %s", code, errs)
	}
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	code, out, errs := respcheck(t, "run", "--server", "redis-7.0.15", "--servers", "3", "--run", "scripting/")
	if code != 0 || !strings.Contains(out, "redis 7.0.15 at 127.0.0.1:") || !strings.Contains(out, " 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// TestDeadThrowawayServerIsStartedAgain: a case that crashes the throwaway
// server (DEBUG SEGFAULT) is an error with the server's log, a fresh server
// takes its place, the later cases pass, and the exit status is 1 (a case
// erred), not 3.
func TestDeadThrowawayServerIsStartedAgain(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "kill.yaml", `suite: kill
cases:
  - {name: before, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - name: kills the server
    exclusive: true
    steps:
      - {send: [DEBUG, SEGFAULT], reply: "+OK\r\n"}
  - {name: after, steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]}
`)
	code, out, errs := respcheck(t, "run", "--server", "redis-7.0.15", "--servers", "1", "--proto", "2", f)
	for _, want := range []string{"ERROR kill/kills the server [RESP2]", "during this case", "crashed by signal", "server restarted: ", "2 passed, 0 failed, 0 skipped, 1 error"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != exitFindings {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFindings, out, errs)
	}
}
