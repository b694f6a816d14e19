package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// watchEvery is the pause between two liveness probes of a watchdog.
const watchEvery = 200 * time.Millisecond

// hurrySilence is the silence limit of a watchdog once its run is
// interrupted (Ctrl-C): the cleanup that follows waits on a healthy server
// for milliseconds, and a frozen one is given up after this, not after the
// longest step timeout.
const hurrySilence = time.Second

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
	// hurry is the run's context: once it is done (Ctrl-C, or the run
	// ended by another server's loss), probes wait hurrySilence at most.
	hurry context.Context
	poke  chan chan struct{}
	lost  chan struct{} // closed once the server is lost
	once  sync.Once
}

// newWatchdog returns a watchdog of t, not yet started, for a run whose
// context is hurry.
func newWatchdog(t *target.Target, silence time.Duration, hurry context.Context) *watchdog {
	return &watchdog{t: t, silence: silence, hurry: hurry, poke: make(chan chan struct{}), lost: make(chan struct{})}
}

// limit is how long the next probe may wait for a reply: the silence
// limit, or hurrySilence once the run is interrupted.
func (w *watchdog) limit() time.Duration {
	if w.hurry.Err() != nil {
		return min(w.silence, hurrySilence)
	}
	return w.silence
}

// watch probes until ctx is done or the server is lost; onLost is then
// called once, with the cause, and must call fail. ctx outlives the run's
// (hurry): an interrupted run's cleanup still learns of a frozen server.
func (w *watchdog) watch(ctx context.Context, onLost func(error)) {
	nodes := w.nodes()
	conns := make([]*target.Conn, len(nodes))
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	var asked chan struct{} // closed once the probe it asked for is done
	for ctx.Err() == nil {
		var err error
		for i, n := range nodes {
			if conns[i], err = w.probe(ctx, n, conns[i]); err != nil {
				break
			}
		}
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

// watchedNode is one server a watchdog probes: the target, or each node of
// a cluster.
type watchedNode struct {
	addr string
	// name says which server it is in messages: "the server at ADDR", or
	// "the cluster node ADDR (primary of slots 0-5460, id 1a2b3c4d)".
	name string
}

// nodes lists what w probes.
func (w *watchdog) nodes() []watchedNode {
	if w.t.Topology == nil {
		return []watchedNode{{addr: w.t.Addr, name: "the server at " + w.t.Addr}}
	}
	var out []watchedNode
	for _, s := range w.t.Topology.Shards {
		out = append(out, watchedNode{addr: s.Primary.Addr, name: fmt.Sprintf("the cluster node %s (primary of slots %s, id %.8s)", s.Primary.Addr, slotRanges(s.Slots), s.Primary.ID)})
		for _, r := range s.Replicas {
			out = append(out, watchedNode{addr: r.Addr, name: fmt.Sprintf("the cluster node %s (replica of %s, id %.8s)", r.Addr, s.Primary.Addr, r.ID)})
		}
	}
	return out
}

// slotRanges writes slot ranges as "0-5460,5461".
func slotRanges(rs [][2]int) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, r[0])
		if r[1] != r[0] {
			fmt.Fprintf(&b, "-%d", r[1])
		}
	}
	return b.String()
}

// probe sends one PING to n on c (dialled first when nil) and returns the
// connection to reuse. A connection the server closed (a case's CLIENT
// KILL) is dialled again once; the server is lost when it cannot be
// reached, or leaves a PING unanswered for the silence limit.
func (w *watchdog) probe(ctx context.Context, n watchedNode, c *target.Conn) (*target.Conn, error) {
	for attempt := 0; ; attempt++ {
		if c == nil {
			var err error
			cfg := w.t.NodeConfig(n.addr)
			cfg.Timeout = w.limit()
			if c, err = cfg.Dial(ctx, 2); err != nil {
				var re *target.ReplyError
				if errors.As(err, &re) {
					return nil, nil // it answered, with an error (NOAUTH): alive
				}
				return nil, fmt.Errorf("%s stopped answering: it cannot be reached (%w)", n.name, err)
			}
		}
		limit := w.limit()
		c.SetTimeout(limit)
		// A probe in flight when the run is interrupted waits hurrySilence
		// more at most.
		stop := context.AfterFunc(w.hurry, func() { c.NC.SetDeadline(time.Now().Add(hurrySilence)) })
		_, err := c.DoBytes(pingCmd)
		if !stop() && limit > hurrySilence {
			limit = hurrySilence
		}
		var ne net.Error
		switch {
		case err == nil:
			return c, nil
		case errors.As(err, &ne) && ne.Timeout():
			c.Close()
			return nil, fmt.Errorf("%s stopped answering: no reply to PING within %v", n.name, limit)
		}
		c.Close()
		c = nil
		var se *resp.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s stopped answering: it answered PING with bytes that are not RESP (%w)", n.name, err)
		}
		if attempt > 0 {
			return nil, fmt.Errorf("%s stopped answering: it dropped two connections in a row (%w)", n.name, err)
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

// dyingGrace is how long after a case's error a server that still
// answered is asked again: a process that is crashing (a Go emulator
// printing its panic) can answer PING for a moment before it exits.
const dyingGrace = 200 * time.Millisecond

// confirmDying is confirm, then, if the server still answered, confirm
// once more after dyingGrace (the loss of a dying server is recorded while
// the case that killed it is still running, so the restart names it).
func (w *watchdog) confirmDying(ctx context.Context) {
	w.confirm(ctx)
	if w.isLost() {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-w.lost:
		return
	case <-time.After(dyingGrace):
	}
	w.confirm(ctx)
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
