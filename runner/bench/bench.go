package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Options configure a bench run. Addr is required.
type Options struct {
	// Target is how to reach the server (address, credentials, database,
	// TLS); its Timeout is the deadline of one command, 0 meaning 10s.
	Target target.Config
	// Proto is 2 (the default: no HELLO) or 3.
	Proto int
	// Trials is the number of timed trials per cell; 0 means 50 (5 with
	// Quick).
	Trials int
	// Warmup is the number of untimed trials before them; 0 means 5 (1 with
	// Quick); a negative value means none.
	Warmup int
	// Quick keeps every table and row but takes few trials: for tests.
	Quick bool
	// ServerPID, if known (a spawned server), lets the report say which CPUs
	// the server may run on.
	ServerPID int
	// Progress, if set, is called with each table's title as it starts.
	Progress func(title string)
	// Link, if not zero, puts a Link with this configuration between the
	// bench and the target (plain TCP only): every connection, the
	// identification's too, goes through it.
	Link LinkConfig
	// Tables, if not empty, runs only the tables of these IDs (TableIDs)
	// in the usual order; an unknown ID is an error.
	Tables []string
	// Durable, if set, is the address of a second server of the same
	// build started with appendonly yes and appendfsync always (never the
	// user's server reconfigured): the write table is measured against it
	// too, as table batch-aof-always. Without it that table is left out.
	Durable string
	// Throwaway says the target is a server respcheck started for this run:
	// the script tables may then CONFIG SET busy-reply-threshold (restored
	// after) and send SCRIPT KILL (table script-kill). On any other target
	// they read the threshold and change nothing.
	Throwaway bool
}

// TableIDs are the IDs of the experiments in the order Run runs them;
// "contention" stands for every contention table (contentionMetrics),
// "increx" for increx-contention and increx-crash, "scripts" for
// script-pairs, script-drop, script-stall, script-busy and script-kill.
var TableIDs = []string{"overwrite", "digest", "incr-expire", "batch", "batch-read", "batch-aof-always", "contention",
	"increx", "scripts"}

// Sizes and batch sizes of the tables.
var (
	overwriteSizes = []int{100, 10_000, 100_000, 1_000_000}
	digestSizes    = []int{100, 10_000, 100_000, 1_000_000, 10_000_000}
	batchSizes     = []int{1, 2, 10, 100, 1000}
)

// notSupported is the note of a cell whose method the server lacks.
const notSupported = "not supported by this server"

type bencher struct {
	// t answers COMMAND INFO for the tables that need a command.
	t      *target.Target
	ctx    context.Context
	o      Options
	c      *client
	prefix string
	trials int
	warmup int
	n      int // key counter
	// clock is the busy loops' clock of the script tables (scriptClock).
	clock string
}

// Run measures every table against o.Target. It returns an error only when
// the target cannot be reached or a command fails; a method the server
// lacks is a cell marked notSupported.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Target.Addr == "" {
		return nil, errors.New("bench: Options.Addr is empty")
	}
	if o.Proto == 0 {
		o.Proto = 2
	}
	if o.Target.Timeout <= 0 {
		o.Target.Timeout = 10 * time.Second
	}
	for _, id := range o.Tables {
		if !slices.Contains(TableIDs, id) {
			return nil, fmt.Errorf("bench: unknown table %q (want one of %s)", id, strings.Join(TableIDs, ", "))
		}
	}
	addr := o.Target.Addr
	if !o.Link.IsZero() {
		if o.Target.TLS != nil {
			return nil, errors.New("bench: a link does not relay TLS")
		}
		l, err := NewLink(addr, o.Link)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		o.Target.Addr = l.Addr()
	}
	b := &bencher{o: o, trials: o.Trials, warmup: o.Warmup, ctx: ctx}
	if b.trials <= 0 {
		b.trials = 50
		if o.Quick {
			b.trials = 5
		}
	}
	switch {
	case b.warmup < 0:
		b.warmup = 0
	case b.warmup == 0 && o.Quick:
		b.warmup = 1
	case b.warmup == 0:
		b.warmup = 5
	}
	var salt [4]byte
	rand.Read(salt[:])
	b.prefix = "rcbench:{" + hex.EncodeToString(salt[:]) + "}:"
	c, err := dial(ctx, &o)
	if err != nil {
		return nil, &target.Error{Err: err}
	}
	defer c.close()
	b.c = c
	tg, err := target.Open(ctx, o.Target)
	if err != nil {
		return nil, &target.Error{Err: err}
	}
	srv := tg.Server
	srv.Addr = addr
	b.t = tg
	rep := &Report{Server: srv, Proto: o.Proto, Trials: b.trials, Warmup: b.warmup,
		Machine: newMachine(o.ServerPID), Started: time.Now(), Link: o.Link.String()}
	if rep.RTT, err = b.rtt(); err != nil {
		return nil, err
	}
	rep.Config = b.serverConfig()
	// The final cleanup runs on a new connection: an interrupt (Ctrl-C)
	// may have cut b.c in the middle of a command.
	defer func() {
		if c2, err := dial(context.WithoutCancel(ctx), &b.o); err == nil {
			b.c = c2
			defer c2.close()
		}
		b.cleanup()
	}()
	one := func(f func() (*Table, error)) func() ([]*Table, error) {
		return func() ([]*Table, error) {
			t, err := f()
			return []*Table{t}, err
		}
	}
	for i, t := range []func() ([]*Table, error){one(b.overwrite), one(b.digest), one(b.incrExpire), one(b.batch),
		one(b.batchRead), one(b.batchDurable), b.contention, b.increx, b.scripts} {
		if len(o.Tables) > 0 && !slices.Contains(o.Tables, TableIDs[i]) || TableIDs[i] == "batch-aof-always" && o.Durable == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tabs, err := t()
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, err
		}
		for _, tab := range tabs {
			tab.Claims = judge(tab)
		}
		rep.Tables = append(rep.Tables, tabs...)
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

func (b *bencher) progress(title string) {
	if b.o.Progress != nil {
		b.o.Progress(title)
	}
}

func (b *bencher) key(name string) []byte {
	b.n++
	return []byte(b.prefix + name + ":" + strconv.Itoa(b.n))
}

// cleanup removes every key of the run (only keys with the run's prefix,
// whatever SCAN returns, and at most 100,000 SCAN rounds).
func (b *bencher) cleanup() {
	cursor := "0"
	for round := 0; round < 100000; round++ {
		v, err := b.c.doString("SCAN", cursor, "MATCH", b.prefix+"*", "COUNT", "1000")
		if err != nil || v.Kind != resp.Array || len(v.Elems) != 2 {
			return
		}
		cursor = string(v.Elems[0].Str)
		if len(v.Elems[1].Elems) > 0 {
			args := [][]byte{[]byte("UNLINK")}
			for _, k := range v.Elems[1].Elems {
				if strings.HasPrefix(string(k.Str), b.prefix) {
					args = append(args, slices.Clone(k.Str))
				}
			}
			if len(args) > 1 {
				if _, err := b.c.do(args...); err != nil {
					return
				}
			}
		}
		if cursor == "0" {
			return
		}
	}
}

// op is one timed operation; it returns an error if the server answered
// other than expected.
type op func() error

// measure runs the ops of a row interleaved, warm-up first, and returns
// one Stat per op; unit converts a duration to the table's unit; per
// divides each trial (a batch of per items).
func (b *bencher) measure(ops []op, unit time.Duration, per int) ([]Stat, error) {
	ds := make([][]float64, len(ops))
	sent := make([]int64, len(ops))
	recv := make([]int64, len(ops))
	for t := range b.warmup + b.trials {
		for i, f := range ops {
			if f == nil {
				continue
			}
			s0, r0 := b.c.sent, b.c.recv
			start := time.Now()
			if err := f(); err != nil {
				return nil, err
			}
			d := time.Since(start)
			if t >= b.warmup {
				ds[i] = append(ds[i], float64(d)/float64(unit)/float64(per))
				sent[i] += b.c.sent - s0
				recv[i] += b.c.recv - r0
			}
		}
	}
	stats := make([]Stat, len(ops))
	for i, f := range ops {
		if f == nil {
			stats[i] = Stat{Note: notSupported}
			continue
		}
		stats[i] = summarize(ds[i])
		n := float64(len(ds[i]) * per)
		stats[i].RequestBytes = float64(sent[i]) / n
		stats[i].ReplyBytes = float64(recv[i]) / n
	}
	return stats, nil
}

// value returns size deterministic bytes, different for each variant.
func value(size int, variant byte) []byte {
	v := make([]byte, size)
	for i := range v {
		v[i] = 'a' + byte((i+int(variant)*7)%26)
	}
	if size > 0 {
		v[0] = '0' + variant
	}
	return v
}

func digestOf(b []byte) []byte { return fmt.Appendf(nil, "%016x", xxh3.Hash(b)) }

const luaCAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`

// supportsIFDEQ reports whether SET accepts IFDEQ (a probe on a missing
// key answers nil where it does, an error where it does not).
func (b *bencher) supportsIFDEQ() (bool, error) {
	_, err := b.c.do([]byte("SET"), b.key("probe"), []byte("v"), []byte("IFDEQ"), []byte("0000000000000000"))
	var re *replyError
	if errors.As(err, &re) {
		return false, nil
	}
	return err == nil, err
}

func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + " MB"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + " KB"
	}
	return strconv.Itoa(n) + " B"
}

// overwrite: a conditional overwrite of a value of each size, the old value
// known client-side (seed 000's table).
func (b *bencher) overwrite() (*Table, error) {
	tab := &Table{ID: "overwrite", Title: "Conditional overwrite by value size", Unit: "ms",
		RowHeader: "size", Columns: []string{"GET-then-SET", "Lua CAS", "SET IFDEQ"}, ShowBytes: true,
		Note: "each trial replaces the value with another of the same size, the current one known client-side: " +
			"GET then compare then SET; EVAL of a compare-and-set script sent the old and new values; " +
			"SET IFDEQ with the XXH3 digest of the old value (16 bytes)"}
	b.progress(tab.Title)
	ifdeq, err := b.supportsIFDEQ()
	if err != nil {
		return nil, err
	}
	for _, size := range overwriteSizes {
		vals := [2][]byte{value(size, 1), value(size, 2)}
		keys := [3][]byte{b.key("ow"), b.key("ow"), b.key("ow")}
		state := [3]int{} // index into vals of each key's current value
		for _, k := range keys {
			if _, err := b.c.do([]byte("SET"), k, vals[0]); err != nil {
				return nil, err
			}
		}
		flip := func(i int) ([]byte, []byte) {
			cur, next := vals[state[i]], vals[1-state[i]]
			state[i] = 1 - state[i]
			return cur, next
		}
		ops := []op{
			func() error {
				cur, next := flip(0)
				v, err := b.c.do([]byte("GET"), keys[0])
				if err != nil {
					return err
				}
				if err := want("GET", v, v.Kind == resp.BlobString && string(v.Str) == string(cur)); err != nil {
					return err
				}
				v, err = b.c.do([]byte("SET"), keys[0], next)
				if err != nil {
					return err
				}
				return want("SET", v, isOK(v))
			},
			func() error {
				cur, next := flip(1)
				v, err := b.c.do([]byte("EVAL"), []byte(luaCAS), []byte("1"), keys[1], cur, next)
				if err != nil {
					return err
				}
				return want("EVAL", v, v.Kind == resp.Integer && v.Int == 1)
			},
			func() error {
				cur, next := flip(2)
				v, err := b.c.do([]byte("SET"), keys[2], next, []byte("IFDEQ"), digestOf(cur))
				if err != nil {
					return err
				}
				return want("SET IFDEQ", v, isOK(v))
			},
		}
		if !ifdeq {
			ops[2] = nil
		}
		stats, err := b.measure(ops, time.Millisecond, 1)
		if err != nil {
			return nil, err
		}
		tab.Rows = append(tab.Rows, Row{Label: sizeLabel(size), X: float64(size), Cells: stats})
		if _, err := b.c.do([]byte("UNLINK"), keys[0], keys[1], keys[2]); err != nil {
			return nil, err
		}
	}
	return tab, nil
}

// digest: DIGEST latency by value size (seed 000's second table).
func (b *bencher) digest() (*Table, error) {
	tab := &Table{ID: "digest", Title: "DIGEST latency by value size", Unit: "ms", RowHeader: "size",
		Columns: []string{"DIGEST"}, Note: "DIGEST reads every byte of the value to hash it"}
	b.progress(tab.Title)
	has, err := b.t.HasCommand(b.ctx, "DIGEST")
	if err != nil {
		return nil, err
	}
	for _, size := range digestSizes {
		k := b.key("dg")
		var f op
		if has {
			val := value(size, 3)
			if _, err := b.c.do([]byte("SET"), k, val); err != nil {
				return nil, err
			}
			d := digestOf(val)
			f = func() error {
				v, err := b.c.do([]byte("DIGEST"), k)
				if err != nil {
					return err
				}
				return want("DIGEST", v, v.Kind == resp.BlobString && string(v.Str) == string(d))
			}
		}
		stats, err := b.measure([]op{f}, time.Millisecond, 1)
		if err != nil {
			return nil, err
		}
		tab.Rows = append(tab.Rows, Row{Label: sizeLabel(size), X: float64(size), Cells: stats})
		if has {
			if _, err := b.c.do([]byte("UNLINK"), k); err != nil {
				return nil, err
			}
		}
	}
	return tab, nil
}

const luaIncrExpire = `local v = redis.call('INCR', KEYS[1]) if v == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return v`

// incrExpire: a rate limiter's first hit on a fresh key (seed 003's tables).
func (b *bencher) incrExpire() (*Table, error) {
	tab := &Table{ID: "incr-expire", Title: "Rate limiter: INCR and EXPIRE on a fresh key", Unit: "ms",
		RowHeader: "variant", Columns: []string{"per request"},
		Note: "blocking: INCR, then EXPIRE when it answered 1 (two round trips); pipelined: both in one write; " +
			"one command: EVAL of INCR plus EXPIRE, or INCREX key EX 60 BYINT 1"}
	b.progress(tab.Title)
	hasIncrex, err := b.t.HasCommand(b.ctx, "INCREX")
	if err != nil {
		return nil, err
	}
	ttl := []byte("60")
	incr, expire, eval := []byte("INCR"), []byte("EXPIRE"), []byte("EVAL")
	variants := []struct {
		label string
		f     op
	}{
		{"INCR + EXPIRE, blocking", func() error {
			k := b.key("ie")
			v, err := b.c.do(incr, k)
			if err != nil {
				return err
			}
			if v.Int == 1 {
				v, err = b.c.do(expire, k, ttl)
			}
			return err
		}},
		{"INCR + EXPIRE, pipelined", func() error {
			k := b.key("ie")
			if err := b.c.send(incr, k); err != nil {
				return err
			}
			if err := b.c.send(expire, k, ttl); err != nil {
				return err
			}
			if err := b.c.flush(); err != nil {
				return err
			}
			if _, err := b.c.read(incr); err != nil {
				return err
			}
			_, err := b.c.read(expire)
			return err
		}},
		{"Lua INCR + EXPIRE", func() error {
			v, err := b.c.do(eval, []byte(luaIncrExpire), []byte("1"), b.key("ie"), ttl)
			if err != nil {
				return err
			}
			return want("EVAL", v, v.Kind == resp.Integer && v.Int == 1)
		}},
		{"INCREX", nil},
	}
	if hasIncrex {
		variants[3].f = func() error {
			v, err := b.c.do([]byte("INCREX"), b.key("ie"), []byte("EX"), ttl, []byte("BYINT"), []byte("1"))
			if err != nil {
				return err
			}
			return want("INCREX", v, v.Kind == resp.Array && len(v.Elems) == 2)
		}
	}
	for i, v := range variants {
		stats, err := b.measure([]op{v.f}, time.Millisecond, 1)
		if err != nil {
			return nil, err
		}
		tab.Rows = append(tab.Rows, Row{Label: v.label, X: float64(i), Cells: stats})
	}
	b.cleanup()
	return tab, nil
}
