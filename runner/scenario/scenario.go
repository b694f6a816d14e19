package scenario

import (
	"context"
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
// On an error no figures are returned. On a cluster every connection goes
// to the primary that serves keyPrefix's slot.
func Run(ctx context.Context, t *target.Target, sc *cases.Scenario, proto int, keyPrefix string, timeout time.Duration) (Metrics, error) {
	node, err := t.Place(target.KeySlot(keyPrefix), "")
	if err != nil {
		return nil, err
	}
	cfg := t.NodeConfig(node.Addr)
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
