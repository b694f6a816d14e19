package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Metrics are the figures of a scenario result, by name (see
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
		v, ok := m[k]
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(scFormatFigure(v))
	}
	return b.String()
}

func scFormatFigure(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// scenarioRun is one scenario in one protocol.
type scenarioRun struct {
	*run
	sc     *cases.Scenario
	proto  int
	prefix string
	key    []byte // the hot key of counter patterns
}

// runScenario runs it.c.Scenario and checks its invariants. res has been
// gated already.
func (r *run) runScenario(ctx context.Context, it item, res *Result) *Result {
	sc := it.c.Scenario
	s := &scenarioRun{run: r, sc: sc, proto: it.proto,
		prefix: cases.KeyPrefix(r.opts.RunID + " " + it.c.ID() + " " + strconv.Itoa(it.proto))}
	s.key = []byte(s.prefix + "key")
	res.KeyPrefix = s.prefix
	defer s.cleanup()
	var err error
	if sc.Pattern.IsRateLimit() {
		res.Metrics, err = s.rateLimit(ctx)
	} else {
		res.Metrics, err = s.counter(ctx)
	}
	if err != nil {
		res.Status, res.Reason = Error, fmt.Sprintf("%s: %s: %v", sc.Pos, sc.Pattern, err)
		return res
	}
	var broken []string
	for _, iv := range sc.Expect {
		holds, ok := iv.Holds(res.Metrics)
		switch {
		case !ok:
			broken = append(broken, fmt.Sprintf("%s: %s: a figure is missing", iv.Pos, iv))
		case !holds:
			lhs := iv.Metric + " is " + scFormatFigure(res.Metrics[iv.Metric])
			if iv.Ref != "" {
				lhs += ", " + iv.Ref + " is " + scFormatFigure(res.Metrics[iv.Ref])
			}
			broken = append(broken, fmt.Sprintf("%s: invariant %s does not hold: %s", iv.Pos, iv, lhs))
		}
	}
	if len(broken) > 0 {
		res.Status, res.Reason = Fail, strings.Join(broken, "; ")
	}
	switch {
	case res.Known != nil && res.Status == Fail:
		res.Status, res.Reason = KnownDiff, res.Known.Reason
	case res.Known != nil && res.Status == Pass:
		res.Status = Fail
		res.Reason = fmt.Sprintf("%s: known difference no longer reproduces on %s %s: %s",
			res.Known.Pos, r.srv.Family, r.srv.Version, res.Known.Reason)
	}
	return res
}

// cleanup deletes every key of the scenario: its keys are its own, and a
// rate-limiter scenario may leave many without a TTL.
func (s *scenarioRun) cleanup() {
	c, err := s.t.Dial(context.Background(), 2)
	if err != nil {
		return
	}
	defer c.Close()
	n, _ := target.DeleteKeys(c, s.prefix)
	if s.opts.Shared {
		s.keysRemoved.Add(int64(n))
	}
}

// scWorker is one connection of a scenario and its counts.
type scWorker struct {
	s        *scenarioRun
	c        *conn
	name     string
	buf      []byte
	commands int
	bytes    int
	retries  int
	ok       int // updates that succeeded, requests that completed
	gaveUp   int
	crashes  int
	lat      []time.Duration
	// ifdeq-retry: the value last read or written and its digest.
	cur    []byte
	digest []byte
}

// do sends one command and returns its reply, which is valid until the
// next command. An error reply is returned as an error.
func (w *scWorker) do(args ...[]byte) (resp.Value, error) {
	w.buf = resp.AppendCommand(w.buf[:0], args...)
	w.commands++
	w.bytes += len(w.buf)
	timeout := w.s.opts.StepTimeout
	if err := w.c.write(timeout, w.buf); err != nil {
		return resp.Value{}, fmt.Errorf("%s: write %s: %w", w.name, args[0], err)
	}
	v, err := w.c.readReply(timeout, nil)
	if err != nil {
		return v, fmt.Errorf("%s: read the reply of %s: %w", w.name, args[0], err)
	}
	if isError(v) {
		return v, fmt.Errorf("%s: %s: server replied %s", w.name, args[0], resp.Escape(v.Raw))
	}
	return v, nil
}

func scUnexpected(cmd string, v resp.Value) error {
	return fmt.Errorf("%s: unexpected reply %s", cmd, resp.Escape(v.Raw))
}

func isNilReply(v resp.Value) bool {
	return v.Kind == resp.NilBlobString || v.Kind == resp.NilArray || v.Kind == resp.Null
}

// scCounterValue is the value holding counter n: its decimal text when size
// is 0, else a JSON blob {"counter":n,"pad":"xx..."} padded to size bytes
// (longer if size is too small for the counter).
func scCounterValue(n int64, size int) []byte {
	if size == 0 {
		return strconv.AppendInt(nil, n, 10)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"counter":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `,"pad":"`...)
	for len(b)+2 < size {
		b = append(b, 'x')
	}
	return append(b, `"}`...)
}

// scParseCounter reads a scCounterValue.
func scParseCounter(b []byte) (int64, error) {
	s := b
	if len(b) > 0 && b[0] == '{' {
		_, after, ok := bytes.Cut(b, []byte(`"counter":`))
		if !ok {
			return 0, fmt.Errorf("no counter field in %q", resp.Escape(b[:min(len(b), 40)]))
		}
		end := bytes.IndexFunc(after, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(after)
		}
		s = after[:end]
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the counter %q is not a number", resp.Escape(s[:min(len(s), 40)]))
	}
	return n, nil
}

// scDigest is the XXH3-64 digest of b as DIGEST and IFDEQ write it: 16
// lowercase hex digits.
func scDigest(b []byte) []byte {
	return fmt.Appendf(nil, "%016x", xxh3.Hash(b))
}

// The scripts of the Lua patterns. Redis and Valkey run scripts atomically.
const (
	luaCAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`
	// luaIncr increments a scCounterValue in place, keeping its format.
	luaIncr = `local v = redis.call('GET', KEYS[1])
local size = tonumber(ARGV[1])
if size == 0 then
  local n = tonumber(v) + 1
  redis.call('SET', KEYS[1], tostring(n))
  return n
end
local n = tonumber(string.match(v, '"counter":(%d+)')) + 1
local head = '{"counter":' .. string.format('%d', n) .. ',"pad":"'
local pad = size - #head - 2
if pad < 0 then pad = 0 end
redis.call('SET', KEYS[1], head .. string.rep('x', pad) .. '"}')
return n`
	luaIncrExpire = `local v = redis.call('INCR', KEYS[1])
if v == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return v`
)

// workers dials n connections before any starts, so that they all start
// together.
func (s *scenarioRun) workers(ctx context.Context, n int) ([]*scWorker, error) {
	ws := make([]*scWorker, n)
	for i := range ws {
		name := "c" + strconv.Itoa(i+1)
		c, err := dial(ctx, s.t, name, s.proto)
		if err != nil {
			for _, w := range ws[:i] {
				w.c.close()
			}
			return nil, fmt.Errorf("connection %s: %w", name, err)
		}
		ws[i] = &scWorker{s: s, c: c, name: name}
	}
	return ws, nil
}

// scParallel runs f on every worker at once and returns the first error.
// A cancelled ctx unblocks every connection.
func scParallel(ctx context.Context, ws []*scWorker, f func(*scWorker) error) (time.Duration, error) {
	stop := context.AfterFunc(ctx, func() {
		for _, w := range ws {
			w.c.nc.SetDeadline(time.Unix(1, 0))
		}
	})
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	start := time.Now()
	for i, w := range ws {
		wg.Go(func() { errs[i] = f(w) })
	}
	wg.Wait()
	d := time.Since(start)
	if ctx.Err() != nil {
		return d, context.Cause(ctx)
	}
	return d, errors.Join(errs...)
}

func scCloseAll(ws []*scWorker) {
	for _, w := range ws {
		if w.c != nil {
			w.c.close()
		}
	}
}

// counter runs a counter pattern on the hot key.
func (s *scenarioRun) counter(ctx context.Context) (Metrics, error) {
	sc := s.sc
	setup, err := dial(ctx, s.t, "setup", s.proto)
	if err != nil {
		return nil, err
	}
	defer setup.close()
	sw := &scWorker{s: s, c: setup, name: "setup"}
	if _, err := sw.do([]byte("SET"), s.key, scCounterValue(0, sc.ValueSize)); err != nil { // the initial value
		return nil, err
	}
	initial := scCounterValue(0, sc.ValueSize)
	if sc.Pattern == cases.PatIfdeqRetry {
		// The one DIGEST of the scenario: the server's digest must be the
		// XXH3-64 the workers compute for every later value.
		v, err := sw.do([]byte("DIGEST"), s.key)
		if err != nil {
			return nil, err
		}
		if want := scDigest(initial); !bytes.EqualFold(v.Str, want) {
			return nil, fmt.Errorf("DIGEST answered %s but the XXH3-64 of the value is %s", resp.Escape(v.Raw), want)
		}
	}
	ws, err := s.workers(ctx, sc.Connections)
	if err != nil {
		return nil, err
	}
	defer scCloseAll(ws)
	for _, w := range ws {
		w.cur, w.digest = initial, scDigest(initial)
	}
	dur, err := scParallel(ctx, ws, func(w *scWorker) error {
		for range sc.Iterations {
			start := time.Now()
			ok, err := s.update(w)
			if err != nil {
				return err
			}
			w.lat = append(w.lat, time.Since(start))
			if ok {
				w.ok++
			} else {
				w.gaveUp++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v, err := sw.do([]byte("GET"), s.key)
	if err != nil {
		return nil, err
	}
	final, err := scParseCounter(v.Str)
	if err != nil {
		return nil, fmt.Errorf("final value: %w", err)
	}
	m := Metrics{"connections": float64(sc.Connections), "iterations": float64(sc.Iterations),
		"expected": float64(sc.Connections * sc.Iterations), "final": float64(final),
		"duration_ms": scMillis(dur)}
	var succeeded, gaveUp, retries, commands, sent int
	var lat []time.Duration
	for _, w := range ws {
		succeeded += w.ok
		gaveUp += w.gaveUp
		retries += w.retries
		commands += w.commands
		sent += w.bytes
		lat = append(lat, w.lat...)
	}
	m["succeeded"] = float64(succeeded)
	m["lost_updates"] = float64(int64(succeeded) - final)
	m["gave_up"] = float64(gaveUp)
	m["retries"] = float64(retries)
	m["commands"] = float64(commands)
	if succeeded > 0 {
		m["commands_per_update"] = scRound3(float64(commands) / float64(succeeded))
		m["bytes_per_update"] = scRound3(float64(sent) / float64(succeeded))
	}
	m["p50_ms"], m["p99_ms"] = scMillis(scQuantile(lat, 0.50)), scMillis(scQuantile(lat, 0.99))
	return m, nil
}

// update performs one update of a counter pattern; ok is false when it
// gave up after MaxAttempts.
func (s *scenarioRun) update(w *scWorker) (ok bool, err error) {
	sc := s.sc
	key := s.key
	next := func(cur []byte) ([]byte, error) {
		n, err := scParseCounter(cur)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		return scCounterValue(n+1, sc.ValueSize), nil
	}
	get := func() ([]byte, error) {
		v, err := w.do([]byte("GET"), key)
		if err != nil {
			return nil, err
		}
		if v.Kind != resp.BlobString {
			return nil, scUnexpected("GET", v)
		}
		return bytes.Clone(v.Str), nil
	}
	// okOrNil reads a conditional SET's reply: +OK, or nil when the
	// condition failed.
	okOrNil := func(cmd string, v resp.Value) (bool, error) {
		switch {
		case v.Kind == resp.SimpleString && string(v.Str) == "OK":
			return true, nil
		case isNilReply(v):
			return false, nil
		}
		return false, scUnexpected(cmd, v)
	}
	switch sc.Pattern {
	case cases.PatNaiveGetSet:
		cur, err := get()
		if err != nil {
			return false, err
		}
		nv, err := next(cur)
		if err != nil {
			return false, err
		}
		_, err = w.do([]byte("SET"), key, nv)
		return err == nil, err
	case cases.PatIncr:
		v, err := w.do([]byte("INCR"), key)
		if err == nil && v.Kind != resp.Integer {
			err = scUnexpected("INCR", v)
		}
		return err == nil, err
	case cases.PatLuaIncr:
		v, err := w.do([]byte("EVAL"), []byte(luaIncr), []byte("1"), key, strconv.AppendInt(nil, int64(sc.ValueSize), 10))
		if err == nil && v.Kind != resp.Integer {
			err = scUnexpected("EVAL", v)
		}
		return err == nil, err
	}
	for attempt := 1; attempt <= sc.MaxAttempts; attempt++ {
		if attempt > 1 {
			w.retries++
		}
		var done bool
		switch sc.Pattern {
		case cases.PatIfeqRetry:
			cur, err := get()
			if err != nil {
				return false, err
			}
			nv, err := next(cur)
			if err != nil {
				return false, err
			}
			v, err := w.do([]byte("SET"), key, nv, []byte("IFEQ"), cur)
			if err != nil {
				return false, err
			}
			if done, err = okOrNil("SET IFEQ", v); err != nil {
				return false, err
			}
		case cases.PatIfdeqRetry:
			nv, err := next(w.cur)
			if err != nil {
				return false, err
			}
			v, err := w.do([]byte("SET"), key, nv, []byte("IFDEQ"), w.digest)
			if err != nil {
				return false, err
			}
			if done, err = okOrNil("SET IFDEQ", v); err != nil {
				return false, err
			}
			if done {
				w.cur, w.digest = nv, scDigest(nv)
			} else {
				if w.cur, err = get(); err != nil {
					return false, err
				}
				w.digest = scDigest(w.cur)
			}
		case cases.PatWatchRetry:
			if _, err := w.do([]byte("WATCH"), key); err != nil {
				return false, err
			}
			cur, err := get()
			if err != nil {
				return false, err
			}
			nv, err := next(cur)
			if err != nil {
				return false, err
			}
			if _, err := w.do([]byte("MULTI")); err != nil {
				return false, err
			}
			if _, err := w.do([]byte("SET"), key, nv); err != nil {
				return false, err
			}
			v, err := w.do([]byte("EXEC"))
			if err != nil {
				return false, err
			}
			switch {
			case v.Kind == resp.Array && len(v.Elems) == 1:
				done = true
			case !isNilReply(v):
				return false, scUnexpected("EXEC", v)
			}
		case cases.PatLuaCAS:
			cur, err := get()
			if err != nil {
				return false, err
			}
			nv, err := next(cur)
			if err != nil {
				return false, err
			}
			v, err := w.do([]byte("EVAL"), []byte(luaCAS), []byte("1"), key, cur, nv)
			if err != nil {
				return false, err
			}
			if v.Kind != resp.Integer || v.Int < 0 || v.Int > 1 {
				return false, scUnexpected("EVAL", v)
			}
			done = v.Int == 1
		default:
			return false, fmt.Errorf("pattern %s is not a counter pattern", sc.Pattern)
		}
		if done {
			return true, nil
		}
	}
	w.retries++ // the last failed attempt
	return false, nil
}

// rateLimit runs a rate-limiter pattern with injected crashes.
func (s *scenarioRun) rateLimit(ctx context.Context) (Metrics, error) {
	sc := s.sc
	n := sc.Connections * sc.Iterations
	crash := make([]bool, n)
	if sc.Crash != nil && sc.Crash.Probability > 0 {
		rng := rand.New(rand.NewPCG(sc.Crash.Seed, 0))
		for i := range crash {
			crash[i] = rng.Float64() < sc.Crash.Probability
		}
	}
	ttl := strconv.AppendInt(nil, int64(sc.TTL/time.Second), 10)
	rlKey := func(i int) []byte { return fmt.Appendf(nil, "%srl:%d", s.prefix, i) }
	ws, err := s.workers(ctx, sc.Connections)
	if err != nil {
		return nil, err
	}
	defer scCloseAll(ws)
	dur, err := scParallel(ctx, ws, func(w *scWorker) error {
		idx := slices.Index(ws, w)
		for j := range sc.Iterations {
			i := idx + j*sc.Connections
			start := time.Now()
			done, err := s.request(ctx, w, rlKey(i), ttl, crash[i])
			if err != nil {
				return err
			}
			if done {
				w.ok++
				w.lat = append(w.lat, time.Since(start))
			} else {
				w.crashes++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	check, err := dial(ctx, s.t, "check", s.proto)
	if err != nil {
		return nil, err
	}
	defer check.close()
	var keys, noTTL int
	const batch = 256
	for lo := 0; lo < n; lo += batch {
		var b []byte
		hi := min(n, lo+batch)
		for i := lo; i < hi; i++ {
			b = resp.AppendCommand(b, []byte("TTL"), rlKey(i))
		}
		if err := check.write(s.opts.StepTimeout, b); err != nil {
			return nil, err
		}
		for i := lo; i < hi; i++ {
			v, err := check.readReply(s.opts.StepTimeout, nil)
			if err != nil {
				return nil, fmt.Errorf("TTL: %w", err)
			}
			if v.Kind != resp.Integer {
				return nil, scUnexpected("TTL", v)
			}
			if v.Int != -2 {
				keys++
			}
			if v.Int == -1 {
				noTTL++
			}
		}
	}
	m := Metrics{"connections": float64(sc.Connections), "iterations": float64(sc.Iterations),
		"requests": float64(n), "keys": float64(keys), "no_ttl": float64(noTTL), "duration_ms": scMillis(dur)}
	var completed, crashes, commands int
	var lat []time.Duration
	for _, w := range ws {
		completed += w.ok
		crashes += w.crashes
		commands += w.commands
		lat = append(lat, w.lat...)
	}
	m["completed"], m["crashes"], m["commands"] = float64(completed), float64(crashes), float64(commands)
	m["p50_ms"], m["p99_ms"] = scMillis(scQuantile(lat, 0.50)), scMillis(scQuantile(lat, 0.99))
	return m, nil
}

// request performs one rate-limiter request on key; done is false when
// the client crashed (its connection is then replaced by a new one).
func (s *scenarioRun) request(ctx context.Context, w *scWorker, key, ttl []byte, crash bool) (done bool, err error) {
	die := func() (bool, error) {
		w.c.close()
		c, err := dial(ctx, s.t, w.name, s.proto)
		if err != nil {
			return false, fmt.Errorf("%s: reconnect after the crash: %w", w.name, err)
		}
		w.c = c
		return false, nil
	}
	wantInt := func(cmd string, v resp.Value) error {
		if v.Kind != resp.Integer {
			return scUnexpected(cmd, v)
		}
		return nil
	}
	switch s.sc.Pattern {
	case cases.PatIncrExpire:
		v, err := w.do([]byte("INCR"), key)
		if err != nil {
			return false, err
		}
		if err := wantInt("INCR", v); err != nil {
			return false, err
		}
		first := v.Int == 1
		if crash {
			return die()
		}
		if first {
			v, err := w.do([]byte("EXPIRE"), key, ttl)
			if err != nil {
				return false, err
			}
			if err := wantInt("EXPIRE", v); err != nil {
				return false, err
			}
		}
		return true, nil
	case cases.PatMultiIncrExpire:
		for _, args := range [][][]byte{{[]byte("MULTI")}, {[]byte("INCR"), key}, {[]byte("EXPIRE"), key, ttl}} {
			if _, err := w.do(args...); err != nil {
				return false, err
			}
		}
		if crash {
			return die()
		}
		v, err := w.do([]byte("EXEC"))
		if err != nil {
			return false, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return false, scUnexpected("EXEC", v)
		}
		return true, nil
	}
	if crash { // one-command patterns: the crash lands before the request
		return die()
	}
	switch s.sc.Pattern {
	case cases.PatSetEx:
		v, err := w.do([]byte("SET"), key, []byte("1"), []byte("EX"), ttl, []byte("NX"))
		if err != nil {
			return false, err
		}
		if isNilReply(v) { // the window exists: INCR keeps its TTL
			v, err = w.do([]byte("INCR"), key)
			if err != nil {
				return false, err
			}
			return true, wantInt("INCR", v)
		}
		if v.Kind != resp.SimpleString {
			return false, scUnexpected("SET", v)
		}
	case cases.PatLuaIncrExpire:
		v, err := w.do([]byte("EVAL"), []byte(luaIncrExpire), []byte("1"), key, ttl)
		if err != nil {
			return false, err
		}
		return true, wantInt("EVAL", v)
	case cases.PatIncrex:
		v, err := w.do([]byte("INCREX"), key, []byte("EX"), ttl, []byte("BYINT"), []byte("1"))
		if err != nil {
			return false, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return false, scUnexpected("INCREX", v)
		}
	default:
		return false, fmt.Errorf("pattern %s is not a rate-limiter pattern", s.sc.Pattern)
	}
	return true, nil
}

// scQuantile returns the q-quantile (nearest rank) of ds, or 0.
func scQuantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

func scMillis(d time.Duration) float64 { return scRound3(float64(d.Nanoseconds()) / 1e6) }

func scRound3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
