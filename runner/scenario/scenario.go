package scenario

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/target"
)

// Run runs sc in protocol proto against t and returns its figures. Every key
// it writes starts with keyPrefix (the hot key of counter patterns is
// keyPrefix+"key", the keys of rate-limiter requests keyPrefix+"rl:N"); Run
// does not delete them. timeout is the deadline of one round trip (0: t's
// own). A cancelled ctx unblocks every connection and Run returns its cause.
// On an error no figures are returned.
func Run(ctx context.Context, t *target.Target, sc *cases.Scenario, proto int, keyPrefix string, timeout time.Duration) (Metrics, error) {
	cfg := t.Config
	if timeout > 0 {
		cfg.Timeout = timeout
	}
	r := &run{cfg: cfg, sc: sc, proto: proto, prefix: keyPrefix, key: []byte(keyPrefix + "key")}
	if sc.Pattern.IsRateLimit() {
		return r.rateLimit(ctx)
	}
	return r.counter(ctx)
}

// run is one scenario in one protocol.
type run struct {
	cfg    target.Config
	sc     *cases.Scenario
	proto  int
	prefix string
	key    []byte // the hot key of counter patterns
	// stopped is set when the context of parallel is done: a worker sends
	// no further command.
	stopped atomic.Bool
}

// dial opens a connection in the scenario's protocol for a worker named
// name (in its error messages).
func (r *run) dial(ctx context.Context, name string) (*worker, error) {
	c, err := r.cfg.Dial(ctx, r.proto)
	if err != nil {
		return nil, err
	}
	return &worker{r: r, c: c, name: name}, nil
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
