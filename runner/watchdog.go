package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// watchEvery is the pause between two liveness probes of a watchdog.
const watchEvery = 200 * time.Millisecond

// watchdog probes one server of a run with PING on a connection of its own,
// independent of the cases: a server that stops answering (frozen, gone)
// is noticed within about its silence limit, whatever the cases wait for,
// and the run can end them at once instead of each waiting out its own
// deadline. Any reply counts as an answer, an error too (BUSY, LOADING,
// NOAUTH): the question is whether the process answers.
type watchdog struct {
	t *target.Target
	// silence is the longest the server may legitimately stay silent: the
	// longest step timeout of the run.
	silence time.Duration
	poke    chan chan struct{}
	lost    chan struct{} // closed once the server is lost
	once    sync.Once
}

// newWatchdog returns a watchdog of t, not yet started.
func newWatchdog(t *target.Target, silence time.Duration) *watchdog {
	return &watchdog{t: t, silence: silence, poke: make(chan chan struct{}), lost: make(chan struct{})}
}

// watch probes until ctx is done or the server is lost; onLost is then
// called once, with the cause, and must call fail.
func (w *watchdog) watch(ctx context.Context, onLost func(error)) {
	var c *target.Conn
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	var asked chan struct{} // closed once the probe it asked for is done
	for ctx.Err() == nil {
		var err error
		c, err = w.probe(ctx, c)
		if err != nil && ctx.Err() == nil {
			onLost(err)
		}
		if asked != nil {
			close(asked)
			asked = nil
		}
		if err != nil {
			return
		}
		select {
		case <-ctx.Done():
		case asked = <-w.poke:
		case <-time.After(watchEvery):
		}
	}
}

// probe sends one PING on c (dialled first when nil) and returns the
// connection to reuse. A connection the server closed (a case's CLIENT
// KILL) is dialled again once; the server is lost when it cannot be
// reached, or leaves a PING unanswered for the silence limit.
func (w *watchdog) probe(ctx context.Context, c *target.Conn) (*target.Conn, error) {
	for attempt := 0; ; attempt++ {
		if c == nil {
			var err error
			cfg := w.t.Config
			cfg.Timeout = w.silence
			if c, err = cfg.Dial(ctx, 2); err != nil {
				var re *target.ReplyError
				if errors.As(err, &re) {
					return nil, nil // it answered, with an error (NOAUTH): alive
				}
				return nil, fmt.Errorf("the server at %s stopped answering: it cannot be reached (%w)", w.t.Addr, err)
			}
		}
		_, err := c.DoBytes(pingCmd)
		var ne net.Error
		switch {
		case err == nil:
			return c, nil
		case errors.As(err, &ne) && ne.Timeout():
			c.Close()
			return nil, fmt.Errorf("the server at %s stopped answering: no reply to PING within %v", w.t.Addr, w.silence)
		}
		c.Close()
		c = nil
		var se *resp.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("the server at %s stopped answering: it answered PING with bytes that are not RESP (%w)", w.t.Addr, err)
		}
		if attempt > 0 {
			return nil, fmt.Errorf("the server at %s stopped answering: it dropped two connections in a row (%w)", w.t.Addr, err)
		}
	}
}

var pingCmd = resp.AppendCommandString(nil, "PING")

// confirm asks for a probe now and waits for it: a case just erred,
// perhaps because the server is gone. A dead server refuses the probe at
// once, so the case that killed it is still running when the loss is
// recorded (lanes.lostServer), and no later case is sent to it.
func (w *watchdog) confirm(ctx context.Context) {
	done := make(chan struct{})
	select {
	case w.poke <- done:
	case <-w.lost:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-done:
	case <-w.lost:
	case <-ctx.Done():
	}
}

// fail records the loss once: isLost is true from then on.
func (w *watchdog) fail() {
	w.once.Do(func() { close(w.lost) })
}

// isLost reports whether the server was lost.
func (w *watchdog) isLost() bool {
	select {
	case <-w.lost:
		return true
	default:
		return false
	}
}
