package runner

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/target"
)

// A case costs its own round trips (issue 36): the connection of a plain
// case (see reusable) goes on to the run's next plain case on the same
// server and protocol, without a new handshake, and the end-of-case check
// for stray replies (strayReplies) and, on a shared target, the deletion
// of the cases' keys are done once for up to heldMax cases that ran on it
// one after another. A stray reply shifts every later reply on its
// connection by one, so it is seen by the batch's check, or makes a later
// case of the batch fail; either way every case of the batch runs again
// alone (a connection of its own, its own check, a fresh key namespace),
// and those verdicts are the ones reported. The results of a batch are
// reported once its check is done.

// heldMax is the most cases whose end-of-case check one batch shares: 16
// cases of 3 commands cost 48 calls and 2 of respcheck's (the sentinel
// PING and an UNLINK), where each case alone cost 3 (a new connection's
// HELLO in RESP3, a PING, an UNLINK).
const heldMax = 16

// spareIdle is how long a connection may wait for its next case: one
// idle for longer is checked and closed (a server's `timeout` closes
// idle clients after a second at the least).
const spareIdle = 500 * time.Millisecond

// spare is a connection between plain cases, and the cases that ran on it
// since its last end-of-case check.
type spare struct {
	c     *conn
	t     *target.Target
	w     *watchdog
	lane  int // the index of its server in the run (item.lane)
	proto int
	held  []*held
	since time.Time // when it was last given back
}

// held is a case that passed on a spare connection, waiting for the
// batch's end-of-case check.
type held struct {
	it   item
	res  *Result
	keys *target.CaseKeys // the keys to delete on a shared target, or nil
	put  func()           // reports res
}

// spares are a run's idle connections.
type spares struct {
	mu   sync.Mutex
	idle []*spare
}

// take returns an idle connection to t in proto (the one given back last)
// that has not been idle for spareIdle, or nil.
func (r *run) take(t *target.Target, proto int) *spare {
	r.spares.mu.Lock()
	defer r.spares.mu.Unlock()
	for i := len(r.spares.idle) - 1; i >= 0; i-- {
		sp := r.spares.idle[i]
		if sp.t == t && sp.proto == proto && time.Since(sp.since) < spareIdle && !sp.c.halted.Load() {
			r.spares.idle = slices.Delete(r.spares.idle, i, i+1)
			return sp
		}
	}
	return nil
}

// giveBack makes sp idle again, after the check of its batch once it holds
// heldMax cases; the idle connections to sp's server that nobody took
// within spareIdle are checked and closed. It runs for an item of sp's
// lane, after the item (the reruns of a failed check are items of the
// lane): the scheduler starts no exclusive item on the lane meanwhile,
// whose busy script or CONFIG SET a check or a rerun must not meet.
func (r *run) giveBack(ctx context.Context, sp *spare) {
	defer r.closeIdle(ctx, sp.lane, spareIdle)
	if len(sp.held) >= heldMax && !r.checkAndRerun(ctx, sp) {
		sp.c.close()
		return
	}
	sp.since = time.Now()
	r.spares.mu.Lock()
	r.spares.idle = append(r.spares.idle, sp)
	r.spares.mu.Unlock()
}

// closeIdle checks and closes the idle connections to lane's server that
// have been idle for at least idle: before an exclusive item on the lane
// (idle 0), that item meets none of them.
func (r *run) closeIdle(ctx context.Context, lane int, idle time.Duration) {
	var stale []*spare
	r.spares.mu.Lock()
	r.spares.idle = slices.DeleteFunc(r.spares.idle, func(s *spare) bool {
		if s.lane != lane || time.Since(s.since) < idle {
			return false
		}
		stale = append(stale, s)
		return true
	})
	r.spares.mu.Unlock()
	for _, s := range stale {
		r.checkAndRerun(ctx, s)
		s.c.close()
	}
}

// flushSpares checks the batches of every idle connection and closes
// them, at the end of a run.
func (r *run) flushSpares(ctx context.Context) {
	r.spares.mu.Lock()
	idle := r.spares.idle
	r.spares.idle = nil
	r.spares.mu.Unlock()
	for _, sp := range idle {
		r.checkAndRerun(ctx, sp)
		sp.c.close()
	}
}

// checkAndRerun is check, with the cases of a batch that failed it run
// again alone and reported; it reports whether sp's connection can go on.
func (r *run) checkAndRerun(ctx context.Context, sp *spare) bool {
	again, ok := r.check(ctx, sp)
	r.rerunAll(again)
	return ok
}

// rerunAll runs each case of again alone (run.rerun), in place of its
// result, and reports it.
func (r *run) rerunAll(again []*held) {
	for _, h := range again {
		r.rerun(h)
		h.put()
	}
}

// check does the end-of-case check of sp's batch: one sentinel PING
// (strayReplies), then on a shared target one UNLINK of the batch's keys.
// It reports the batch's cases when the check passes (ok: the connection
// can go on) or cannot be asked (the run was interrupted, or its server
// lost: reported as they ran), and otherwise (a stray reply, or a broken
// connection) returns them, to run again alone.
func (r *run) check(ctx context.Context, sp *spare) (again []*held, ok bool) {
	if len(sp.held) == 0 {
		return nil, !sp.c.halted.Load()
	}
	batch := sp.held
	sp.held = nil
	last := batch[len(batch)-1]
	x := &caseRun{run: r, t: sp.t, w: sp.w, c: last.it.c, proto: sp.proto,
		conns: map[string]*conn{"default": sp.c}, order: []string{"default"},
		env: &cases.Env{KeyPrefix: last.res.KeyPrefix}}
	if !sp.c.halted.Load() && ctx.Err() == nil {
		fail, err := x.strayReplies()
		ok = fail == nil && err == nil && x.confirmed == 1
		if !ok && fail == nil {
			// The connection broke, no stray: perhaps the server is gone
			// (a later case shut it down). Ask now, so that the run ends,
			// or the cases run again on the server started in its place.
			sp.w.confirmDying(ctx)
		}
	}
	switch {
	case ok:
		r.unlinkHeld(sp, batch)
	case ctx.Err() != nil || r.unreachable.Load():
		r.unlinkEach(batch)
	default:
		r.unlinkEach(batch)
		return batch, false
	}
	for _, h := range batch {
		h.put()
	}
	return nil, ok
}

// unlinkHeld deletes the keys of a batch whose check passed (a shared
// target): one UNLINK on sp's connection for the cases whose commands
// named every key they wrote, the others' as each case alone deletes them.
func (r *run) unlinkHeld(sp *spare, batch []*held) {
	if !r.opts.Shared {
		return
	}
	var names []string
	var rest []*held
	for _, h := range batch {
		if h.keys == nil {
			rest = append(rest, h)
			continue
		}
		named, ok := h.keys.Named()
		if !ok {
			rest = append(rest, h)
			continue
		}
		names = append(names, named...)
	}
	if len(names) > 0 {
		sp.c.extend(r.opts.StepTimeout)
		n, refused, err := target.Unlink(sp.c.tc, names)
		r.keysRemoved.Add(int64(n))
		if refused || err != nil {
			rest = batch
		}
	}
	r.unlinkEach(rest)
}

// unlinkEach deletes the keys of each case of batch as the case alone
// would have (deleteKeys), on a shared target.
func (r *run) unlinkEach(batch []*held) {
	if !r.opts.Shared {
		return
	}
	for _, h := range batch {
		r.deleteKeys(h.it.t, h.it.w, h.res.KeyPrefix, h.keys)
	}
}

// reusable reports whether it is a plain case, whose connection the next
// case may use (see spare): on a standalone server, not run alone, one
// connection, only commands sent and answered in turn (no raw bytes,
// async sends, several replies, silence or a closed connection expected),
// no cleanup steps, scenario, exclusive server, literal keys or known
// crash, and no command that changes the connection's state (stateful).
func (r *run) reusable(it item) bool {
	c := it.c
	if it.alone || it.t.Current() != nil || c.Exclusive || c.Scenario != nil || len(c.Cleanup) > 0 || c.LiteralKeys ||
		r.srv.KnownCrash(c, it.proto) != nil || slow(c) {
		return false
	}
	for _, st := range c.Steps {
		switch {
		case st.Action == cases.ActSleep:
			continue
		case st.Action != cases.ActSend || st.Async || st.Replies != nil || st.Node != "" || (st.Conn != "" && st.Conn != cases.DefaultConn):
			return false
		case slices.ContainsFunc(st.Expect, func(v cases.Variant) bool { return v.Expect != nil && v.Expect.Silent() }):
			return false
		}
		if name, ok := st.Send[0].Literal(); !ok || stateful([]byte(name)) {
			return false
		}
	}
	return true
}

// slow reports whether c may take long for reasons of its own (a
// scenario, a sleep, a step timeout of its own, a blocking command or
// DEBUG): such a case does not carry a batch of held results (they would
// wait for it), and the batches idle on its server are checked before it
// starts (execute), so that the results before it are reported while it
// runs.
func slow(c *cases.Case) bool {
	if c.Scenario != nil {
		return true
	}
	for _, steps := range [][]*cases.Step{c.Steps, c.Cleanup} {
		for _, st := range steps {
			if st.Action == cases.ActSleep || st.Timeout > 0 {
				return true
			}
			if len(st.Send) > 0 && slices.ContainsFunc(blockingCommands, st.Send[0].IsWord) {
				return true
			}
		}
	}
	return false
}

// blockingCommands wait for something else to happen (Redis 8.6.3's
// COMMAND flags "blocking", and WAIT, WAITAOF, DEBUG SLEEP).
var blockingCommands = []string{"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP",
	"XREAD", "XREADGROUP", "WAIT", "WAITAOF", "DEBUG"}

// statefulCommands change what a connection is for the commands after
// them (its user, database, protocol, transaction, subscriptions,
// tracking, name, reply mode), or may (a script's SELECT on Redis before
// 7.0 and on miniredis).
var statefulCommands = [][]byte{
	[]byte("AUTH"), []byte("HELLO"), []byte("SELECT"), []byte("CLIENT"), []byte("RESET"), []byte("QUIT"),
	[]byte("MULTI"), []byte("EXEC"), []byte("DISCARD"), []byte("WATCH"), []byte("UNWATCH"),
	[]byte("SUBSCRIBE"), []byte("PSUBSCRIBE"), []byte("SSUBSCRIBE"), []byte("UNSUBSCRIBE"), []byte("PUNSUBSCRIBE"), []byte("SUNSUBSCRIBE"),
	[]byte("MONITOR"), []byte("READONLY"), []byte("READWRITE"), []byte("ASKING"), []byte("ACL"),
	[]byte("SYNC"), []byte("PSYNC"), []byte("REPLCONF"),
	[]byte("EVAL"), []byte("EVALSHA"), []byte("EVAL_RO"), []byte("EVALSHA_RO"), []byte("FCALL"), []byte("FCALL_RO"),
}

// stateful reports whether name is one of statefulCommands, in any case.
func stateful(name []byte) bool {
	return slices.ContainsFunc(statefulCommands, func(s []byte) bool { return bytes.EqualFold(name, s) })
}
