package runner

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/internal/sched"
	"github.com/respcheck/respcheck/runner/target"
)

// Options configure a run. The zero value runs every case in both protocols
// against Addr with default limits.
type Options struct {
	// Addr is the target's host:port. Required.
	Addr string
	// Username and Password authenticate each connection: HELLO 3 AUTH in
	// RESP3, AUTH in RESP2. An empty Username means "default".
	Username, Password string
	// DB is selected on every connection when not 0.
	DB int
	// TLS, if not nil, wraps every connection in TLS with this
	// configuration.
	TLS *tls.Config
	// Protos lists the protocols to run each case in, 2 and/or 3; empty
	// means both.
	Protos []int
	// Run selects cases whose "<file base name>/<case name>" matches, like
	// go test -run; nil selects all.
	Run *regexp.Regexp
	// Tags selects cases carrying at least one of these tags (case or file
	// tags); empty selects all.
	Tags []string
	// Shard runs one part of the selected cases, to split a run across
	// machines (respcheck run --shard i/n): the zero value all of them.
	Shard cases.Shard
	// Jobs is the number of cases run at once, each on its own connections;
	// 0 means DefaultJobs(Shared).
	Jobs int
	// Respawn, if set, starts a fresh server in place of server i (0 is
	// Addr, then Pool) once it stopped answering, and returns its address
	// and a note on the dead one (its log tail) for the cases that ran on
	// it; the run goes on. The note's first line is a summary: a crash the
	// cases that ran declare (cases.Known.Crash) shows it alone. An error (the process is still running, frozen;
	// or it is not the run's to restart) ends the run as without Respawn.
	Respawn func(i int) (addr, note string, err error)
	// Kill, if set, ends the process of server i at once (SIGKILL). A
	// server that stopped answering while only cases that declare its
	// crash (cases.Known.Crash) ran is killed before Respawn: a crash
	// handler that froze (every thread waiting) ends as a frozen server
	// does, the watchdog's verdict then SIGKILL, and the cases are known.
	Kill func(i int) error
	// Pool lists the addresses of further servers started from the same
	// build with the same configuration as Addr (throwaway servers): cases
	// are spread over Addr and these, and an exclusive case runs alone on one
	// of them while the others go on. The run identifies Addr only, and its
	// report names that one server. Not for Shared targets.
	Pool []string
	// StepTimeout is the deadline of one step (a write and its reply) unless
	// the step sets its own; 0 means 5s. A step that takes longer errs
	// after at least StepTimeout and at most 9/8 of it (deadlines are moved
	// lazily, see conn.extend).
	StepTimeout time.Duration
	// RunID makes key names unique to this run. Empty means a fixed id,
	// which keeps key names (and so recorded bytes) identical across runs: use
	// it only against a throwaway server.
	RunID string
	// Shared says the target holds data that is not the run's: each case's
	// keys are deleted after it (SCAN MATCH and UNLINK on its key prefix,
	// also after a failure, a timeout or a cancelled context), cases that
	// send commands reaching beyond the run's keys (FLUSHALL, CONFIG SET,
	// DEBUG SLEEP, SCRIPT KILL, ...) are skipped unless AllowDestructive,
	// and the database size is checked before and after the run
	// (Report.DBSize). Set it with a random RunID.
	Shared bool
	// AllowDestructive runs cases that a Shared target would skip.
	AllowDestructive bool
	// NoACLUser keeps a Shared run (without AllowDestructive) on the
	// given credentials: by default it creates an ACL user of its own
	// where they allow ACL SETUSER, restricted to the run's keys and
	// channels, authenticates every connection as it, and deletes it at
	// the end (Report.Protection; target.RunUser).
	NoACLUser bool
	// aclAlone turns the guard off and keeps the run's ACL user: what
	// the server alone refuses (tests only: export_test.go).
	aclAlone bool
	// Limits bound what the reader accepts; zero means resp.DefaultLimits.
	Limits resp.Limits
	// OnResult, if set, is called once per result, from one goroutine at
	// a time, in the order of the items: the cases in file order, each
	// case's protocols together. A result that finishes before an earlier
	// item's is held until that one's has been passed (so a slow case
	// holds back the ones after it); the items that never started are
	// passed, NotRun, at the end. A second after the context passed to Run
	// is done (an interrupted run), the held results are passed at once and
	// the rest as they finish, so what finished is shown even if a case in
	// flight does not end.
	OnResult func(*Result)
	// OnDone, if set, is called once per result as it finishes (completion
	// order), from one goroutine at a time: for a progress count.
	OnDone func(*Result)
	// FailFast stops the run at the first case that fails or errs: no
	// further case starts (the rest are NotRun), the running ones finish
	// and clean up.
	FailFast bool
	// OnStart, if set, is called once with the number of results to come.
	OnStart func(total int)
	// Golden, if set, also compares each step whose reply matched the case's
	// expectation with a recording (package runner/golden); its Failure
	// fails the case like any other.
	Golden GoldenChecker
}

// DefaultJobs is the number of cases a run runs at once when Options.Jobs is
// 0: cases mostly wait for round trips, so 4 per CPU on a throwaway server
// (BenchmarkSmallCases: 350 small cases take 95 ms with 2 jobs and 55 ms
// with 8 on 2 CPUs, redis 8.6.3), capped at 8 on a shared target, where each
// job holds connections to a server that is not the run's.
func DefaultJobs(shared bool) int {
	n := 4 * runtime.NumCPU()
	if shared {
		n = min(n, 8)
	}
	return n
}

// DefaultServers is the size of the pool of throwaway servers a run starts
// when none is asked for: one per CPU, at least 4, so that exclusive cases
// (busy scripts, CONFIG SET) hold a server each while the others go on. On 2
// CPUs the bundled suite on redis 8.6.3 takes 7.7 s on 1 server, 4.1 s on
// 2, 3.0 s on 3 and 2.6 s on 4 (8 jobs; median of 3).
func DefaultServers() int { return max(4, runtime.NumCPU()) }

// NewRunID returns a random 8-hex-digit run id for Options.RunID.
func NewRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type item struct {
	c     *cases.Case
	proto int
	// t is the server the item runs on: the run's target, or one of its
	// pool (Options.Pool); w watches it.
	t *target.Target
	w *watchdog
	// lane is the index of the server the item was given (sched.RunPool).
	lane int
	// alone says the item may not share a connection with other cases
	// (run.reusable); again that it runs again alone after its batch's
	// end-of-case check failed (it gets a key namespace of its own).
	alone, again bool
	// put reports the item's result, once its batch is checked (held).
	put func()
}

// Run executes the cases of files against opts.Addr and returns the report.
// It returns a *target.Error, and no report, when the target cannot be
// reached or identified; problems during the run are in the report
// (Report.ServerLost, results with status Error).
//
// A watchdog probes each server on a connection of its own: once one stops
// answering (no reply to PING within the longest step timeout), the cases
// running on it end at once with an error saying so, their cleanup gets
// one short attempt, and the run ends (Report.ServerLost) unless
// Options.Respawn starts a fresh server in its place.
func Run(ctx context.Context, files []*cases.File, opts Options) (*Report, error) {
	if opts.Addr == "" {
		return nil, errors.New("runner: Options.Addr is empty")
	}
	if opts.Shared && len(opts.Pool) > 0 {
		return nil, errors.New("runner: Options.Pool is for throwaway servers, not Shared targets")
	}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs(opts.Shared)
	}
	protos := sched.Defaults(&opts.StepTimeout, &opts.Jobs, opts.Protos)
	cfg := opts.targetConfig()
	rep := &Report{RunID: opts.RunID, Started: time.Now(), Shard: opts.Shard}
	if opts.Shard.Count > 1 {
		rep.Selection = selectionID(files, opts, protos)
	}
	t, err := target.Open(ctx, cfg)
	if err != nil {
		return nil, &target.Error{Err: err}
	}
	rep.Server = t.Server
	rep.DBSize = [2]int64{-1, -1}
	if opts.Shared {
		rep.DBSize[0], _ = t.DBSize(ctx)
	}
	items := selectItems(files, opts, protos)
	if opts.OnStart != nil {
		opts.OnStart(len(items))
	}
	// The command table of the commands the cases send, in one call: a
	// server that cannot answer it is asked name by name, as gates need.
	names, subs := commandNames(items)
	t.Prefetch(ctx, names, subs)
	var drop func(*Protection)
	rep.Protection, drop = opts.protect(ctx, t)
	r := &run{opts: opts, t: t, srv: t.Server, aclUser: rep.Protection.user()}
	pool := []*target.Target{t}
	for _, addr := range opts.Pool {
		c := cfg
		c.Addr = addr
		pool = append(pool, t.Sibling(c))
	}
	r.execute(ctx, items, pool, rep)
	reachable := rep.ServerLost == nil && !r.unreachable.Load()
	if opts.Shared && reachable {
		r.sweep(rep.Results)
	}
	rep.KeysRemoved = r.keysRemoved.Load()
	rep.KeysLeft = r.keysLeft()
	if opts.Shared && reachable {
		rep.DBSize[1], _ = t.DBSize(context.Background())
	}
	if drop != nil {
		drop(rep.Protection)
	}
	rep.Topology = t.Current()
	rep.count()
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// commandNames returns the command names the send steps of items start
// with (literal ones; lower case) and, by name, the literal second
// arguments (subcommands of a container such as CONFIG or OBJECT), for
// target.Target.Prefetch.
func commandNames(items []item) ([]string, map[string][]string) {
	seen := map[*cases.Case]bool{}
	names := map[string]bool{}
	subs := map[string][]string{}
	for _, it := range items {
		if seen[it.c] {
			continue
		}
		seen[it.c] = true
		for _, steps := range [][]*cases.Step{it.c.Steps, it.c.Cleanup} {
			for _, st := range steps {
				if len(st.Send) == 0 {
					continue
				}
				name, ok := st.Send[0].Literal()
				if !ok || name == "" || len(name) > 64 {
					continue
				}
				name = strings.ToLower(name)
				names[name] = true
				if len(st.Send) > 1 {
					if sub, ok := st.Send[1].Literal(); ok && sub != "" && len(sub) <= 64 && !strings.ContainsAny(sub, " |") {
						subs[name] = append(subs[name], strings.ToLower(sub))
					}
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(names)), subs
}

// guarded reports whether the shared-server guard checks the run's
// commands: a Shared run without AllowDestructive.
func (opts Options) guarded() bool {
	return opts.Shared && !opts.AllowDestructive && !opts.aclAlone
}

// targetConfig is how the run reaches opts.Addr (its step timeout set).
func (opts Options) targetConfig() target.Config {
	limits := opts.Limits
	if limits == (resp.Limits{}) {
		limits = resp.DefaultLimits
	}
	return target.Config{Addr: opts.Addr, Username: opts.Username, Password: opts.Password, DB: opts.DB, TLS: opts.TLS,
		Timeout: opts.StepTimeout, Limits: limits}
}

// selectionID names the whole selection a shard is a part of: the first 16
// hex digits of the SHA-256 of the selected cases' IDs and protocols,
// before sharding, so that parts of one run can be told from parts of
// another (Report.Selection).
func selectionID(files []*cases.File, opts Options, protos []int) string {
	h := sha256.New()
	whole := opts
	whole.Shard = cases.Shard{}
	for _, it := range selectItems(files, whole, protos) {
		fmt.Fprintf(h, "%s\x00%d\n", it.c.ID(), it.proto)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// selectItems lists the selected cases of files, each in each protocol.
func selectItems(files []*cases.File, opts Options, protos []int) []item {
	var items []item
	pos := 0
	for _, f := range files {
		for _, c := range f.Cases {
			if !selected(c, opts) {
				continue
			}
			pos++
			if !opts.Shard.Has(pos - 1) {
				continue
			}
			for _, p := range protos {
				items = append(items, item{c: c, proto: p})
			}
		}
	}
	return items
}

// execute runs items on the servers of pool, each watched, and fills
// rep.Results, rep.ServerLost and rep.Restarts.
func (r *run) execute(ctx context.Context, items []item, pool []*target.Target, rep *Report) {
	results := sched.NewResults(len(items), r.opts.OnDone, r.opts.OnResult)
	parent := ctx
	defer releaseOnInterrupt(parent, results.Release)()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ls := newLanes(parent, ctx, cancel, r, pool, silence(items, r.opts.StepTimeout))
	r.ctx = ctx
	// Once interrupted, the keys waiting for an UNLINK go at once, before
	// a second signal can end the process without its cleanup.
	stopFlush := context.AfterFunc(parent, func() { r.unlinkPending(ls.all[0].w) })
	defer stopFlush()
	r.rerun = func(h *held) {
		res := &Result{Case: h.it.c, Proto: h.it.proto}
		ls.runOn(h.it.lane, res, func(ictx context.Context, t *target.Target, w *watchdog) {
			it := h.it
			it.t, it.w, it.alone, it.again = t, w, true, true
			r.runItem(ictx, it, res)
			if res.Status == Error {
				w.confirmDying(ictx)
			}
		})
		*h.res = *res
	}
	// --fail-fast stops handing out items; the running ones finish.
	dispatch, stopDispatch := context.WithCancelCause(ctx)
	defer stopDispatch(nil)
	stopWatch, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		r.watchIdle(ctx, len(pool), stopWatch)
	}()
	sched.RunPool(dispatch, len(items), r.opts.Jobs, len(pool), func(i int) bool { return items[i].c.Exclusive }, func(i, s int) {
		it := items[i]
		res := &Result{Case: it.c, Proto: it.proto}
		it.lane, it.put = s, func() {
			if r.opts.FailFast && (res.Status == Fail || res.Status == Error) && !res.NotRun {
				stopDispatch(errFailFast)
			}
			results.Put(i, res)
		}
		if it.c.Exclusive {
			// An exclusive item has the lane alone now: it meets no idle
			// connection of ours.
			r.closeIdle(ctx, s, 0)
		}
		var give *spare
		var again *retry
		ls.runOn(s, res, func(ictx context.Context, t *target.Target, w *watchdog) {
			it.t, it.w = t, w
			give, again = r.runItem(ictx, it, res)
			if res.Status == Error && give == nil {
				w.confirmDying(ictx) // perhaps the server is gone: ask now
			}
		})
		switch {
		case give != nil:
			r.giveBack(ctx, give) // res is reported with its batch
		case again != nil:
			r.retry(again)
		default:
			it.put()
		}
	})
	close(stopWatch)
	<-watched
	r.flushSpares(ctx)
	r.unlinkPending(ls.all[0].w) // a shared target is the only server
	cause := context.Cause(dispatch)
	// stop waits for the watchdogs: one that saw its server lost has
	// recorded it (lanes.endRun) by then.
	ls.stop()
	rep.ServerLost = ls.lostErr()
	ls.notes()
	rep.Restarts = ls.restarts
	rep.Results = results.All
	for i, res := range rep.Results {
		if res != nil {
			continue
		}
		// Cases never started: an error when the server was lost (they could
		// not be judged), a skip when the run was interrupted.
		res = &Result{Case: items[i].c, Proto: items[i].proto, NotRun: true, Status: Skip}
		if cause != nil {
			res.Reason = "not run: " + cause.Error()
		}
		if rep.ServerLost != nil {
			res.Status, res.Reason = Error, "not run: the server stopped answering"
		}
		results.Put(i, res)
	}
}

// releaseAfter is how long, once a run is interrupted, the results that
// finished after a case still in flight are held (Options.OnResult): a
// case in flight usually ends well within it, keeping the order; one that
// does not must not take the others' lines with it when the process ends
// (cmd/respcheck ends it 5 s after the signal).
const releaseAfter = time.Second

// releaseOnInterrupt calls release releaseAfter after ctx is done, unless
// stop is called first.
func releaseOnInterrupt(ctx context.Context, release func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		t := time.NewTimer(releaseAfter)
		defer t.Stop()
		select {
		case <-t.C:
			release()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// errFailFast is why the cases after the first failure did not run.
var errFailFast = errors.New("stopped at the first failure (--fail-fast)")

// silence is the longest a server may stay silent in a run of items: the
// longest step timeout (a DEBUG SLEEP or a blocking command may wait that
// long); a watchdog's PING unanswered for longer means the server is lost.
func silence(items []item, stepTimeout time.Duration) time.Duration {
	d := stepTimeout
	for _, it := range items {
		for _, steps := range [][]*cases.Step{it.c.Steps, it.c.Cleanup} {
			for _, st := range steps {
				d = max(d, st.Timeout, st.Sleep)
			}
		}
	}
	return d
}

// selected applies Options.Run and Options.Tags (see cases.Case.Selected).
func selected(c *cases.Case, opts Options) bool { return c.Selected(opts.Run, opts.Tags) }
