package main

import (
	"strings"
	"testing"
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
