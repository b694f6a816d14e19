package scenario

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
)

// Metrics are the figures of a scenario run, by name (see
// cases.CounterMetrics and cases.RateLimitMetrics). The JSON report has
// them as an object; the human report prints String under -v.
type Metrics map[string]float64

// String returns the figures on one line, "name=value" separated by spaces,
// in the documented order.
func (m Metrics) String() string {
	order := cases.CounterMetrics
	if _, ok := m["requests"]; ok {
		order = cases.RateLimitMetrics
	}
	var rest []string
	for k := range m {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var b strings.Builder
	for _, k := range slices.Concat(order, rest) {
		if _, ok := m[k]; !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m.Figure(k))
	}
	return b.String()
}

// Figure returns the figure name as String prints it: an integer without
// a fraction, other values with three decimals ("0" for a missing one).
func (m Metrics) Figure(name string) string {
	v := m[name]
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// sum adds up the tallies of the workers.
func sum(ws []*worker) tally {
	var t tally
	for _, w := range ws {
		t.commands += w.commands
		t.bytes += w.bytes
		t.retries += w.retries
		t.ok += w.ok
		t.gaveUp += w.gaveUp
		t.crashes += w.crashes
		t.lat = append(t.lat, w.lat...)
	}
	return t
}

// metrics returns the figures every pattern reports: the scenario's shape,
// the commands sent, the latencies and the wall time dur.
func (r *run) metrics(dur time.Duration, t tally) Metrics {
	return Metrics{"connections": float64(r.sc.Connections), "iterations": float64(r.sc.Iterations),
		"commands": float64(t.commands), "duration_ms": millis(dur),
		"p50_ms": millis(quantile(t.lat, 0.50)), "p99_ms": millis(quantile(t.lat, 0.99))}
}

// counterMetrics returns the figures of a counter pattern (see
// cases.CounterMetrics) whose counter ended at final.
func (r *run) counterMetrics(dur time.Duration, t tally, final int64) Metrics {
	m := r.metrics(dur, t)
	m["expected"] = float64(r.sc.Connections * r.sc.Iterations)
	m["final"] = float64(final)
	m["succeeded"] = float64(t.ok)
	m["lost_updates"] = float64(int64(t.ok) - final)
	m["gave_up"] = float64(t.gaveUp)
	m["retries"] = float64(t.retries)
	if t.ok > 0 {
		m["commands_per_update"] = round3(float64(t.commands) / float64(t.ok))
		m["bytes_per_update"] = round3(float64(t.bytes) / float64(t.ok))
	}
	return m
}

// rateLimitMetrics returns the figures of a rate-limiter pattern (see
// cases.RateLimitMetrics) that left keys keys, noTTL of them without an
// expiry.
func (r *run) rateLimitMetrics(dur time.Duration, t tally, keys, noTTL int) Metrics {
	m := r.metrics(dur, t)
	m["requests"] = float64(r.sc.Connections * r.sc.Iterations)
	m["keys"], m["no_ttl"] = float64(keys), float64(noTTL)
	m["completed"], m["crashes"] = float64(t.ok), float64(t.crashes)
	return m
}

// quantile returns the q-quantile (nearest rank) of ds, or 0.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

func millis(d time.Duration) float64 { return round3(float64(d.Nanoseconds()) / 1e6) }

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
