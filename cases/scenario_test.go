package cases

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadScenario(t *testing.T) {
	f, err := Load("s.yaml", []byte(`suite: s
cases:
  - name: ifdeq
    requires: {server: "redis>=8"}
    scenario:
      pattern: ifdeq-retry
      connections: 20
      iterations: 50
      value_size: 950B
      max_attempts: 1000
      expect: {lost_updates: 0, final: "== expected", gave_up: "<= 3"}
  - name: crash
    exclusive: false
    scenario:
      pattern: incr-expire
      iterations: 500
      ttl: 30s
      crash: {probability: 0.02, seed: 42}
      expect: {no_ttl: "== crashes"}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	sc := c.Scenario
	if sc == nil || len(c.Steps) != 0 || !c.Exclusive {
		t.Fatalf("case 0: scenario %v, %d steps, exclusive %v", sc, len(c.Steps), c.Exclusive)
	}
	if sc.Pattern != PatIfdeqRetry || sc.Connections != 20 || sc.Iterations != 50 || sc.ValueSize != 950 || sc.MaxAttempts != 1000 {
		t.Errorf("scenario: %+v", sc)
	}
	var got []string
	for _, iv := range sc.Expect {
		got = append(got, iv.Pos.String()+" "+iv.String())
	}
	want := []string{"s.yaml:11:16 lost_updates == 0", "s.yaml:11:33 final == expected", "s.yaml:11:55 gave_up <= 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("invariants (-want +got):\n%s", diff)
	}
	// The pattern's gates are added to the case's own.
	g := c.Requires
	if len(g.Servers) != 1 || len(g.Commands) != 1 || g.Commands[0] != "DIGEST" || len(g.Probes) != 1 {
		t.Errorf("gates: %+v", g)
	}
	if h, ok := sc.Expect[1].Holds(map[string]float64{"final": 3, "expected": 3}); !h || !ok {
		t.Errorf("final == expected: holds %v ok %v", h, ok)
	}
	if _, ok := sc.Expect[1].Holds(map[string]float64{"final": 3}); ok {
		t.Error("a missing figure must not be ok")
	}
	c = f.Cases[1]
	sc = c.Scenario
	if c.Exclusive || sc.TTL != 30*time.Second || sc.Crash == nil || sc.Crash.Probability != 0.02 || sc.Crash.Seed != 42 || sc.Connections != 1 || c.Requires != nil {
		t.Errorf("case 1: %+v %+v", c, sc)
	}
}

func TestScenarioErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown field", scenarioFile("      pattern: incr\n      iterations: 5\n      conections: 3\n"),
			[]string{`7:7: unknown field "conections" in scenario: did you mean "connections"? (want one of: pattern, connections, iterations, value_size, max_attempts, ttl, crash, expect)`}},
		{"unknown pattern", scenarioFile("      pattern: incr-by\n      iterations: 5\n"),
			[]string{`5:16: unknown pattern "incr-by" (want one of: naive-get-set, ifeq-retry, ifdeq-retry, watch-retry, lua-cas, lua-incr, incr, incr-expire, multi-incr-expire, set-ex, lua-incr-expire, increx)`}},
		{"missing iterations", scenarioFile("      pattern: incr\n"),
			[]string{`5:7: missing field "iterations"`}},
		{"bad count", scenarioFile("      pattern: incr\n      iterations: 0\n      connections: many\n"),
			[]string{`6:19: iterations must be between 1 and 10000000, not 0`, `7:20: connections must be an integer, not "many"`}},
		{"value_size on incr", scenarioFile("      pattern: incr\n      iterations: 5\n      value_size: 1KB\n"),
			[]string{`7:7: "value_size" does not apply to pattern incr (INCR needs a bare decimal counter)`}},
		{"bad value_size", scenarioFile("      pattern: lua-incr\n      iterations: 5\n      value_size: 1XB\n"),
			[]string{`7:19: bad value_size "1XB": unknown unit "XB" (want B, KB, MB, GB, KiB, MiB or GiB)`}},
		{"max_attempts without retries", scenarioFile("      pattern: naive-get-set\n      iterations: 5\n      max_attempts: 3\n"),
			[]string{`7:7: "max_attempts" does not apply to pattern naive-get-set (it never retries)`}},
		{"crash on a counter", scenarioFile("      pattern: incr\n      iterations: 5\n      crash: {probability: 0.1}\n"),
			[]string{`7:7: "crash" does not apply to pattern incr (crashes are injected into rate-limiter patterns)`}},
		{"bad crash", scenarioFile("      pattern: set-ex\n      iterations: 5\n      crash: {probability: 1.5, seed: -1, sed: 3}\n"),
			[]string{`7:28: probability must be a number from 0 to 1, not "1.5"`, `7:39: seed must be a non-negative integer, not "-1"`, `7:43: unknown field "sed" in crash: did you mean "seed"? (want one of: probability, seed)`}},
		{"bad ttl", scenarioFile("      pattern: set-ex\n      iterations: 5\n      ttl: 1500ms\n"),
			[]string{`7:12: ttl must be a whole number of seconds, at least 1s`}},
		{"timing invariant", scenarioFile("      pattern: incr\n      iterations: 5\n      expect: {p99_ms: \"< 5\"}\n"),
			[]string{`7:16: "p99_ms" is a time: scenarios assert invariants, never speed (the figure is reported anyway)`}},
		{"unknown metric", scenarioFile("      pattern: incr-expire\n      iterations: 5\n      expect: {lost_updates: 0, no_ttl: \"== crashs\"}\n"),
			[]string{`7:16: unknown metric "lost_updates" for pattern incr-expire (want one of: connections, iterations, requests, crashes, completed, keys, no_ttl, commands, p50_ms, p99_ms, duration_ms)`,
				`7:41: unknown metric "crashs" for pattern incr-expire (want one of: connections, iterations, requests, crashes, completed, keys, no_ttl, commands, p50_ms, p99_ms, duration_ms)`}},
		{"bad invariant", scenarioFile("      pattern: incr\n      iterations: 5\n      expect: {final: \"about 5\", gave_up: \"=< 1\"}\n"),
			[]string{`7:23: bad invariant "about 5": want a number, or an operator (== != <= >= < >) and a number or metric, as in "== crashes"`,
				`7:43: bad invariant "=< 1": want a number, or an operator (== != <= >= < >) and a number or metric, as in "== crashes"`}},
		{"steps and scenario", "suite: t\ncases:\n  - name: c\n    steps: [{send: [PING]}]\n    scenario: {pattern: incr, iterations: 1}\n",
			[]string{`4:5: a case has steps or a scenario, not both`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(tc.src))
			var el ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("want an ErrorList, got %v", err)
			}
			var got []string
			for _, e := range el {
				got = append(got, strings.TrimPrefix(e.Error(), "t.yaml:"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBundledScenarios(t *testing.T) {
	files, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Pattern]bool{}
	for _, f := range files {
		for _, c := range f.Cases {
			if c.Scenario != nil {
				seen[c.Scenario.Pattern] = true
			}
		}
	}
	for _, p := range append(CounterPatterns, RateLimitPatterns...) {
		if !seen[p] {
			t.Errorf("no bundled scenario uses pattern %s", p)
		}
	}
}
