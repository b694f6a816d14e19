package runner_test

import (
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestScenarioGlue checks what the runner adds to package scenario (whose
// own tests run the patterns): the gates (the IFEQ and IFDEQ patterns are
// skipped on a server without the SET conditions), the invariants (a broken
// one fails the result and says which, with the figures), the known
// differences, and the deletion of the scenario's keys, which a
// rate-limiter pattern leaves behind with a TTL.
func TestScenarioGlue(t *testing.T) {
	type want struct {
		status  runner.Status
		reason  string             // the exact reason, if not empty
		metrics map[string]float64 // some figures
	}
	for _, tc := range []struct {
		server string
		proto  int
		src    string
		want   map[string]want
	}{{
		server: "redis-7.0.15", proto: 2,
		src: `
suite: gates
cases:
  - name: ifeq
    scenario: {pattern: ifeq-retry, connections: 2, iterations: 5}
  - name: ifdeq
    scenario: {pattern: ifdeq-retry, connections: 2, iterations: 5}
  - name: watch
    scenario: {pattern: watch-retry, connections: 2, iterations: 5, expect: {lost_updates: 0}}
`,
		want: map[string]want{"ifeq": {status: runner.Skip}, "ifdeq": {status: runner.Skip}, "watch": {status: runner.Pass}},
	}, {
		server: "redis-8.6.3", proto: 3,
		src: `
suite: inv
cases:
  - name: incr
    scenario:
      pattern: incr
      connections: 2
      iterations: 3
      expect: {final: "== 5", lost_updates: 0}
  - name: known, still broken
    known: [{server: redis, reason: "counts one more"}]
    scenario: {pattern: incr, connections: 2, iterations: 3, expect: {final: "== 5"}}
  - name: known, no longer
    known: [{server: redis, reason: "counted one more once"}]
    scenario: {pattern: incr, connections: 2, iterations: 3, expect: {final: "== 6"}}
  - name: keys left with a TTL
    scenario: {pattern: set-ex, connections: 2, iterations: 10, ttl: 60s}
`,
		want: map[string]want{
			"incr": {runner.Fail, `inline.yaml:9:16: invariant final == 5 does not hold: final is 6`,
				map[string]float64{"final": 6, "commands": 6}},
			"known, still broken":  {status: runner.KnownDiff, reason: "counts one more"},
			"known, no longer":     {status: runner.Fail, reason: `inline.yaml:14:13: known difference no longer reproduces on redis 8.6.3: counted one more once`},
			"keys left with a TTL": {status: runner.Pass},
		},
	}} {
		t.Run(tc.server, func(t *testing.T) {
			srv := servers.ForTest(t, tc.server)
			rep := run(t, srv.Addr(), load(t, tc.src), runner.Options{Protos: []int{tc.proto}})
			for name, w := range tc.want {
				r := result(t, rep, name, tc.proto)
				if r.Status != w.status || (w.reason != "" && r.Reason != w.reason) {
					t.Errorf("%s: %s %q, want %s %q", name, r.Status, r.Reason, w.status, w.reason)
				}
				for k, v := range w.metrics {
					if r.Metrics[k] != v {
						t.Errorf("%s: %s = %v, want %v (%s)", name, k, r.Metrics[k], v, r.Metrics)
					}
				}
			}
			if n := dialRaw(t, srv.Addr()).do(t, "DBSIZE").Int; n != 0 {
				t.Errorf("%d keys left after the run", n)
			}
		})
	}
}
