package scenario

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// The scripts of the Lua patterns. Redis and Valkey run scripts atomically.
const (
	luaCAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`
	// luaIncr increments a counterValue in place, keeping its format.
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
)

// counterValue is the value holding counter n: its decimal text when size
// is 0, else a JSON blob {"counter":n,"pad":"xx..."} padded to size bytes
// (longer if size is too small for the counter).
func counterValue(n int64, size int) []byte {
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

// parseCounter reads a counterValue.
func parseCounter(b []byte) (int64, error) {
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

// digest is the XXH3-64 digest of b as DIGEST and IFDEQ write it: 16
// lowercase hex digits.
func digest(b []byte) []byte {
	return fmt.Appendf(nil, "%016x", xxh3.Hash(b))
}

// counter runs a counter pattern on the hot key.
func (r *run) counter(ctx context.Context) (Metrics, error) {
	sc := r.sc
	setup, err := r.dial(ctx, "setup")
	if err != nil {
		return nil, err
	}
	defer setup.c.Close()
	initial := counterValue(0, sc.ValueSize)
	if err := setup.init(initial); err != nil {
		return nil, err
	}
	ws, err := r.workers(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll(ws)
	for _, w := range ws {
		w.cur, w.digest = initial, digest(initial)
	}
	dur, err := r.parallel(ctx, ws, func(w *worker) error {
		for range sc.Iterations {
			start := time.Now()
			ok, err := w.update()
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
	v, err := setup.do([]byte("GET"), r.key)
	if err != nil {
		return nil, err
	}
	final, err := parseCounter(v.Str)
	if err != nil {
		return nil, fmt.Errorf("final value: %w", err)
	}
	return r.counterMetrics(dur, sum(ws), final), nil
}

// init writes the initial value of the hot key. For ifdeq-retry it sends
// the one DIGEST of the scenario: the server's digest must be the XXH3-64
// the workers compute for every later value.
func (w *worker) init(initial []byte) error {
	if _, err := w.do([]byte("SET"), w.r.key, initial); err != nil {
		return err
	}
	if w.r.sc.Pattern != cases.PatIfdeqRetry {
		return nil
	}
	v, err := w.do([]byte("DIGEST"), w.r.key)
	if err != nil {
		return err
	}
	if want := digest(initial); !bytes.EqualFold(v.Str, want) {
		return fmt.Errorf("DIGEST answered %s but the XXH3-64 of the value is %s", resp.Escape(v.Raw), want)
	}
	return nil
}

// update performs one update of a counter pattern; ok is false when it
// gave up after MaxAttempts.
func (w *worker) update() (ok bool, err error) {
	key := w.r.key
	var attempt func() (bool, error)
	switch w.r.sc.Pattern {
	case cases.PatNaiveGetSet:
		_, nv, err := w.getNext()
		if err == nil {
			_, err = w.do([]byte("SET"), key, nv)
		}
		return err == nil, err
	case cases.PatIncr:
		_, err := w.doInt([]byte("INCR"), key)
		return err == nil, err
	case cases.PatLuaIncr:
		_, err := w.doInt([]byte("EVAL"), []byte(luaIncr), []byte("1"), key, strconv.AppendInt(nil, int64(w.r.sc.ValueSize), 10))
		return err == nil, err
	case cases.PatIfeqRetry:
		attempt = w.ifeqAttempt
	case cases.PatIfdeqRetry:
		attempt = w.ifdeqAttempt
	case cases.PatWatchRetry:
		attempt = w.watchAttempt
	case cases.PatLuaCAS:
		attempt = w.luaCASAttempt
	default:
		return false, fmt.Errorf("pattern %s is not a counter pattern", w.r.sc.Pattern)
	}
	for i := 1; i <= w.r.sc.MaxAttempts; i++ {
		if i > 1 {
			w.retries++
			if b := w.r.sc.Backoff; b > 0 {
				time.Sleep(rand.N(b))
			}
		}
		if done, err := attempt(); err != nil || done {
			return done, err
		}
	}
	w.retries++ // the last failed attempt
	return false, nil
}

// get reads the hot key.
func (w *worker) get() ([]byte, error) {
	v, err := w.do([]byte("GET"), w.r.key)
	if err != nil {
		return nil, err
	}
	if v.Kind != resp.BlobString {
		return nil, unexpected("GET", v)
	}
	return bytes.Clone(v.Str), nil
}

// next returns the value after cur: its counter plus one.
func (w *worker) next(cur []byte) ([]byte, error) {
	n, err := parseCounter(cur)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, err)
	}
	return counterValue(n+1, w.r.sc.ValueSize), nil
}

// getNext reads the hot key and returns its value and the one after.
func (w *worker) getNext() (cur, next []byte, err error) {
	if cur, err = w.get(); err != nil {
		return nil, nil, err
	}
	next, err = w.next(cur)
	return cur, next, err
}

// okOrNil reads a conditional SET's reply: +OK, or nil when the condition
// failed.
func okOrNil(cmd string, v resp.Value) (bool, error) {
	switch {
	case v.Kind == resp.SimpleString && string(v.Str) == "OK":
		return true, nil
	case isNilReply(v):
		return false, nil
	}
	return false, unexpected(cmd, v)
}

// ifeqAttempt: GET, then SET new IFEQ old.
func (w *worker) ifeqAttempt() (bool, error) {
	cur, nv, err := w.getNext()
	if err != nil {
		return false, err
	}
	v, err := w.do([]byte("SET"), w.r.key, nv, []byte("IFEQ"), cur)
	if err != nil {
		return false, err
	}
	return okOrNil("SET IFEQ", v)
}

// ifdeqAttempt: SET new IFDEQ digest of the value last seen; on a nil
// reply, GET the value for the next attempt.
func (w *worker) ifdeqAttempt() (bool, error) {
	nv, err := w.next(w.cur)
	if err != nil {
		return false, err
	}
	v, err := w.do([]byte("SET"), w.r.key, nv, []byte("IFDEQ"), w.digest)
	if err != nil {
		return false, err
	}
	done, err := okOrNil("SET IFDEQ", v)
	if err != nil {
		return false, err
	}
	if done {
		w.cur, w.digest = nv, digest(nv)
		return true, nil
	}
	if w.cur, err = w.get(); err != nil {
		return false, err
	}
	w.digest = digest(w.cur)
	return false, nil
}

// watchAttempt: WATCH, GET, then MULTI, SET and EXEC written at once, as
// ioredis's multi().exec() sends them: three round trips per attempt, as
// the Lua article counts them ("A WATCH attempt takes three round trips").
func (w *worker) watchAttempt() (bool, error) {
	if _, err := w.do([]byte("WATCH"), w.r.key); err != nil {
		return false, err
	}
	_, nv, err := w.getNext()
	if err != nil {
		return false, err
	}
	v, err := w.transaction([]byte("SET"), w.r.key, nv)
	if err != nil {
		return false, err
	}
	switch {
	case v.Kind == resp.Array && len(v.Elems) == 1:
		return true, nil
	case !isNilReply(v):
		return false, unexpected("EXEC", v)
	}
	return false, nil
}

// transaction writes MULTI, the command and EXEC in one write and returns
// EXEC's reply (valid until the next command): +OK and +QUEUED are checked
// on the way, an error reply to any of the three is an error.
func (w *worker) transaction(args ...[]byte) (resp.Value, error) {
	if w.r.stopped.Load() {
		return resp.Value{}, errStopped
	}
	w.buf = resp.AppendCommand(w.buf[:0], []byte("MULTI"))
	w.buf = resp.AppendCommand(w.buf, args...)
	w.buf = resp.AppendCommand(w.buf, []byte("EXEC"))
	w.commands += 3
	w.bytes += len(w.buf)
	v, err := w.c.DoBytes(w.buf)
	names := [3]string{"MULTI", string(args[0]), "EXEC"}
	for i, want := range [3]string{"OK", "QUEUED", ""} {
		name := names[i]
		if i > 0 && err == nil {
			v, err = w.c.Next()
		}
		switch {
		case err != nil:
			return v, fmt.Errorf("%s: %s: %w", w.name, name, err)
		case target.IsError(v):
			return v, fmt.Errorf("%s: %s: server replied %s", w.name, name, resp.Escape(v.Raw))
		case want != "" && (v.Kind != resp.SimpleString || string(v.Str) != want):
			return v, unexpected(name, v)
		}
	}
	return v, nil
}

// luaCASAttempt: GET, then EVAL of the compare-and-set script.
func (w *worker) luaCASAttempt() (bool, error) {
	cur, nv, err := w.getNext()
	if err != nil {
		return false, err
	}
	v, err := w.do([]byte("EVAL"), []byte(luaCAS), []byte("1"), w.r.key, cur, nv)
	if err != nil {
		return false, err
	}
	if v.Kind != resp.Integer || v.Int < 0 || v.Int > 1 {
		return false, unexpected("EVAL", v)
	}
	return v.Int == 1, nil
}
