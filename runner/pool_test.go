package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestPoolSpreadsExclusiveCases: two exclusive cases in a row run on the two
// servers of a pool, one each (each server counts one LASTSAVE), and the
// report names the one build.
func TestPoolSpreadsExclusiveCases(t *testing.T) {
	a, b := servers.ForTest(t, "redis-7.0.15"), servers.ForTest(t, "redis-7.0.15")
	src := `suite: pool
cases:
  - name: first
    exclusive: true
    steps:
      - {send: [DEBUG, SLEEP, "0.2"], reply: "+OK\r\n"}
      - {send: [LASTSAVE], any: true}
  - name: second
    exclusive: true
    steps:
      - {send: [DEBUG, SLEEP, "0.2"], reply: "+OK\r\n"}
      - {send: [LASTSAVE], any: true}
  - name: beside
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
`
	rep := run(t, a.Addr(), load(t, src), runner.Options{Protos: []int{2}, Pool: []string{b.Addr()}})
	if rep.Failed() || rep.Summary.Passed != 3 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if rep.Server.Version != "7.0.15" {
		t.Errorf("report names %s %s", rep.Server.Family, rep.Server.Version)
	}
	for _, s := range []*servers.Server{a, b} {
		if calls := lastsaveCalls(t, s.Addr()); calls != "calls=1" {
			t.Errorf("server %s: cmdstat_lastsave %q, want one exclusive case on each server", s.Addr(), calls)
		}
	}
}

// lastsaveCalls returns the "calls=N" field of INFO commandstats' cmdstat_lastsave.
func lastsaveCalls(t *testing.T, addr string) string {
	t.Helper()
	c := dialRaw(t, addr)
	c.send("INFO", "commandstats")
	c.w.Flush()
	v, err := c.r.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(v.Str), "\r\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_lastsave:"); ok {
			calls, _, _ := strings.Cut(rest, ",")
			return calls
		}
	}
	return ""
}

// TestPoolRefusedOnSharedTargets: a pool is for throwaway servers only.
func TestPoolRefusedOnSharedTargets(t *testing.T) {
	_, err := runner.Run(context.Background(), load(t, "suite: s\ncases:\n  - {name: a, steps: [{send: [PING], reply: \"+PONG\\r\\n\"}]}\n"),
		runner.Options{Addr: "127.0.0.1:1", Shared: true, RunID: runner.NewRunID(), Pool: []string{"127.0.0.1:2"}})
	if err == nil || !strings.Contains(err.Error(), "Pool") {
		t.Errorf("err = %v, want the Pool refused", err)
	}
}
