package scenario_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/scenario"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// open identifies a pinned server started for the test.
func open(t *testing.T, name string) *target.Target {
	t.Helper()
	srv := servers.ForTest(t, name)
	tgt, err := target.Open(context.Background(), target.Config{Addr: srv.Addr(), Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return tgt
}

// runScenario runs sc and deletes its keys afterwards.
func runScenario(ctx context.Context, t *testing.T, tgt *target.Target, sc *cases.Scenario, proto int) (scenario.Metrics, error) {
	t.Helper()
	prefix := cases.KeyPrefix("scenario test " + t.Name() + " " + sc.Pos.String() + " " + strconv.Itoa(proto))
	defer func() {
		c, err := tgt.Dial(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := target.DeleteKeys(c, prefix); err != nil {
			t.Error(err)
		}
	}()
	return scenario.Run(ctx, tgt, sc, proto, prefix, 0)
}

// TestBundledScenariosRedis86 runs the bundled scenarios on Redis 8.6.3,
// gated as the runner gates them, and checks their figures: exactly the
// documented ones, and the invariants of each pattern. The atomic patterns
// must lose no update; the naive pattern's losses are logged, not
// asserted: how many updates twenty connections lose depends on
// scheduling, and on a loaded two-core machine a run could in principle
// interleave so little that it loses none. Only INCR then EXPIRE may leave
// keys without a TTL, one per injected crash.
func TestBundledScenariosRedis86(t *testing.T) {
	tgt := open(t, "redis-8.6.3")
	files, err := cases.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, f := range files {
		for _, c := range f.Cases {
			if c.Scenario == nil {
				continue
			}
			for _, proto := range []int{2, 3} {
				name := c.Name + " [RESP" + strconv.Itoa(proto) + "]"
				reason, err := tgt.Skip(context.Background(), c, proto)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if c.Scenario.Pattern == cases.PatIncrex {
					if !strings.Contains(reason, "INCREX") {
						t.Errorf("%s: gate %q, want a skip for the missing INCREX", name, reason)
					}
					continue
				}
				if reason != "" {
					t.Errorf("%s: skipped: %s", name, reason)
					continue
				}
				m, err := runScenario(context.Background(), t, tgt, c.Scenario, proto)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				ran++
				t.Logf("%s: %s", name, m)
				checkFigures(t, name, c.Scenario, m)
			}
		}
	}
	if ran != 22 {
		t.Errorf("ran %d scenarios, want 22", ran)
	}
}

// checkFigures checks the figures of one bundled scenario.
func checkFigures(t *testing.T, name string, sc *cases.Scenario, m scenario.Metrics) {
	t.Helper()
	var names []string
	for k := range m {
		names = append(names, k)
	}
	want := slices.Clone(sc.Pattern.Metrics())
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("%s: figures %v, want %v", name, names, want)
	}
	for _, iv := range sc.Expect {
		if holds, ok := iv.Holds(m); !holds || !ok {
			t.Errorf("%s: invariant %s does not hold", name, iv)
		}
	}
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

// TestCounts: the figures of a small INCR scenario are exact.
func TestCounts(t *testing.T) {
	tgt := open(t, "redis-8.6.3")
	sc := &cases.Scenario{Pattern: cases.PatIncr, Connections: 3, Iterations: 4}
	m, err := runScenario(context.Background(), t, tgt, sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"connections": 3, "iterations": 4, "expected": 12, "succeeded": 12,
		"final": 12, "lost_updates": 0, "gave_up": 0, "retries": 0, "commands": 12, "commands_per_update": 1,
		"bytes_per_update": float64(len("*2\r\n$4\r\nINCR\r\n$xx\r\n\r\n") + len(cases.KeyPrefix("x")+"key"))} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v (%s)", k, m[k], want, m)
		}
	}
}

// TestOneKey: with OneKey every request of a rate-limiter pattern
// increments the same key: one key is left, with its TTL, and the crashes
// (seed 1, probability 0.5: a count that does not depend on timing) leave
// it with a TTL under Lua.
func TestOneKey(t *testing.T) {
	tgt := open(t, "redis-8.6.3")
	for _, p := range []cases.Pattern{cases.PatIncrExpire, cases.PatLuaIncrExpire} {
		sc := &cases.Scenario{Pattern: p, Connections: 3, Iterations: 4, TTL: time.Minute, OneKey: true}
		if p == cases.PatLuaIncrExpire {
			sc.Crash = &cases.Crash{Probability: 0.5, Seed: 1}
		}
		m, err := runScenario(context.Background(), t, tgt, sc, 2)
		if err != nil {
			t.Fatal(err)
		}
		if m["requests"] != 12 || m["keys"] != 1 || m["no_ttl"] != 0 || m["completed"]+m["crashes"] != 12 {
			t.Errorf("%s: %s", p, m)
		}
	}
}

// TestCancel: a cancelled context stops a scenario at once, and Run
// returns the cancellation's cause.
func TestCancel(t *testing.T) {
	tgt := open(t, "redis-8.6.3")
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop")
	time.AfterFunc(200*time.Millisecond, func() { cancel(cause) })
	sc := &cases.Scenario{Pattern: cases.PatWatchRetry, Connections: 4, Iterations: 1 << 30, MaxAttempts: 100}
	start := time.Now()
	_, err := runScenario(ctx, t, tgt, sc, 2)
	if !errors.Is(err, cause) {
		t.Errorf("err %v, want the cause %v", err, cause)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

// TestCancelWithCrashes: a cancelled context stops a rate-limiter scenario
// whose workers keep replacing their connections.
func TestCancelWithCrashes(t *testing.T) {
	tgt := open(t, "redis-8.6.3")
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(20+i)*time.Millisecond, cancel)
		sc := &cases.Scenario{Pattern: cases.PatSetEx, Connections: 4, Iterations: 1 << 20, TTL: time.Minute,
			Crash: &cases.Crash{Probability: 0.5, Seed: 1}}
		start := time.Now()
		if _, err := runScenario(ctx, t, tgt, sc, 2); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v to stop", d)
		}
	}
}
