package cases

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scenario is a concurrency or crash-window experiment that a case runs
// instead of steps: Connections connections each perform Iterations
// updates (or requests) of a named Pattern at once, and the invariants in
// Expect are checked on the final state. See the package documentation,
// section Scenarios.
type Scenario struct {
	Pos     Pos
	Pattern Pattern
	// Connections is the number of connections working at once (>= 1).
	Connections int
	// Iterations is the number of updates (counter patterns) or requests
	// (rate-limiter patterns) each connection makes (>= 1).
	Iterations int
	// ValueSize pads a counter's value to this many bytes as a JSON blob
	// {"counter":N,"pad":"xxx..."}; 0 stores the bare decimal counter.
	ValueSize int
	// MaxAttempts caps the attempts of one update of a retry pattern; an
	// update that reaches it gives up. 0 for patterns that never retry.
	MaxAttempts int
	// Backoff, if positive, makes a retry pattern wait a uniformly random
	// [0, Backoff) before each retry. Case files have no key for it: the
	// contention tables of respcheck bench set it.
	Backoff time.Duration
	// TTL is the expiry the rate-limiter patterns set (whole seconds).
	TTL time.Duration
	// Crash injects client crashes into the rate-limiter patterns; nil
	// means none.
	Crash *Crash
	// OneKey makes every request of a rate-limiter pattern increment the
	// same key ({key:rl:0}) instead of a fresh one each. Case files have no
	// key for it: the INCREX contention table of respcheck bench sets it.
	OneKey bool
	// Expect lists the invariants checked after the run, in file order.
	Expect []*Invariant
}

// Crash is the crash injection of a rate-limiter scenario: before each
// request one number is drawn from rand.New(rand.NewPCG(Seed, 0))
// (math/rand/v2), in request order, and the request crashes if it is below
// Probability.
type Crash struct {
	Pos         Pos
	Probability float64
	Seed        uint64
}

// Invariant is one condition on a scenario's figures: Metric Op Value, or
// Metric Op Ref when Ref (another metric's name) is set.
type Invariant struct {
	Pos    Pos
	Metric string
	Op     string // ==, !=, <, <=, >, >=
	Value  float64
	Ref    string
}

// String returns the invariant as written: "lost_updates == 0".
func (iv *Invariant) String() string {
	rhs := iv.Ref
	if rhs == "" {
		rhs = strconv.FormatFloat(iv.Value, 'f', -1, 64)
	}
	return iv.Metric + " " + iv.Op + " " + rhs
}

// Holds reports whether the invariant holds for the metrics m. ok is false
// when a metric it names is missing from m.
func (iv *Invariant) Holds(m map[string]float64) (holds, ok bool) {
	lhs, ok1 := m[iv.Metric]
	rhs, ok2 := iv.Value, true
	if iv.Ref != "" {
		rhs, ok2 = m[iv.Ref]
	}
	if !ok1 || !ok2 {
		return false, false
	}
	switch iv.Op {
	case "==":
		return lhs == rhs, true
	case "!=":
		return lhs != rhs, true
	case "<":
		return lhs < rhs, true
	case "<=":
		return lhs <= rhs, true
	case ">":
		return lhs > rhs, true
	case ">=":
		return lhs >= rhs, true
	}
	return false, false
}

// Pattern names what each connection of a scenario does.
type Pattern string

// The counter patterns: every connection increments one hot counter
// ({key}) Iterations times.
const (
	// PatNaiveGetSet: GET, then an unconditional SET of counter+1. Not
	// atomic: concurrent connections lose updates.
	PatNaiveGetSet Pattern = "naive-get-set"
	// PatIfeqRetry: GET, then SET new IFEQ old; retry on a nil reply.
	PatIfeqRetry Pattern = "ifeq-retry"
	// PatIfdeqRetry: SET new IFDEQ digest, with the digest held from the
	// last read or computed client-side (XXH3) from the value last written;
	// on a nil reply GET and retry. DIGEST is sent once per scenario, on
	// the initial value, and its answer checked against the client's XXH3.
	PatIfdeqRetry Pattern = "ifdeq-retry"
	// PatWatchRetry: WATCH, GET, then MULTI, SET, EXEC in one write (three
	// round trips); retry on a nil EXEC.
	PatWatchRetry Pattern = "watch-retry"
	// PatLuaCAS: GET, then EVAL of a compare-and-set script given the old
	// and new values; retry when it answers 0.
	PatLuaCAS Pattern = "lua-cas"
	// PatLuaIncr: EVAL of a script that reads, increments and writes the
	// counter server-side; never retries.
	PatLuaIncr Pattern = "lua-incr"
	// PatIncr: INCR; never retries (value_size must be 0).
	PatIncr Pattern = "incr"
)

// The rate-limiter patterns: each request increments its own fresh key
// ({key:rl:N}) and gives it a TTL; a crash may be injected.
const (
	// PatIncrExpire: INCR, then EXPIRE when INCR answered 1. A crash lands
	// between the two commands.
	PatIncrExpire Pattern = "incr-expire"
	// PatMultiIncrExpire: MULTI, INCR, EXPIRE, EXEC. A crash lands after
	// queuing, before EXEC: the connection closes and the server discards
	// the transaction.
	PatMultiIncrExpire Pattern = "multi-incr-expire"
	// PatSetEx: SET key 1 EX ttl NX, and INCR only when the key already
	// existed (which keeps its TTL). A crash lands before the request.
	PatSetEx Pattern = "set-ex"
	// PatLuaIncrExpire: EVAL of INCR plus EXPIRE-when-1. A crash lands
	// before the request.
	PatLuaIncrExpire Pattern = "lua-incr-expire"
	// PatIncrex: INCREX key EX ttl BYINT 1 (gated on the INCREX command).
	// A crash lands before the request.
	PatIncrex Pattern = "increx"
)

// CounterPatterns and RateLimitPatterns list the patterns, in the order
// documented.
var (
	CounterPatterns   = []Pattern{PatNaiveGetSet, PatIfeqRetry, PatIfdeqRetry, PatWatchRetry, PatLuaCAS, PatLuaIncr, PatIncr}
	RateLimitPatterns = []Pattern{PatIncrExpire, PatMultiIncrExpire, PatSetEx, PatLuaIncrExpire, PatIncrex}
)

// IsRateLimit reports whether p is a rate-limiter (crash-window) pattern.
func (p Pattern) IsRateLimit() bool { return slices.Contains(RateLimitPatterns, p) }

// Retries reports whether p retries failed attempts (and so takes
// max_attempts).
func (p Pattern) Retries() bool {
	switch p {
	case PatIfeqRetry, PatIfdeqRetry, PatWatchRetry, PatLuaCAS:
		return true
	}
	return false
}

// Metrics returns the names of the figures a scenario of pattern p reports,
// in display order.
func (p Pattern) Metrics() []string {
	if p.IsRateLimit() {
		return RateLimitMetrics
	}
	return CounterMetrics
}

// The figures of a scenario (runner.Result.Metrics). Counter patterns:
//
//	connections, iterations   the scenario's shape
//	expected                  connections × iterations: updates attempted
//	succeeded                 updates the clients saw succeed
//	final                     the counter read back at the end
//	lost_updates              succeeded − final (acknowledged but not kept)
//	gave_up                   updates abandoned after max_attempts
//	retries                   failed attempts (that were retried or gave up)
//	commands                  commands sent (a script counts as one)
//	commands_per_update       commands / succeeded
//	bytes_per_update          request bytes written / succeeded
//	p50_ms, p99_ms            latency of one update, first command to success
//	duration_ms               wall time of the whole run
//
// Rate-limiter patterns:
//
//	connections, iterations, requests (connections × iterations)
//	crashes                   requests whose client was made to crash
//	completed                 requests that ran to the end
//	keys                      keys of the scenario that exist at the end
//	no_ttl                    of those, keys without an expiry (TTL -1)
//	commands, p50_ms, p99_ms, duration_ms
var (
	CounterMetrics = []string{"connections", "iterations", "expected", "succeeded", "final",
		"lost_updates", "gave_up", "retries", "commands", "commands_per_update", "bytes_per_update",
		"p50_ms", "p99_ms", "duration_ms"}
	RateLimitMetrics = []string{"connections", "iterations", "requests", "crashes", "completed",
		"keys", "no_ttl", "commands", "p50_ms", "p99_ms", "duration_ms"}
)

// IsTimingMetric reports whether a figure is a time, which no invariant
// may test: scenarios assert invariants, never speed.
func IsTimingMetric(name string) bool { return strings.HasSuffix(name, "_ms") }

var scenarioFields = []string{"pattern", "connections", "iterations", "value_size",
	"max_attempts", "ttl", "crash", "expect"}

// scenario parses a case's scenario block and adds the gates its pattern
// implies to the case.
func (l *loader) scenario(n *yaml.Node, c *Case) *Scenario {
	m := l.mapping(n, "scenario", scenarioFields...)
	if m == nil {
		return nil
	}
	sc := &Scenario{Pos: l.pos(n), Connections: 1}
	pv := m.need(l, n, "pattern")
	if pv == nil {
		return nil
	}
	name, ok := l.scalar(pv, "pattern")
	if !ok {
		return nil
	}
	sc.Pattern = Pattern(name)
	if !slices.Contains(CounterPatterns, sc.Pattern) && !sc.Pattern.IsRateLimit() {
		var all []string
		for _, p := range slices.Concat(CounterPatterns, RateLimitPatterns) {
			all = append(all, string(p))
		}
		l.errf(pv, "unknown pattern %q (want one of: %s)", name, strings.Join(all, ", "))
		return nil
	}
	rl := sc.Pattern.IsRateLimit()
	notFor := func(field, why string) bool {
		if k := m.key(field); k != nil {
			l.errf(k, "%q does not apply to pattern %s%s", field, sc.Pattern, why)
			return true
		}
		return false
	}
	if v := m.get("connections"); v != nil {
		sc.Connections = l.count(v, "connections", 1, 10000)
	}
	if v := m.need(l, n, "iterations"); v != nil {
		sc.Iterations = l.count(v, "iterations", 1, 10_000_000)
	}
	if v := m.get("value_size"); v != nil {
		switch {
		case rl:
			notFor("value_size", " (rate-limiter keys hold a bare counter)")
		case sc.Pattern == PatIncr:
			notFor("value_size", " (INCR needs a bare decimal counter)")
		default:
			if s, ok := l.scalar(v, "value_size"); ok {
				size, err := parseSize(s)
				switch {
				case err != nil:
					l.errf(v, "bad value_size %q: %v", s, err)
				case size > 64<<20:
					l.errf(v, "value_size %q is over 64 MiB", s)
				default:
					sc.ValueSize = int(size)
				}
			}
		}
	}
	if sc.Pattern.Retries() {
		sc.MaxAttempts = 100
	}
	if v := m.get("max_attempts"); v != nil {
		if sc.Pattern.Retries() {
			sc.MaxAttempts = l.count(v, "max_attempts", 1, 1_000_000)
		} else {
			notFor("max_attempts", " (it never retries)")
		}
	}
	if rl {
		sc.TTL = 60 * time.Second
	}
	if v := m.get("ttl"); v != nil && !(!rl && notFor("ttl", " (only rate-limiter patterns set a TTL)")) {
		if d, ok := l.duration(v, "ttl"); ok {
			if d < time.Second || d%time.Second != 0 {
				l.errf(v, "ttl must be a whole number of seconds, at least 1s")
			}
			sc.TTL = d
		}
	}
	if v := m.get("crash"); v != nil && !(!rl && notFor("crash", " (crashes are injected into rate-limiter patterns)")) {
		sc.Crash = l.crash(v)
	}
	if v := m.get("expect"); v != nil {
		sc.Expect = l.invariants(v, sc.Pattern)
	}
	c.Requires = mergeGates(c.Requires, l.impliedGates(sc))
	return sc
}

// count parses an integer in [lo, hi].
func (l *loader) count(n *yaml.Node, what string, lo, hi int) int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		l.errf(n, "%s must be an integer, not %s", what, describe(n))
		return lo
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v < lo || v > hi {
		l.errf(n, "%s must be between %d and %d, not %s", what, lo, hi, n.Value)
		return lo
	}
	return v
}

func (l *loader) crash(n *yaml.Node) *Crash {
	m := l.mapping(n, "crash", "probability", "seed")
	if m == nil {
		return nil
	}
	cr := &Crash{Pos: l.pos(n), Seed: 1}
	if v := m.need(l, n, "probability"); v != nil {
		p, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil || !(p >= 0 && p <= 1) {
			l.errf(v, "probability must be a number from 0 to 1, not %s", describe(v))
		} else {
			cr.Probability = p
		}
	}
	if v := m.get("seed"); v != nil {
		s, err := strconv.ParseUint(v.Value, 10, 64)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
			l.errf(v, "seed must be a non-negative integer, not %s", describe(v))
		} else {
			cr.Seed = s
		}
	}
	return cr
}

var invariantOps = []string{"==", "!=", "<=", ">=", "<", ">"}

// invariants parses expect: a mapping from metric names to a number
// (equality) or a string "OP NUMBER" or "OP METRIC".
func (l *loader) invariants(n *yaml.Node, p Pattern) []*Invariant {
	m := l.mapping(n, "scenario expect")
	if m == nil {
		return nil
	}
	if len(m.keys) == 0 {
		l.errf(n, "scenario expect must not be empty (omit it to only report the figures)")
	}
	names := p.Metrics()
	known := func(k *yaml.Node, name string) bool {
		if !slices.Contains(names, name) {
			l.errf(k, "unknown metric %q for pattern %s (want one of: %s)", name, p, strings.Join(names, ", "))
			return false
		}
		if IsTimingMetric(name) {
			l.errf(k, "%q is a time: scenarios assert invariants, never speed (the figure is reported anyway)", name)
			return false
		}
		return true
	}
	var ivs []*Invariant
	for i, k := range m.keys {
		v := m.vals[i]
		if !known(k, k.Value) {
			continue
		}
		iv := &Invariant{Pos: l.pos(k), Metric: k.Value, Op: "=="}
		s, ok := l.scalar(v, "invariant")
		if !ok {
			continue
		}
		if v.Tag == "!!str" {
			s = strings.TrimSpace(s)
			iv.Op = ""
			for _, op := range invariantOps {
				if strings.HasPrefix(s, op) {
					iv.Op, s = op, strings.TrimSpace(s[len(op):])
					break
				}
			}
			if iv.Op == "" {
				l.errf(v, "bad invariant %q: want a number, or an operator (%s) and a number or metric, as in \"== crashes\"", v.Value, strings.Join(invariantOps, " "))
				continue
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			iv.Value = f
		} else if isIdent(s) {
			if !known(v, s) {
				continue
			}
			iv.Ref = s
		} else {
			l.errf(v, "bad invariant %q: want a number or a metric name after %s", v.Value, iv.Op)
			continue
		}
		ivs = append(ivs, iv)
	}
	return ivs
}

// impliedGates returns the gates a pattern needs, or nil.
func (l *loader) impliedGates(sc *Scenario) *Gates {
	probe := func(args ...string) *Probe {
		p := &Probe{Pos: sc.Pos}
		for _, a := range args {
			t, err := ParseTemplate(sc.Pos, a)
			if err != nil {
				panic(fmt.Sprintf("cases: implied probe %q: %v", a, err))
			}
			p.Send = append(p.Send, *t)
		}
		return p
	}
	switch sc.Pattern {
	case PatIfeqRetry:
		return &Gates{Pos: sc.Pos, Probes: []*Probe{probe("SET", "{key:probe}", "v", "IFEQ", "x")}}
	case PatIfdeqRetry:
		return &Gates{Pos: sc.Pos, Commands: []string{"DIGEST"},
			Probes: []*Probe{probe("SET", "{key:probe}", "v", "IFDEQ", "0000000000000000")}}
	case PatIncrex:
		return &Gates{Pos: sc.Pos, Commands: []string{"INCREX"}}
	}
	return nil
}

// mergeGates returns a with the conditions of b added (b's commands and
// probes appended); either may be nil.
func mergeGates(a, b *Gates) *Gates {
	if b == nil {
		return a
	}
	if a == nil {
		return b
	}
	g := *a
	g.Commands = slices.Concat(a.Commands, b.Commands)
	g.Probes = slices.Concat(a.Probes, b.Probes)
	return &g
}
