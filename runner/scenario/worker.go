package scenario

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// worker is one connection of a scenario and its counts.
type worker struct {
	tally
	r *run
	c *target.Conn
	// mu guards c against interrupt, which runs on another goroutine; the
	// worker's own goroutine reads c without it.
	mu   sync.Mutex
	name string
	idx  int // the worker's index in the scenario's workers
	buf  []byte
	// ifdeq-retry: the value last read or written and its digest.
	cur    []byte
	digest []byte
}

// tally is what workers count; the figures sum them over the workers.
type tally struct {
	commands int
	bytes    int
	retries  int
	ok       int // updates that succeeded, requests that completed
	gaveUp   int
	crashes  int
	lat      []time.Duration
}

// errStopped is what a worker's command returns once the scenario's
// context is done (parallel then returns the context's cause).
var errStopped = errors.New("scenario stopped")

// interrupt unblocks the worker's read or write at once.
func (w *worker) interrupt() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.c.NC.SetDeadline(time.Unix(1, 0))
}

// do sends one command and returns its reply, which is valid until the
// next command. An error reply is returned as an error. Once the scenario
// is stopped it sends nothing: DoBytes would arm a new deadline over the
// one interrupt set.
func (w *worker) do(args ...[]byte) (resp.Value, error) {
	if w.r.stopped.Load() {
		return resp.Value{}, errStopped
	}
	w.buf = resp.AppendCommand(w.buf[:0], args...)
	w.commands++
	w.bytes += len(w.buf)
	v, err := w.c.DoBytes(w.buf)
	if err != nil {
		return v, fmt.Errorf("%s: %s: %w", w.name, args[0], err)
	}
	if target.IsError(v) {
		return v, fmt.Errorf("%s: %s: server replied %s", w.name, args[0], resp.Escape(v.Raw))
	}
	return v, nil
}

// doInt is do for a command that answers an integer.
func (w *worker) doInt(args ...[]byte) (resp.Value, error) {
	v, err := w.do(args...)
	if err == nil && v.Kind != resp.Integer {
		err = unexpected(string(args[0]), v)
	}
	return v, err
}

func unexpected(cmd string, v resp.Value) error {
	return fmt.Errorf("%s: unexpected reply %s", cmd, resp.Escape(v.Raw))
}

func isNilReply(v resp.Value) bool {
	return v.Kind == resp.NilBlobString || v.Kind == resp.NilArray || v.Kind == resp.Null
}

// workers dials the scenario's connections before any starts, so that they
// all start together.
func (r *run) workers(ctx context.Context) ([]*worker, error) {
	ws := make([]*worker, r.sc.Connections)
	for i := range ws {
		name := "c" + strconv.Itoa(i+1)
		w, err := r.dial(ctx, name)
		if err != nil {
			closeAll(ws[:i])
			return nil, fmt.Errorf("connection %s: %w", name, err)
		}
		w.idx = i
		ws[i] = w
	}
	return ws, nil
}

// parallel runs f on every worker at once and returns the wall time and the
// first error. A cancelled ctx stops every worker: the one waiting for a
// reply at once, the others before their next command.
func (r *run) parallel(ctx context.Context, ws []*worker, f func(*worker) error) (time.Duration, error) {
	stop := context.AfterFunc(ctx, func() {
		r.stopped.Store(true)
		for _, w := range ws {
			w.interrupt()
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

func closeAll(ws []*worker) {
	for _, w := range ws {
		if w != nil && w.c != nil {
			w.c.Close()
		}
	}
}
