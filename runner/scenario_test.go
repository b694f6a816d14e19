package runner_test

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// bundledScenarios returns the bundled suite's scenarios file.
func bundledScenarios(t *testing.T) []*cases.File {
	t.Helper()
	files, err := cases.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "suite/scenarios.yaml" {
			return []*cases.File{f}
		}
	}
	t.Fatal("no suite/scenarios.yaml in the bundled suite")
	return nil
}

// TestScenariosRedis86 runs the bundled scenarios on Redis 8.6.3. The
// atomic patterns must lose no update (the files assert it, and so does
// this test); the naive pattern's losses are logged, not asserted: how many
// updates twenty connections lose depends on scheduling, and on a loaded
// two-core machine a run could in principle interleave so little that it
// loses none. Only INCR then EXPIRE may leave keys without a TTL, one per
// injected crash.
func TestScenariosRedis86(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep := run(t, srv.Addr(), bundledScenarios(t), runner.Options{Jobs: 2})
	for _, r := range rep.Results {
		name := runner.FullName(r.Case) + " [RESP" + string(rune('0'+r.Proto)) + "]"
		sc := r.Case.Scenario
		if sc.Pattern == cases.PatIncrex {
			if r.Status != runner.Skip || !strings.Contains(r.Reason, "INCREX") {
				t.Errorf("%s: %s (%s), want a skip for the missing INCREX", name, r.Status, r.Reason)
			}
			continue
		}
		if r.Status != runner.Pass {
			t.Errorf("%s: %s: %s", name, r.Status, r.Reason)
			continue
		}
		m := r.Metrics
		t.Logf("%s: %s", name, m)
		switch sc.Pattern {
		case cases.PatNaiveGetSet:
			t.Logf("%s: lost %v of %v updates (expected, not asserted)", name, m["lost_updates"], m["expected"])
			if m["final"] < 1 || m["final"] > m["expected"] {
				t.Errorf("%s: final %v out of range", name, m["final"])
			}
		case cases.PatIfeqRetry, cases.PatIfdeqRetry, cases.PatWatchRetry, cases.PatLuaCAS, cases.PatLuaIncr, cases.PatIncr:
			if m["lost_updates"] != 0 || m["final"] != m["succeeded"] {
				t.Errorf("%s: lost %v updates (final %v, succeeded %v)", name, m["lost_updates"], m["final"], m["succeeded"])
			}
		case cases.PatIncrExpire:
			if m["crashes"] == 0 || m["no_ttl"] != m["crashes"] {
				t.Errorf("%s: %v keys without TTL, want one per crash (%v)", name, m["no_ttl"], m["crashes"])
			}
		default:
			if m["no_ttl"] != 0 {
				t.Errorf("%s: %v keys without TTL, want 0", name, m["no_ttl"])
			}
		}
	}
	if rep.Summary.Passed != 22 || rep.Summary.Skipped != 2 {
		t.Errorf("summary %+v, want 22 passed and 2 skipped", rep.Summary)
	}
}

// TestScenarioGatesOnOldServer: the IFEQ and IFDEQ patterns are skipped on
// a server without the SET conditions.
func TestScenarioGatesOnOldServer(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	rep := run(t, srv.Addr(), load(t, `
suite: gates
cases:
  - name: ifeq
    scenario: {pattern: ifeq-retry, connections: 2, iterations: 5}
  - name: ifdeq
    scenario: {pattern: ifdeq-retry, connections: 2, iterations: 5}
  - name: watch
    scenario: {pattern: watch-retry, connections: 2, iterations: 5, expect: {lost_updates: 0}}
`), runner.Options{Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if r.Case.Name == "watch" {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
	}
}

// TestScenarioInvariantFails: a broken invariant fails the result and says
// which, with the figures.
func TestScenarioInvariantFails(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep := run(t, srv.Addr(), load(t, `
suite: inv
cases:
  - name: incr
    scenario:
      pattern: incr
      connections: 2
      iterations: 3
      expect: {final: "== 5", lost_updates: 0}
`), runner.Options{Protos: []int{3}})
	r := rep.Results[0]
	want := `inline.yaml:9:16: invariant final == 5 does not hold: final is 6`
	if r.Status != runner.Fail || r.Reason != want {
		t.Errorf("got %s %q, want fail %q", r.Status, r.Reason, want)
	}
	if r.Metrics["final"] != 6 || r.Metrics["commands"] != 6 {
		t.Errorf("metrics %v", r.Metrics)
	}
}
