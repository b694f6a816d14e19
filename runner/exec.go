package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// maxKept caps the bytes of a sent command or reply kept in a StepResult;
// longer ones are kept as a prefix and their full length.
const maxKept = 1 << 20

type run struct {
	opts Options
	t    *target.Target
	srv  target.Server
	// aclUser is the name of the run's ACL user on a shared target, ""
	// without one (Protection).
	aclUser string
	// keysRemoved counts keys deleted by the cleanup of Shared runs.
	keysRemoved atomic.Int64
	// unreachable is set when a server was found lost after the run was
	// interrupted: the final sweep and DBSIZE are not tried on it.
	unreachable atomic.Bool
	// left holds the key patterns of cases whose keys could not be
	// deleted (Report.KeysLeft).
	leftMu sync.Mutex
	left   []string
	// ctx is the run's context while it executes: done once the run is
	// interrupted or ends (execute).
	ctx context.Context
	// spares are the connections between plain cases (see spare);
	// rerun runs a case of a batch whose check failed again, alone.
	spares spares
	rerun  func(h *held)
	// pending holds the keys waiting for the next UNLINK (later), and
	// pendingNames counts their names.
	pendingMu    sync.Mutex
	pending      []pendingKeys
	pendingNames int
}

// caseRun is the state of one case in one protocol. Its methods are split
// by job: running the steps (exec_steps.go), sending large commands
// (exec_stream.go), pushes and stray replies (exec_push.go), cleanup steps
// and key deletion (exec_cleanup.go), the shared-run guard (guard.go).
type caseRun struct {
	// async is set while an async step is sent (the guard's RESET rule).
	async bool
	*run
	// t is the server of the case (item.t); it hides run.t. w watches it.
	t     *target.Target
	w     *watchdog
	c     *cases.Case
	proto int
	info  cases.ServerInfo
	env   *cases.Env
	conns map[string]*conn
	order []string
	// mu guards conns against interrupt, which runs on another goroutine.
	mu sync.Mutex
	// slab and argSlab hold the bytes and argument lists kept in
	// StepResults, so that keeping them costs no allocation per step.
	slab    []byte
	argSlab [][]byte
	// args holds the expanded arguments of the step being sent.
	args [][]byte
	// keysConn asks COMMAND GETKEYS for key positions (keyPositions).
	keysConn *conn
	// keys moves the case's literal keys into its namespace, or notes
	// those of a literal_keys case for deleteLiteral (caseKeys).
	keys *target.CaseKeys
	// slot is the hash slot of the case's keys (its key prefix's tag): on
	// a cluster its connections go to the node that serves it.
	slot int
	// scripts holds the bodies of the scripts the case sent (EVAL,
	// SCRIPT LOAD) by their SHA1 in lower-case hex, for the guard of an
	// EVALSHA (guardEval).
	scripts map[string][]byte
	// sentBig is set while the step being run streamed its command
	// (sendBig): such a command is not sent again after a redirect.
	sentBig bool
	// goldenOnly is set by judge when the step's failure is its golden's
	// alone (the case's own expectation held): the steps go on after it
	// (see runSteps). failed holds the failures the steps went on after,
	// in order: golden-only ones, and every one of a continue_on_failure
	// case.
	goldenOnly bool
	failed     []*Failure
	// reuse says the case is plain (run.reusable): its default connection
	// may come from the run's spares and go back to them; spare is that
	// connection's entry once it has one.
	reuse, once bool
	spare       *spare
	lane        int // item.lane
	// confirmed counts the sentinels of strayReplies whose reply came.
	confirmed int
	// stepKnown is what the steps' known differences saw (applyStepKnown).
	stepKnown struct {
		known        *cases.Known // the first step that failed as known
		fail         *Failure     // its failure
		unreproduced *cases.Known // the first known step that passed
	}
}

// runItem runs one case (or scenario) in one protocol: the gates, then the
// steps or the scenario. A plain case that passed on a spare connection
// (see spare) is held: give is that connection, to give back once the
// item is over (run.giveBack), and res is reported with its batch. again
// lists the cases (this one among them) to run again alone because the
// end-of-case check of the batch this case ended failed (run.retry). With
// neither, res is final.
func (r *run) runItem(ctx context.Context, it item, res *Result) (give *spare, again *retry) {
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	if r.gated(ctx, it, res) {
		return nil, nil
	}
	res.Known = r.known(it)
	if k := r.srv.KnownCrash(it.c, it.proto); k != nil && r.opts.Respawn == nil {
		// The run could not start the server again: not this run's to kill.
		res.Status = Skip
		res.Reason = fmt.Sprintf("not run: %s: known to crash %s %s, and this run cannot start the server again (a throwaway server runs it): %s",
			k.Pos, r.srv.Family, r.srv.Version, k.Reason)
		return nil, nil
	}
	if it.c.Scenario != nil {
		r.runScenario(ctx, it, res)
		return nil, nil
	}
	return r.runCase(ctx, it, res)
}

// gated reports whether the case must not run in it.proto, with res's
// status and reason set: a skip for a destructive case on a shared target
// or an unmet gate, an error for a gate that cannot be checked.
func (r *run) gated(ctx context.Context, it item, res *Result) bool {
	if r.opts.guarded() {
		if cmd, pos, bad := destructiveUse(it.c); bad {
			res.Status = Skip
			res.Reason = fmt.Sprintf("sends %s at %s, which reaches beyond the run's own keys (--allow-destructive runs it)", cmd, pos)
			return true
		}
	}
	if reason, err := r.guardProbes(ctx, it); err != nil || reason != "" {
		res.Status, res.Reason = Skip, reason
		if err != nil {
			res.Status, res.Reason = Error, err.Error()
		}
		return true
	}
	reason, err := it.t.Skip(ctx, it.c, it.proto)
	if err != nil {
		// A gate that cannot be checked is not a skip: the server failed
		// to answer a probe or COMMAND INFO.
		res.Status, res.Reason = Error, resp.LimitText(err)
		res.Malformed = malformed(err)
		return true
	}
	if reason != "" {
		res.Status, res.Reason = Skip, reason
		return true
	}
	return false
}

// guardProbes returns why the shared-server guard refuses one of the
// case's gate probes (sent before the case, in an environment of their
// own: target.ProbeEnv), or "": a probe's command is checked as a step's
// is (guardCommand), with its literal keys moved into the probe's
// namespace as runProbe sends them (target.MoveKeys); its patterns are
// not moved, so a KEYS * probe is refused.
func (r *run) guardProbes(ctx context.Context, it item) (string, error) {
	if !r.opts.guarded() {
		return "", nil
	}
	for _, g := range it.c.Gates() {
		for _, p := range g.Probes {
			env, args, err := target.ProbeArgs(p)
			if err != nil {
				return "", err
			}
			x := &caseRun{run: r, t: it.t, w: it.w, c: it.c, proto: it.proto, env: env, slot: target.KeySlot(env.KeyPrefix)}
			keys, err := x.keyPositions(ctx, args)
			if err == nil {
				target.MoveKeys(args, keys, x.caseKeys(ctx).Prefix())
				err = x.guard(ctx, nil, [][][]byte{args}, [][]int{keys})
			}
			if x.keysConn != nil {
				x.keysConn.close()
			}
			var rf *refusal
			if errors.As(err, &rf) {
				return fmt.Sprintf("probe at %s %s (--allow-destructive runs it)", p.Pos, rf.reason), nil
			}
			if err != nil {
				return "", err
			}
		}
	}
	return "", nil
}

// known returns the case's first known difference that matches the server
// in it.proto, or nil.
func (r *run) known(it item) *cases.Known {
	return it.c.KnownFor(r.srv.Info(it.proto))
}

// applyKnown turns a failure into a known difference when the case declares
// one for the server, and a pass into a failure saying that the known
// difference no longer reproduces. A known crash is settled by the lane
// (lanes.runOn): here, the server survived the case.
func (r *run) applyKnown(res *Result) {
	switch {
	case res.Known != nil && res.Known.Crash && (res.Status == Fail || res.Status == Pass):
		res.Reason = fmt.Sprintf("%s: known crash did not happen: %s %s survived the case (%s): %s",
			res.Known.Pos, r.srv.Family, r.srv.Version, res.Status, res.Known.Reason)
		res.Status = Fail
	case res.Known != nil && res.Status == Fail:
		res.Status, res.Reason = KnownDiff, res.Known.Reason
	case res.Known != nil && res.Status == Pass:
		res.Status = Fail
		res.Reason = r.unreproduced(res.Known)
	}
}

// unreproduced is the reason of a failure for known difference k, which
// did not happen.
func (r *run) unreproduced(k *cases.Known) string {
	return fmt.Sprintf("%s: known difference no longer reproduces on %s %s: %s", k.Pos, r.srv.Family, r.srv.Version, k.Reason)
}

// applyStepKnown settles the steps' known differences (stepKnown) of a
// case that got to its end, after applyKnown (a case's matching known
// difference leaves stepKnown empty): a step whose known difference did not happen
// fails the case; a step that failed as known makes a passing case known.
func (x *caseRun) applyStepKnown(res *Result) {
	switch {
	case res.Status != Pass:
	case x.stepKnown.unreproduced != nil:
		res.Status, res.Known = Fail, x.stepKnown.unreproduced
		res.Reason = x.unreproduced(res.Known)
	case x.stepKnown.known != nil:
		res.Status, res.Known, res.Failure = KnownDiff, x.stepKnown.known, x.stepKnown.fail
		res.Reason = res.Known.Reason
	}
}

// keyPrefix is the prefix of the key names of it in this run
// (cases.KeyPrefix of the run id, the case and the protocol).
func (r *run) keyPrefix(it item) string {
	id := r.opts.RunID + " " + it.c.ID() + " " + strconv.Itoa(it.proto)
	if it.again {
		id += " again" // run again alone: its first keys may still be there
	}
	return cases.KeyPrefix(id)
}

// runCase runs the steps of a gated case, then its cleanup steps, the
// check for stray replies and its known differences (see runItem for
// give and again).
func (r *run) runCase(ctx context.Context, it item, res *Result) (give *spare, again *retry) {
	x := &caseRun{run: r, t: it.t, w: it.w, c: it.c, proto: it.proto, info: r.srv.Info(it.proto), conns: map[string]*conn{},
		env: &cases.Env{KeyPrefix: r.keyPrefix(it), Captures: map[string][]byte{}}, lane: it.lane}
	x.reuse, x.once = r.reusable(ctx, it)
	res.KeyPrefix = x.env.KeyPrefix
	x.slot = target.KeySlot(x.env.KeyPrefix)
	defer x.close()
	defer context.AfterFunc(ctx, x.interrupt)()
	res.Steps = make([]StepResult, 0, len(it.c.Steps)+len(it.c.Cleanup))
	x.runSteps(ctx, res)
	// A step that erred left res an error or a skip: the stray-reply check
	// and the known differences concern passes and failures only.
	x.cleanup(ctx, res)
	x.settle(ctx, res)
	if give = x.hold(ctx, it, res); give == nil {
		// A failed check of the batch before it found the extra reply
		// the case's own check would look for: its verdict stands as
		// the case's in the batch, to compare with its run alone.
		if again = x.endBatch(ctx, it, res); again == nil {
			x.checkStray(res)
		}
	}
	r.applyKnown(res)
	x.applyStepKnown(res)
	return give, again
}

// hold keeps a plain case's connection for the run's next plain case,
// with the case's result waiting for its batch's end-of-case check (see
// spare), when the case passed on it and left it as it found it: nothing
// unread, queued or half-sent, no transaction or state changed. It returns
// the connection's spare, or nil.
func (x *caseRun) hold(ctx context.Context, it item, res *Result) *spare {
	sp := x.spare
	if sp == nil || res.Status != Pass || ctx.Err() != nil || len(x.conns) != 1 || it.put == nil {
		return nil
	}
	if res.Known != nil || x.stepKnown.unreproduced != nil {
		// A known difference that did not happen fails the case
		// (applyKnown): reported now, so that --fail-fast stops at it.
		return nil
	}
	c := x.conns["default"]
	if c != sp.c || c.closed || c.halted.Load() || len(c.pending) > 0 || len(c.pushes) > 0 || c.noSentinel || c.multi ||
		c.stateful || len(c.rawTail) > 0 || c.r.Buffered() > 0 {
		return nil
	}
	x.mu.Lock()
	delete(x.conns, "default") // not closed, nor its keys deleted, by close
	x.mu.Unlock()
	x.order = nil
	sp.held = append(sp.held, &held{it: it, res: res, keys: x.keys, put: it.put, once: x.once})
	return sp
}

// endBatch ends the batch of the spare connection a case ran on when the
// case did not end as hold wants: the batch's check runs now, on the
// case's connection. When it fails, the batch's cases and this one are
// returned, to run again alone (run.retry); otherwise the batch is
// reported and the case goes on to its own checks.
func (x *caseRun) endBatch(ctx context.Context, it item, res *Result) *retry {
	sp := x.spare
	if sp == nil || len(sp.held) == 0 {
		return nil
	}
	again, _ := x.run.check(ctx, sp)
	if again == nil {
		return nil
	}
	return &retry{cur: &held{it: it, res: res, put: it.put, once: x.once}, batch: again}
}

// runSteps runs the steps in order until one fails or errs (in a
// continue_on_failure case, until one errs: every failure is kept), and
// records the outcome in res. A step that fails as its known difference says
// (Step.KnownFor; only when no known difference of the case matches) does
// not stop the steps: it is noted in x.stepKnown, as is the first known
// step that passed.
func (x *caseRun) runSteps(ctx context.Context, res *Result) {
	for _, st := range x.c.Steps {
		x.goldenOnly = false // judge sets it; a step that fails without judge is not golden-only
		sr, fail, err := x.step(ctx, st)
		res.Steps = append(res.Steps, sr)
		if err != nil {
			stepError(res, st, err)
			x.failedBefore(res)
			return
		}
		var k *cases.Known
		if res.Known == nil {
			k = st.KnownFor(x.info)
		}
		switch {
		case fail != nil && k != nil:
			if x.stepKnown.known == nil {
				fail.Step = st
				x.stepKnown.known, x.stepKnown.fail = k, fail
			}
		case fail != nil && (x.goldenOnly || x.c.ContinueOnFailure):
			// The reply differs from the recording but meets the case's
			// own expectation, or the case goes on after a failure: the
			// later steps run all the same, so that the case ends as it
			// was written (a busy script killed, a setting restored)
			// instead of leaving the server to the next cases in a state
			// they do not expect (another family's golden: "BUSY Redis"
			// against "BUSY Valkey" left the script running, and 142 later
			// results failed with BUSY).
			fail.Step = st
			x.failed = append(x.failed, fail)
		case fail != nil:
			failAt(res, st, fail)
			return
		case k != nil && x.stepKnown.unreproduced == nil:
			x.stepKnown.unreproduced = k
		}
	}
	if len(x.failed) > 0 {
		failAt(res, x.failed[0].Step, x.failed[0])
		if x.c.ContinueOnFailure {
			res.More = x.failed[1:]
		}
	}
}

// failedBefore keeps, in res (an error or a skip of a later step), the
// failures of the steps before it (a continue_on_failure case's, or
// replies that differ from their golden only). A skip after them (the
// shared-run guard refused a later step) is a failure: the replies that
// differed are findings all the same (a replay of a capture whose
// SUBSCRIBE the guard refused was reported skipped, exit 0, with five
// replies that differed; found by a fresh user, 2026-12-07).
func (x *caseRun) failedBefore(res *Result) {
	if len(x.failed) == 0 {
		return
	}
	res.Failure = x.failed[0]
	if x.c.ContinueOnFailure {
		res.More = x.failed[1:]
	}
	if res.Status == Skip {
		refused := res.Reason
		failAt(res, res.Failure.Step, res.Failure)
		res.Reason += "; then " + refused
	}
}

// stepError records the error of step st: a skip when the shared-run
// guard refused it, else an error.
func stepError(res *Result, st *cases.Step, err error) {
	var rf *refusal
	if errors.As(err, &rf) {
		res.Status = Skip
		res.Reason = fmt.Sprintf("%s: %s (--allow-destructive runs it)", st.Pos, rf.reason)
		if ran := sentSteps(res.Steps[:max(len(res.Steps)-1, 0)]); ran > 0 {
			// Not "nothing sent": the steps before it ran.
			res.Reason += fmt.Sprintf("; the %s before it ran, and the case's keys were removed after it", fmt.Sprintf("%d %s", ran, cases.Plural(ran, "step", "steps")))
		}
		return
	}
	res.Status, res.Reason = Error, fmt.Sprintf("%s: %s", st.Pos, resp.LimitText(err))
	res.Malformed = malformed(err)
}

// sentSteps counts the steps of steps that sent something.
func sentSteps(steps []StepResult) int {
	n := 0
	for _, sr := range steps {
		if sr.SentSize > 0 {
			n++
		}
	}
	return n
}

// failAt records fail, the failure of step st.
func failAt(res *Result, st *cases.Step, fail *Failure) {
	fail.Step = st
	res.Failure = fail
	res.Status, res.Reason = Fail, fmt.Sprintf("%s: %s", fail.Where(), fail.Message)
}

// interrupt unblocks every read and write of the case at once, for a
// cancelled run (Ctrl-C): the case ends and cleans up its keys (its
// cleanup opens new connections). A step that starts after it cannot move
// the deadline back (conn.halt), and a connection added once ctx is done
// is halted as it is added (addConn): before, a SIGINT that came between a
// connection's dial and its first step left a blocking step (BLPOP 0)
// waiting out its timeout, and respcheck was ended after 5 s without its
// report (TestSIGINTOnAThrowawayServer, 6 of 20 under load).
func (x *caseRun) interrupt() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range x.conns {
		c.halt()
	}
}

// addConn makes c the case's connection name, halted if ctx is done.
func (x *caseRun) addConn(ctx context.Context, name string, c *conn) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.conns[name] = c
	if ctx.Err() != nil {
		c.halt()
	}
}

// keep copies b for a StepResult, capped at maxKept bytes, into the case's
// slab.
func (x *caseRun) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	b = b[:min(len(b), maxKept)]
	var out []byte
	if len(b) > 64<<10 {
		out = append([]byte(nil), b...)
	} else {
		if cap(x.slab)-len(x.slab) < len(b) {
			x.slab = make([]byte, 0, max(16<<10, 2*cap(x.slab)))
		}
		start := len(x.slab)
		x.slab = append(x.slab, b...)
		out = x.slab[start:len(x.slab):len(x.slab)]
	}
	// The run's password never reaches a report or a golden, wherever it
	// shows up (a CONFIG GET requirepass reply, a raw AUTH).
	if pw := x.opts.Password; len(pw) >= 4 && bytes.Contains(out, []byte(pw)) {
		copy(out, bytes.ReplaceAll(out, []byte(pw), bytes.Repeat([]byte("*"), len(pw))))
	}
	return out
}

// keepArgs is keep for each argument of a command.
func (x *caseRun) keepArgs(args [][]byte) [][]byte {
	if cap(x.argSlab)-len(x.argSlab) < len(args) {
		x.argSlab = make([][]byte, 0, max(256, len(args)))
	}
	start := len(x.argSlab)
	for _, a := range args {
		x.argSlab = append(x.argSlab, x.keep(a))
	}
	return x.argSlab[start:len(x.argSlab):len(x.argSlab)]
}

// conn returns the connection of step st ("" is "default"), dialling it
// on first use (again in cleanup, after an error) on the node the case
// places it on (Case.ConnNode, on a cluster).
func (x *caseRun) conn(ctx context.Context, st *cases.Step) (*conn, error) {
	name := st.Conn
	if name == "" {
		name = "default"
	}
	old, ok := x.conns[name]
	if ok && !old.closed {
		return old, nil
	}
	if !ok && name == cases.DefaultConn && x.reuse {
		if sp := x.run.take(x.t, x.proto); sp != nil {
			x.spare = sp
			sp.c.r.RestartOffset() // the case's offsets count from its first byte
			x.addConn(ctx, name, sp.c)
			x.order = append(x.order, name)
			return sp.c, nil
		}
	}
	c, err := dial(ctx, x.t, x.slot, x.c.ConnNode(name), name, x.proto)
	if err != nil {
		return nil, fmt.Errorf("connection %q: %w", name, err)
	}
	x.addConn(ctx, name, c)
	if ok {
		old.close() // the server closed it
	} else {
		x.order = append(x.order, name)
		if name == cases.DefaultConn && x.reuse {
			x.spare = &spare{c: c, t: x.t, w: x.w, lane: x.lane, proto: x.proto}
		}
	}
	return c, nil
}
