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
