package bench

import (
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// batchKeys returns the n keys, the n fields and the hash of a row of the
// batch tables.
func (b *bencher) batchKeys(n int) (keys, fields [][]byte, hash []byte) {
	keys = make([][]byte, n)
	fields = make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(b.prefix + "b:" + strconv.Itoa(i))
		fields[i] = []byte("f" + strconv.Itoa(i))
	}
	return keys, fields, []byte(b.prefix + "h")
}

// batch: per-item cost of SET and HSET (one round trip per item) against
// MSET and HMSET (one command per batch), by batch size (seed 002).
func (b *bencher) batch() (*Table, error) {
	tab := &Table{ID: "batch", Title: "Per-item write cost by batch size", Unit: "µs per item",
		RowHeader: "items", Columns: []string{"SET", "HSET", "MSET", "HMSET"},
		Note: "SET and HSET: one blocking command per item; MSET and HMSET: one command per batch; 10-byte values"}
	val := []byte("0123456789")
	return b.batchTable(tab, func(n int) ([]op, error) {
		keys, fields, hash := b.batchKeys(n)
		set, hset := []byte("SET"), []byte("HSET")
		mset := [][]byte{[]byte("MSET")}
		hmset := [][]byte{[]byte("HMSET"), hash}
		for i := range keys {
			mset = append(mset, keys[i], val)
			hmset = append(hmset, fields[i], val)
		}
		return []op{
			func() error {
				for _, k := range keys {
					if _, err := b.c.do(set, k, val); err != nil {
						return err
					}
				}
				return nil
			},
			func() error {
				for _, f := range fields {
					if _, err := b.c.do(hset, hash, f, val); err != nil {
						return err
					}
				}
				return nil
			},
			func() error { _, err := b.c.do(mset...); return err },
			func() error { _, err := b.c.do(hmset...); return err },
		}, nil
	})
}

// batchTable fills tab with one row per batchSizes: rowOps returns the
// row's ops (one per column), each trial a batch of n items; the run's
// keys are removed afterwards.
func (b *bencher) batchTable(tab *Table, rowOps func(n int) ([]op, error)) (*Table, error) {
	b.progress(tab.Title)
	for _, n := range batchSizes {
		ops, err := rowOps(n)
		if err != nil {
			return nil, err
		}
		stats, err := b.measure(ops, time.Microsecond, n)
		if err != nil {
			return nil, err
		}
		tab.Rows = append(tab.Rows, Row{Label: strconv.Itoa(n), X: float64(n), Cells: stats})
	}
	b.cleanup()
	return tab, nil
}

// batchRead: per-item cost of GET and HGET (one round trip per item)
// against MGET and HMGET (one command per batch), by batch size, beside
// the write table (seed 002's read table).
func (b *bencher) batchRead() (*Table, error) {
	tab := &Table{ID: "batch-read", Title: "Per-item read cost by batch size", Unit: "µs per item",
		RowHeader: "items", Columns: []string{"GET", "HGET", "MGET", "HMGET"},
		Note: "GET and HGET: one blocking command per item; MGET and HMGET: one command per batch; " +
			"10-byte values written before the row"}
	val := []byte("0123456789")
	return b.batchTable(tab, func(n int) ([]op, error) {
		keys, fields, hash := b.batchKeys(n)
		mset := [][]byte{[]byte("MSET")}
		hset := [][]byte{[]byte("HSET"), hash}
		mget := [][]byte{[]byte("MGET")}
		hmget := [][]byte{[]byte("HMGET"), hash}
		for i := range keys {
			mset = append(mset, keys[i], val)
			hset = append(hset, fields[i], val)
			mget = append(mget, keys[i])
			hmget = append(hmget, fields[i])
		}
		if _, err := b.c.do(mset...); err != nil {
			return nil, err
		}
		if _, err := b.c.do(hset...); err != nil {
			return nil, err
		}
		get, hget := []byte("GET"), []byte("HGET")
		isVal := func(v resp.Value) bool { return v.Kind == resp.BlobString && string(v.Str) == string(val) }
		all := func(v resp.Value) bool { return v.Kind == resp.Array && len(v.Elems) == n && isVal(v.Elems[n-1]) }
		return []op{
			func() error {
				for _, k := range keys {
					v, err := b.c.do(get, k)
					if err != nil {
						return err
					}
					if err := want("GET", v, isVal(v)); err != nil {
						return err
					}
				}
				return nil
			},
			func() error {
				for _, f := range fields {
					v, err := b.c.do(hget, hash, f)
					if err != nil {
						return err
					}
					if err := want("HGET", v, isVal(v)); err != nil {
						return err
					}
				}
				return nil
			},
			func() error { v, err := b.c.do(mget...); return firstErr(err, want("MGET", v, err == nil && all(v))) },
			func() error { v, err := b.c.do(hmget...); return firstErr(err, want("HMGET", v, err == nil && all(v))) },
		}, nil
	})
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// batchDurable is the write table against Options.Durable (a server
// started with appendonly yes and appendfsync always), through a Link of
// its own when Options.Link is set. Its note names the durable server's
// configuration as CONFIG GET answers it there.
func (b *bencher) batchDurable() (*Table, error) {
	cfg := b.o.Target
	cfg.Addr = b.o.Durable
	if !b.o.Link.IsZero() {
		l, err := NewLink(cfg.Addr, b.o.Link)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		cfg.Addr = l.Addr()
	}
	o := b.o
	o.Target = cfg
	c, err := dial(b.ctx, &o)
	if err != nil {
		return nil, &target.Error{Err: err}
	}
	shared := b.c
	b.c = c
	defer func() {
		b.cleanup()
		c.close()
		b.c = shared
	}()
	conf := b.serverConfig()
	if b.o.Quick {
		// Every item is an fsync: 2 trials and no warm-up keep --quick short.
		trials, warmup := b.trials, b.warmup
		b.trials, b.warmup = min(trials, 2), 0
		defer func() { b.trials, b.warmup = trials, warmup }()
	}
	tab, err := b.batch()
	if err != nil {
		return nil, err
	}
	if b.o.Quick {
		tab.Trials = b.trials
	}
	tab.ID, tab.Title = "batch-aof-always", "Per-item write cost by batch size, appendfsync always"
	tab.Note += "; against a second throwaway server of the same build at " + b.o.Durable + " (" + strings.Join(conf, ", ") + ")"
	return tab, nil
}
