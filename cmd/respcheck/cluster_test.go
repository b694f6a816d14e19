package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestClusterFlags: --cluster N starts a throwaway cluster that the run
// recognises (the cluster cases pass, a redirect is reported), and bad
// combinations are usage errors.
func TestClusterFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "2"}, "bad --cluster 2: a cluster needs at least 3 primaries"},
		{[]string{"--replicas", "1"}, "--replicas needs --cluster N"},
		{[]string{"--cluster", "3", "--addr", "127.0.0.1:1"}, "--cluster N starts a throwaway cluster"},
		{[]string{"--cluster", "3", "--server", "miniredis"}, "miniredis has no cluster mode"},
	} {
		code, _, errs := respcheck(t, append([]string{"run"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s; want %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
	code, out, errs := respcheck(t, "run", "--server", "redis-8.6.3", "--cluster", "3", "--run", "cluster/", "../../cases/suite/")
	if code != exitOK || !strings.Contains(out, "redirect: cluster/a slot migrating") || !strings.Contains(out, ", 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// TestClusterNodeKilledIsExit3: a primary killed (SIGKILL) while cases
// wait on every shard ends the run with exit 3, naming the node and its
// slots and the cases that were running; the time it took is logged (the
// watchdog's silence limit is the step timeout), not asserted.
func TestClusterNodeKilledIsExit3(t *testing.T) {
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	var b strings.Builder
	b.WriteString("suite: waits\ncases:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  - name: waits %d\n    steps: [{send: [BLPOP, \"{key}\", \"0\"], timeout: 1h}]\n", i)
	}
	f := writeFile(t, "waits.yaml", b.String())
	victim := cl.Nodes[2]
	go func() {
		time.Sleep(700 * time.Millisecond)
		victim.Kill()
	}()
	start := time.Now()
	code, out, errs := respcheck(t, "run", "--addr", cl.Nodes[0].Addr(), "--jobs", "8", "--timeout", "2s", f)
	t.Logf("exited %v after the start", time.Since(start))
	if code != exitServer {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(out+errs, "the cluster node "+victim.Addr()+" (primary of slots ") || !strings.Contains(out+errs, `"waits `) {
		t.Errorf("the node or the cases are not named:\n%s%s", out, errs)
	}
}
