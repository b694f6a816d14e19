package runner

import (
	"bytes"
	"context"
	"slices"
	"strings"
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
	// once says the case changes the server beyond its keys (a command
	// not on data alone, see dataCommand): it is not run again alone.
	once bool
}

// spares are a run's idle connections.
type spares struct {
	mu   sync.Mutex
	idle []*spare
	// checking holds a mutex per lane, held while idle connections of
	// the lane are checked (closeIdle): an exclusive item's own check
	// waits for a check of the watcher in flight.
	checking map[int]*sync.Mutex
}

// laneLock returns the checking mutex of lane.
func (r *run) laneLock(lane int) *sync.Mutex {
	r.spares.mu.Lock()
	defer r.spares.mu.Unlock()
	if r.spares.checking == nil {
		r.spares.checking = map[int]*sync.Mutex{}
	}
	if r.spares.checking[lane] == nil {
		r.spares.checking[lane] = &sync.Mutex{}
	}
	return r.spares.checking[lane]
}

// watchIdle checks, every spareIdle until stop is closed, the idle
// connections of each of lanes that nobody took within spareIdle: the
// results they hold are reported while the run's jobs are busy with slow
// cases (a BLPOP waiting a minute). It returns once it has stopped.
func (r *run) watchIdle(ctx context.Context, lanes int, stop <-chan struct{}) {
	tick := time.NewTicker(spareIdle)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for lane := range lanes {
			r.closeIdle(ctx, lane, spareIdle)
		}
	}
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
	mu := r.laneLock(lane)
	mu.Lock()
	defer mu.Unlock()
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
	r.retry(&retry{batch: again})
	return ok
}

// retry is what a failed end-of-case check leaves to run again alone: the
// cases of the batch, and cur, the case that ended the batch by not
// passing on its connection (endBatch), or nil.
type retry struct {
	cur   *held
	batch []*held
}

// retry runs rt's cases again alone (run.rerun) and reports them. cur
// runs first: when it comes to the same verdict alone, its connection
// was in step when it started (a stray before it would have shifted its
// replies), the extra reply was its own, and the batch is reported as it
// ran; otherwise every case of the batch runs again too. cur's error
// stands as it is. A case that changes the server beyond its keys
// (held.once) does not run again: it would not do the same a second time
// (a function loaded twice); it is reported undecided.
func (r *run) retry(rt *retry) {
	if cur := rt.cur; cur != nil && cur.res.Status == Error {
		// Its error (a timeout, a connection or server lost) is no
		// shifted reply: it stands, and is not run again (a command
		// that crashed the server would crash the next).
	} else if cur != nil && !cur.once {
		before := *cur.res
		r.rerun(cur)
		if sameVerdict(&before, cur.res) {
			for _, h := range rt.batch {
				h.put()
			}
			rt.batch = nil
		}
	} else if cur != nil {
		undecided(cur)
	}
	for _, h := range rt.batch {
		if h.once {
			undecided(h)
		} else {
			r.rerun(h)
		}
		h.put()
	}
	if rt.cur != nil {
		rt.cur.put()
	}
}

// undecided makes h's result an error saying why it cannot be told: a
// reply to no command came on the connection it shared with other cases,
// and it was not run again alone (held.once).
func undecided(h *held) {
	was := h.res.Status.String()
	if h.res.Reason != "" {
		was += ": " + h.res.Reason
	}
	h.res.Status, h.res.Failure, h.res.More = Error, nil, nil
	h.res.Reason = "a reply to no command came on the connection this case shared with other cases (whose, only runs alone tell), and this case changes the server beyond its keys, so it was not run again alone; it ran as " + was
}

// sameVerdict reports whether two runs of a case came to the same status
// for the same reason.
func sameVerdict(a, b *Result) bool { return a.Status == b.Status && a.Reason == b.Reason }

// check does the end-of-case check of sp's batch (ctx: the caller's, an
// item's or the run's; r.ctx tells an interrupted run): one sentinel PING
// (strayReplies), then on a shared target one UNLINK of the batch's keys.
// It reports the batch's cases when the check passes (ok: the connection
// can go on). When the check cannot be done (the connection was cut short
// by an interruption, the server is lost for good) or finds a stray after
// the run was interrupted, the cases are reported not checked
// (unchecked). Otherwise (a stray reply, or a broken connection) it
// returns them, to run again alone. Once the run is interrupted the check
// has a second.
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
	cut := sp.c.halted.Load() // a case in flight on it was interrupted
	defer context.AfterFunc(ctx, func() { sp.c.haltAfter(time.Second) })()
	defer onLoss(sp.w, func() { sp.c.haltAfter(0) })()
	stray := false
	if !cut && !r.unreachable.Load() && !sp.w.isLost() {
		fail, err := x.strayReplies()
		ok = fail == nil && err == nil && x.confirmed == 1
		stray = fail != nil
		if !ok && !stray && r.ctx.Err() == nil {
			// The connection broke, no stray: perhaps the server is gone
			// (a later case shut it down). Ask now, so that the run ends,
			// or the cases run again on the server started in its place.
			sp.w.confirmDying(r.ctx)
		}
	}
	switch {
	case ok:
		r.unlinkHeld(sp, batch)
	case r.ctx.Err() != nil || r.unreachable.Load() || (sp.w.isLost() && r.opts.Respawn == nil):
		// The run was interrupted, or its server lost for good.
		r.unlinkEach(batch)
		unchecked(batch, context.Cause(r.ctx))
	case !stray:
		// The connection broke (a later case crashed or shut down the
		// server, which was started again): what can run again alone
		// does; a case that cannot stands as it ran, no stray having
		// been seen.
		r.unlinkEach(batch)
		for _, h := range batch {
			if h.once {
				h.put()
			} else {
				again = append(again, h)
			}
		}
		return again, false
	default:
		r.unlinkEach(batch)
		return batch, false
	}
	for _, h := range batch {
		h.put()
	}
	return nil, ok && !sp.c.halted.Load()
}

// onLoss calls f, in a goroutine, if w's server is lost before stop is
// called: a check on a frozen server ends then, not at its deadline.
func onLoss(w *watchdog, f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-w.lost:
			f()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// unchecked marks the results of a batch whose end-of-case check could
// not tell that their connection was in step (why: the interruption, or
// the loss of the server) as not run to their end.
func unchecked(batch []*held, why error) {
	cause := "the server was lost"
	if why != nil {
		cause = why.Error()
	}
	for _, h := range batch {
		h.res.Status, h.res.NotRun, h.res.Failure, h.res.More = Skip, true, nil, nil
		h.res.Reason = "not checked: " + cause + " before the end-of-case check of the connection this case shared with the cases before it (its steps had passed)"
	}
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
	pending := r.takePending()
	for _, p := range pending {
		names = append(names, p.names...)
	}
	if len(names) > 0 {
		sp.c.extend(r.opts.StepTimeout)
		n, refused, err := target.Unlink(sp.c.tc, names)
		r.keysRemoved.Add(int64(n))
		if refused || err != nil {
			rest = batch
			r.pendingMu.Lock()
			r.pending = append(r.pending, pending...)
			r.pendingMu.Unlock()
			defer r.unlinkPending(sp.w)
		}
	}
	r.unlinkEach(rest)
}

// pendingKeys are the keys a case named, waiting for the next UNLINK.
type pendingKeys struct {
	prefix string
	names  []string
}

// later defers the deletion of a case's keys on a shared standalone
// server to the next batch's UNLINK (unlinkHeld), or the run's end
// (unlinkPending), when the case's commands named every key they could
// write; it reports whether it did. Past pendingMax names waiting, they
// are deleted at once.
func (r *run) later(t *target.Target, w *watchdog, prefix string, keys *target.CaseKeys) bool {
	if !r.opts.Shared || keys == nil || t != r.t || t.Current() != nil || r.unreachable.Load() || r.ctx == nil || r.ctx.Err() != nil {
		return false // an interrupted run deletes at once, as it ends
	}
	names, ok := keys.Named()
	if !ok {
		return false
	}
	r.pendingMu.Lock()
	r.pending = append(r.pending, pendingKeys{prefix, names})
	r.pendingNames += len(names)
	full := r.pendingNames >= pendingMax
	r.pendingMu.Unlock()
	if full {
		r.unlinkPending(w)
	}
	return true
}

// takePending returns the keys waiting for an UNLINK, and forgets them.
func (r *run) takePending() []pendingKeys {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	p := r.pending
	r.pending, r.pendingNames = nil, 0
	return p
}

// pendingMax bounds the key names waiting for an UNLINK (later): a run
// killed without its cleanup (a second Ctrl-C) leaves at most about this
// many of them, and the keys of the batches held then.
const pendingMax = 128

// unlinkPending deletes the keys waiting (later) on a connection of its
// own: one UNLINK, or each case's namespace scanned when UNLINK is
// refused; the prefixes of keys it could not delete are Report.KeysLeft.
// It has a case's cleanup budget: one short attempt once w's server is
// lost (a frozen server does not hold the run's end).
func (r *run) unlinkPending(w *watchdog) {
	pending := r.takePending()
	if len(pending) == 0 {
		return
	}
	if r.unreachable.Load() {
		r.leave(pending)
		return
	}
	ctx, cancel := budgeted(context.Background(), w, r.opts.StepTimeout, 2*r.opts.StepTimeout+30*time.Second)
	defer cancel()
	var names []string
	for _, p := range pending {
		names = append(names, p.names...)
	}
	c, err := r.t.Config.Dial(ctx, 2)
	if err == nil {
		defer c.Close()
		n, refused, uerr := target.Unlink(c, names)
		r.keysRemoved.Add(int64(n))
		if !refused && uerr == nil {
			return
		}
	}
	for _, p := range pending {
		n, err := r.t.DeleteCaseKeys(ctx, p.prefix)
		r.keysRemoved.Add(int64(n))
		if err != nil {
			r.leave([]pendingKeys{p})
		}
	}
}

// leave lists the prefixes of pending in Report.KeysLeft.
func (r *run) leave(pending []pendingKeys) {
	r.leftMu.Lock()
	defer r.leftMu.Unlock()
	for _, p := range pending {
		r.left = append(r.left, p.prefix+"*")
	}
}

// unlinkEach deletes the keys of each case of batch as the case alone
// would have (deleteKeys), on a shared target.
func (r *run) unlinkEach(batch []*held) {
	if !r.opts.Shared {
		return
	}
	for _, h := range batch {
		if r.unreachable.Load() || h.it.w.isLost() {
			// Not one attempt each on a lost server: listed as left.
			r.leave([]pendingKeys{{prefix: h.res.KeyPrefix}})
			continue
		}
		r.deleteKeys(h.it.t, h.it.w, h.res.KeyPrefix, h.keys)
	}
}

// reusable reports whether it is a plain case, whose connection the next
// case may use (see spare): on a standalone server, not run alone, one
// connection, only commands sent and answered in turn (no raw bytes,
// async sends, several replies, silence or a closed connection expected),
// no cleanup steps, scenario, exclusive server, literal keys, known crash,
// slow step or command that changes the connection (stateful). once is
// set when a command may change the server beyond the case's keys
// (dataCommand): such a case is not run again alone (held.once).
func (r *run) reusable(ctx context.Context, it item) (plain, once bool) {
	c := it.c
	if it.alone || it.t.Current() != nil || c.Exclusive || c.Scenario != nil || len(c.Cleanup) > 0 || c.LiteralKeys ||
		r.srv.KnownCrash(c, it.proto) != nil || slow(c) {
		return false, false
	}
	for _, st := range c.Steps {
		switch {
		case st.Action == cases.ActSleep:
			continue
		case st.Action != cases.ActSend || st.Async || st.Replies != nil || st.Node != "" || (st.Conn != "" && st.Conn != cases.DefaultConn):
			return false, false
		case slices.ContainsFunc(st.Expect, func(v cases.Variant) bool { return v.Expect != nil && v.Expect.Silent() }):
			return false, false
		}
		if name, ok := st.Send[0].Literal(); !ok || stateful([]byte(name)) {
			return false, false
		}
		once = once || !dataCommand(ctx, it.t, st.Send)
	}
	return true, once
}

// dataCommand reports whether a send step's command (its first two
// arguments, when literal) touches only data: PING or ECHO, or a command
// whose ACL categories (COMMAND INFO; a container's, its subcommand's)
// hold none of notData. A command that changes the connection, the
// server's scripts, configuration or other clients, or that reads or
// empties the whole keyspace, is none.
func dataCommand(ctx context.Context, t *target.Target, send []cases.Template) bool {
	name, _ := send[0].Literal()
	if strings.EqualFold(name, "PING") || strings.EqualFold(name, "ECHO") {
		return true
	}
	info, err := t.CommandInfo(ctx, name)
	if err != nil || !info.Known {
		return false
	}
	if info.Container {
		sub, ok := "", false
		if len(send) > 1 {
			sub, ok = send[1].Literal()
		}
		if !ok || strings.ContainsAny(sub, " |") {
			return false
		}
		if info, err = t.CommandInfo(ctx, name+"|"+sub); err != nil || !info.Known {
			return false
		}
	}
	return len(info.Categories) > 0 && !slices.ContainsFunc(info.Categories, func(c string) bool { return slices.Contains(notData, c) })
}

// notData are the ACL categories of commands that are not on data alone
// (Redis 8.6.3's COMMAND INFO): FUNCTION LOAD and SCRIPT LOAD are
// @scripting, PUBLISH @pubsub, KEYS and FLUSHALL @dangerous, CLIENT and
// SELECT @connection, MULTI @transaction. (@blocking commands are on
// data: those that wait are slow.)
var notData = []string{"@admin", "@dangerous", "@scripting", "@pubsub", "@connection", "@transaction"}

// slow reports whether c may take long for reasons of its own (a
// scenario, a sleep, a step timeout of its own, a blocking command or
// DEBUG): such a case does not carry a batch of held results (they would
// wait for it; the batches idle meanwhile are checked by watchIdle).
func slow(c *cases.Case) bool {
	if c.Scenario != nil {
		return true
	}
	for _, steps := range [][]*cases.Step{c.Steps, c.Cleanup} {
		for _, st := range steps {
			if st.Action == cases.ActSleep || st.Timeout > 0 {
				return true
			}
			if len(st.Send) > 0 && blocks(st.Send) {
				return true
			}
		}
	}
	return false
}

// blockingCommands wait for something else to happen (Redis 8.6.3's
// COMMAND flag "blocking", and WAIT, WAITAOF, DEBUG SLEEP); XREAD and
// XREADGROUP only with BLOCK.
var blockingCommands = []string{"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP",
	"WAIT", "WAITAOF", "DEBUG"}

// blocks reports whether a command may wait (blockingCommands).
func blocks(send []cases.Template) bool {
	if slices.ContainsFunc(blockingCommands, send[0].IsWord) {
		return true
	}
	if !send[0].IsWord("XREAD") && !send[0].IsWord("XREADGROUP") {
		return false
	}
	return slices.ContainsFunc(send[1:], func(a cases.Template) bool { return a.IsWord("BLOCK") || !a.IsLiteral() })
}

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
