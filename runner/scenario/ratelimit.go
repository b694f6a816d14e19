package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// luaIncrExpire is the script of lua-incr-expire.
const luaIncrExpire = `local v = redis.call('INCR', KEYS[1])
if v == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return v`

// rateLimit runs a rate-limiter pattern with injected crashes.
func (r *run) rateLimit(ctx context.Context) (Metrics, error) {
	sc := r.sc
	n := sc.Connections * sc.Iterations
	crash := make([]bool, n)
	if sc.Crash != nil && sc.Crash.Probability > 0 {
		rng := rand.New(rand.NewPCG(sc.Crash.Seed, 0))
		for i := range crash {
			crash[i] = rng.Float64() < sc.Crash.Probability
		}
	}
	ttl := strconv.AppendInt(nil, int64(sc.TTL/time.Second), 10)
	ws, err := r.workers(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll(ws)
	dur, err := r.parallel(ctx, ws, func(w *worker) error {
		for j := range sc.Iterations {
			i := w.idx + j*sc.Connections
			start := time.Now()
			done, err := w.request(ctx, r.rlKey(i), ttl, crash[i])
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
	if sc.OneKey {
		n = 1
	}
	keys, noTTL, err := r.countKeys(ctx, n)
	if err != nil {
		return nil, err
	}
	return r.rateLimitMetrics(dur, sum(ws), keys, noTTL), nil
}

// rlKey is the key of request i ({prefix}rl:0 for every request when
// OneKey is set).
func (r *run) rlKey(i int) []byte {
	if r.sc.OneKey {
		i = 0
	}
	return fmt.Appendf(nil, "%srl:%d", r.prefix, i)
}

// countKeys asks the TTL of the n request keys, pipelined in batches, and
// counts those that exist and those without an expiry.
func (r *run) countKeys(ctx context.Context, n int) (keys, noTTL int, err error) {
	check, err := r.cfg.Dial(ctx, r.proto)
	if err != nil {
		return 0, 0, err
	}
	defer check.Close()
	const batch = 256
	for lo := 0; lo < n; lo += batch {
		var b []byte
		hi := min(n, lo+batch)
		for i := lo; i < hi; i++ {
			b = resp.AppendCommand(b, []byte("TTL"), r.rlKey(i))
		}
		for i := lo; i < hi; i++ {
			// The first DoBytes sends the batch; the others send nothing and
			// read the next reply.
			v, err := check.DoBytes(b)
			b = nil
			if err != nil {
				return 0, 0, fmt.Errorf("TTL: %w", err)
			}
			if v.Kind != resp.Integer {
				return 0, 0, unexpected("TTL", v)
			}
			if v.Int != -2 {
				keys++
			}
			if v.Int == -1 {
				noTTL++
			}
		}
	}
	return keys, noTTL, nil
}

// request performs one rate-limiter request on key; done is false when
// the client crashed (its connection is then replaced by a new one).
func (w *worker) request(ctx context.Context, key, ttl []byte, crash bool) (done bool, err error) {
	switch w.r.sc.Pattern {
	case cases.PatIncrExpire:
		return w.incrExpire(ctx, key, ttl, crash)
	case cases.PatMultiIncrExpire:
		return w.multiIncrExpire(ctx, key, ttl, crash)
	}
	if crash { // one-command patterns: the crash lands before the request
		return false, w.crash(ctx)
	}
	switch w.r.sc.Pattern {
	case cases.PatSetEx:
		v, err := w.do([]byte("SET"), key, []byte("1"), []byte("EX"), ttl, []byte("NX"))
		if err != nil {
			return false, err
		}
		if isNilReply(v) { // the window exists: INCR keeps its TTL
			_, err = w.doInt([]byte("INCR"), key)
			return true, err
		}
		if v.Kind != resp.SimpleString {
			return false, unexpected("SET", v)
		}
	case cases.PatLuaIncrExpire:
		_, err := w.doInt([]byte("EVAL"), []byte(luaIncrExpire), []byte("1"), key, ttl)
		return true, err
	case cases.PatIncrex:
		v, err := w.do([]byte("INCREX"), key, []byte("EX"), ttl, []byte("BYINT"), []byte("1"))
		if err != nil {
			return false, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return false, unexpected("INCREX", v)
		}
	default:
		return false, fmt.Errorf("pattern %s is not a rate-limiter pattern", w.r.sc.Pattern)
	}
	return true, nil
}

// incrExpire: INCR, then EXPIRE when INCR answered 1; a crash lands
// between the two.
func (w *worker) incrExpire(ctx context.Context, key, ttl []byte, crash bool) (bool, error) {
	v, err := w.doInt([]byte("INCR"), key)
	if err != nil {
		return false, err
	}
	first := v.Int == 1
	if crash {
		return false, w.crash(ctx)
	}
	if first {
		if _, err := w.doInt([]byte("EXPIRE"), key, ttl); err != nil {
			return false, err
		}
	}
	return true, nil
}

// multiIncrExpire: MULTI, INCR, EXPIRE, EXEC; a crash lands before EXEC.
func (w *worker) multiIncrExpire(ctx context.Context, key, ttl []byte, crash bool) (bool, error) {
	for _, args := range [][][]byte{{[]byte("MULTI")}, {[]byte("INCR"), key}, {[]byte("EXPIRE"), key, ttl}} {
		if _, err := w.do(args...); err != nil {
			return false, err
		}
	}
	if crash {
		return false, w.crash(ctx)
	}
	v, err := w.do([]byte("EXEC"))
	if err != nil {
		return false, err
	}
	if v.Kind != resp.Array || len(v.Elems) != 2 {
		return false, unexpected("EXEC", v)
	}
	return true, nil
}

// crash closes the worker's connection, as a client that dies does, and
// dials its replacement.
func (w *worker) crash(ctx context.Context) error {
	w.c.Close()
	c, err := w.r.cfg.Dial(ctx, w.r.proto)
	if err != nil {
		return fmt.Errorf("%s: reconnect after the crash: %w", w.name, err)
	}
	w.mu.Lock()
	w.c = c
	w.mu.Unlock()
	return nil
}
