package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/runner/target"
)

// cleanupBudget bounds what the cases of a lost server spend on cleanup:
// one short attempt, so that the run ends soon after the loss.
func cleanupBudget(stepTimeout time.Duration) time.Duration {
	return min(stepTimeout/4, time.Second)
}

// lane is one server of a run (Options.Addr, then Options.Pool): its
// target, its watchdog, and the items running on it. An item holds mu for
// reading while it runs; a restart holds it for writing.
type lane struct {
	index int
	mu    sync.RWMutex
	t     *target.Target
	w     *watchdog

	runMu   sync.Mutex
	running map[*Result]context.CancelFunc
	// died holds the results that were running when the server was lost.
	died map[*Result]*death
}

// death is one loss of a lane's server.
type death struct {
	cause  error
	during string // " while "a" (RESP2), ... ran"
	note   string // what the restart learned: the dead server's log tail
	// known lists the cases that ran, when each declares the crash
	// (cases.Known.Crash): the restart is then one line, with the note's
	// first line only.
	known []string
}

// KnownCrashRestart starts each line of Report.Restarts that a known
// crash caused: `the known crash of "a" (RESP2): the server at ADDR died
// (CAUSE); a fresh server took its place at ADDR`.
const KnownCrashRestart = "the known crash of "

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// knownCrash reports whether res's case declares a crash of the run's
// server in res's protocol (read from the case, never from res's fields
// that its item writes).
func (r *run) knownCrash(res *Result) bool {
	k := res.Case.KnownFor(r.srv.Info(res.Proto))
	return k != nil && k.Crash
}

// lanes are the servers of a run and what the run does when one is lost.
type lanes struct {
	r       *run
	all     []*lane
	silence time.Duration
	ctx     context.Context // the run's; its cancel ends every lane
	cancel  context.CancelCauseFunc
	// parent is the context the run was given: done once the run is
	// interrupted (Ctrl-C), whereas ctx also ends with the run itself.
	parent context.Context
	// wctx is the watchdogs': it outlives ctx (a Ctrl-C) until stop, so
	// that the cleanup of an interrupted run learns of a frozen server.
	wctx    context.Context
	wcancel context.CancelFunc
	wg      sync.WaitGroup

	mu       sync.Mutex
	lost     error    // set once the run cannot go on
	restarts []string // each server started again, and why
}

// newLanes starts a watchdog for each server.
// parent is the context the run was given, ctx the run's own (cancel ends
// it).
func newLanes(parent, ctx context.Context, cancel context.CancelCauseFunc, r *run, targets []*target.Target, silence time.Duration) *lanes {
	ls := &lanes{r: r, silence: silence, ctx: ctx, cancel: cancel, parent: parent}
	ls.wctx, ls.wcancel = context.WithCancel(context.WithoutCancel(ctx))
	for i, t := range targets {
		l := &lane{index: i, t: t, running: map[*Result]context.CancelFunc{}, died: map[*Result]*death{}}
		ls.all = append(ls.all, l)
		ls.watch(l)
	}
	return ls
}

// watch starts l's watchdog on its current target, and returns once it
// has made its connections (its first probe answered, or the silence
// limit passed): a case that counts the server's connections (INFO stats'
// total_connections_received) saw the watchdog's first dial beside it
// (runner's TestMatchers, once in a CI rehearsal under load, 2026-12-07).
func (ls *lanes) watch(l *lane) {
	w := newWatchdog(l.t, ls.silence, ls.ctx)
	l.w = w
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		w.watch(ls.wctx, func(err error) { ls.lostServer(l, w, err) })
	}()
	ctx, cancel := context.WithTimeout(ls.ctx, ls.silence)
	w.confirm(ctx)
	cancel()
}

// stop ends the watchdogs and waits for restarts under way.
func (ls *lanes) stop() {
	ls.cancel(nil)
	ls.wcancel()
	ls.wg.Wait()
}

// runOn runs fn(ctx, t, w) for item res on lane s, with a context that the
// loss of that server cancels. An item that ran when the server was lost
// ends as an error saying so. While the lane's server is being started
// again, the item waits for it.
func (ls *lanes) runOn(s int, res *Result, fn func(ctx context.Context, t *target.Target, w *watchdog)) {
	l := ls.all[s]
	for {
		l.mu.RLock()
		if !l.w.isLost() || ls.r.opts.Respawn == nil || ls.ctx.Err() != nil {
			break
		}
		l.mu.RUnlock() // a restart is on its way: wait for it
		time.Sleep(10 * time.Millisecond)
	}
	defer l.mu.RUnlock()
	ctx, cancel := context.WithCancel(ls.ctx)
	defer cancel()
	// Under runMu, an item is either registered before a loss (and marked
	// by lostServer) or sees it.
	l.runMu.Lock()
	if l.w.isLost() || ls.ctx.Err() != nil {
		l.runMu.Unlock()
		res.Status, res.Reason, res.NotRun = Error, "not run: the server stopped answering", true
		if !l.w.isLost() && ls.lostErr() == nil {
			ls.notRun(res) // interrupted
		}
		return
	}
	l.running[res] = cancel
	l.runMu.Unlock()
	fn(ctx, l.t, l.w)
	if res.Status == Error && ls.parent.Err() != nil {
		// The case in flight when the run was interrupted: its error is
		// the interruption's (a cancelled step), not a finding.
		ls.notRun(res)
	}
	l.runMu.Lock()
	defer l.runMu.Unlock()
	delete(l.running, res)
	if d := l.died[res]; d != nil {
		res.Status, res.Malformed, res.NotRun = Error, false, false
		res.Reason = d.cause.Error() + ", during this case (which saw: " + res.Reason + ")"
		if k := res.Known; k != nil && k.Crash {
			// The crash the case declares (cases.Known.Crash).
			res.Status = KnownDiff
			res.Reason = k.Reason + " (known crash: " + d.cause.Error() + ")"
		}
	}
}

// notRun marks res as not run because the run was interrupted: a skip
// (Result.NotRun) whose reason names the interruption.
func (ls *lanes) notRun(res *Result) {
	res.Status, res.NotRun, res.Malformed = Skip, true, false
	res.Reason = "not run: " + context.Cause(ls.parent).Error()
	if ls.parent.Err() == nil {
		res.Reason = "not run: " + context.Cause(ls.ctx).Error()
	}
}

// lostServer records the loss w saw (w.fail), ends the items running on l,
// then starts the server again (Options.Respawn) or ends the run.
func (ls *lanes) lostServer(l *lane, w *watchdog, cause error) {
	d := &death{cause: cause}
	l.runMu.Lock()
	w.fail()
	var names []string
	known := true
	for res, cancel := range l.running {
		l.died[res] = d
		names = append(names, fmt.Sprintf("%q (RESP%d)", res.Case.Name, res.Proto))
		known = known && ls.r.knownCrash(res)
		cancel()
	}
	l.runMu.Unlock()
	slices.Sort(names)
	if known && len(names) > 0 {
		d.known = names
	}
	if len(names) > 0 {
		d.during = " while " + strings.Join(names, ", ") + " ran"
	}
	if lossHook != nil {
		lossHook(ls.ctx)
	}
	// The verdict depends on what came first, never on how soon the
	// items ended: the run's own end (its items all returned, which a
	// loss makes quick) is no interruption, and the loss is recorded
	// (exit 3) or the server started again all the same.
	if ls.parent.Err() != nil || ls.lostErr() != nil {
		// After Ctrl-C, or once another server's loss ended the run:
		// nothing is started again, and the exit status stays the
		// interruption's (or the first loss's).
		ls.r.unreachable.Store(true)
		return
	}
	if ls.r.opts.Respawn == nil {
		ls.endRun(fmt.Errorf("%w%s", cause, d.during))
		return
	}
	ls.wg.Add(1) // stop waits for it: the note reaches the results
	go func() {
		defer ls.wg.Done()
		ls.restart(l, d)
	}()
}

// lossHook, if set (by tests), runs in lostServer once the items running
// on the lost server were told, before the verdict, with the run's
// context.
var lossHook func(ctx context.Context)

// restart replaces l's server once the items that ran on it have ended.
func (ls *lanes) restart(l *lane, d *death) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.known != nil && ls.r.opts.Kill != nil {
		// A known crash whose server froze instead of exiting.
		ls.r.opts.Kill(l.index)
	}
	addr, note, err := ls.r.opts.Respawn(l.index)
	if err != nil {
		ls.endRun(fmt.Errorf("%w%s; it was not started again: %v", d.cause, d.during, err))
		return
	}
	line := fmt.Sprintf("%v%s; a fresh server took its place at %s; %s", d.cause, d.during, addr, note)
	if d.known != nil {
		note = firstLine(note)
		died := "the server at " + l.t.Addr + " died"
		if rest, ok := strings.CutPrefix(note, "the server died"); ok {
			died += rest // " (CAUSE)"
		} else if note != "" {
			died += ": " + note
		}
		line = fmt.Sprintf("%s%s: %s; a fresh server took its place at %s", KnownCrashRestart, strings.Join(d.known, ", "), died, addr)
	}
	l.runMu.Lock()
	d.note = note
	l.runMu.Unlock()
	cfg := l.t.Config
	cfg.Addr = addr
	l.t = l.t.Sibling(cfg)
	ls.mu.Lock()
	ls.restarts = append(ls.restarts, line)
	ls.mu.Unlock()
	if ls.ctx.Err() == nil {
		ls.watch(l)
	}
}

// notes appends to the reason of each result that ran when its server died
// what the restart learned (the dead server's log tail); call it once every
// item has ended.
func (ls *lanes) notes() {
	for _, l := range ls.all {
		for res, d := range l.died {
			if d.note != "" {
				res.Reason += "; " + d.note
			}
		}
	}
}

// endRun records why the run cannot go on and cancels it.
func (ls *lanes) endRun(err error) {
	ls.mu.Lock()
	if ls.lost == nil {
		ls.lost = err
	}
	ls.mu.Unlock()
	ls.cancel(err)
}

// lostErr is the reason the run could not go on, or nil.
func (ls *lanes) lostErr() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.lost
}
