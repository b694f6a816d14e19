package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/internal/sched"
	"github.com/respcheck/respcheck/runner/target"
)

// Options configure Run.
type Options struct {
	// Target is how to reach the server: its address, credentials,
	// database and TLS. The recording proxy opens every upstream
	// connection with them (AUTH and SELECT done before the library's first
	// byte), so the libraries themselves need no password. Required.
	Target target.Config
	// Drivers are the libraries to run; each runs in every protocol it
	// supports that Protos allows.
	Drivers []Driver
	// Protos limits the protocols (2, 3); empty means both.
	Protos []int
	// Run selects cases whose "<file base>/<case name>" matches.
	Run *regexp.Regexp
	// StepTimeout is the deadline of one library call; 0 means 5s.
	StepTimeout time.Duration
	// RunID salts key names (see cases.KeyPrefix).
	RunID string
	// Fault makes the proxy split server→client frames.
	Fault Fault
	// Jobs is the number of (client, case) pairs run at once; 0 means
	// defaultJobs.
	Jobs int
	// OnResult is called for each finished result, one at a time.
	OnResult func(*Result)
	// StopAtFatal ends a case at its first hang or desync, or finding
	// whose canary did not come back "ok" (a crash whose canary did, an
	// exception the library raised and got over, goes on): its later
	// steps are not run (the reply generator's steps are frames of their
	// own, and what a broken connection makes of the next ones says
	// nothing about them).
	StopAtFatal bool
	// Opened, if set, is Target opened already (target.Open) by a caller
	// that runs many small Runs on it (the reply generator: a Run a
	// session): its identification and cached COMMAND INFO serve them
	// all instead of being asked for again each time.
	Opened *target.Target
	// Existing says the target is a server respcheck did not start (an
	// --addr with --allow-destructive): the literal key names of a
	// literal_keys case are then left as the case left them, as run
	// leaves them; on a throwaway server they are deleted after the case.
	Existing bool
}

// Report is the outcome of Run.
type Report struct {
	Server  target.Server
	Clients []ClientInfo
	Results []*Result
	// ServerLost says why the run ended early when the server stopped
	// answering during it; empty otherwise. respcheck exits 3 then.
	ServerLost string
	// Cases is the cases' own check, which Run leaves to its caller
	// (respcheck clients runs it): the selected cases run on raw
	// connections as respcheck run runs them, every reply compared with
	// the case's expectation. A case that fails there is the case's
	// finding (a wrong expectation, or a server that differs from it),
	// apart from the libraries' verdicts, which are judged against the
	// bytes the server sent whatever the case expects. nil when not
	// checked.
	Cases    *runner.Report
	Started  time.Time
	Duration time.Duration
}

// ClientInfo names one client of the run.
type ClientInfo struct {
	Name    string `json:"name"`
	Library string `json:"library"`
	Version string `json:"version"`
	Proto   int    `json:"proto"`
	// API is the call every step goes through (Driver.API).
	API      string   `json:"api,omitempty"`
	Contract []string `json:"contract,omitempty"`
}

// Label is "name version via API", for reports.
func (c ClientInfo) Label() string {
	s := c.Name + " " + c.Version
	if c.API != "" {
		s += " via " + c.API
	}
	return s
}

// Client returns the ClientInfo of a client name, or one with only the name.
func (r *Report) Client(name string) ClientInfo {
	for _, c := range r.Clients {
		if c.Name == name {
			return c
		}
	}
	return ClientInfo{Name: name}
}

// Result is one case run through one client.
type Result struct {
	Client  string
	Proto   int
	Case    *cases.Case
	Verdict Verdict // the worst of the steps; Skip when skipped
	Reason  string  // why skipped, or an infrastructure problem
	// NotRun says the case did not run through the client, or was cut
	// short, because the run was interrupted (Verdict Skip, Reason "not
	// run: interrupted ...") or the server was lost (Verdict Error).
	NotRun bool
	Steps  []StepView
	Wire   []WireConn
	// Duration is how long the item took once its adapter process was
	// its own (the wait for that process left out).
	Duration time.Duration
}

// StepView is what one client made of one step.
type StepView struct {
	Step   *cases.Step
	Conn   string
	Args   [][]byte
	Wire   []byte   // the command as the client sent it (if it differs from Args)
	Reply  []byte   // the exact reply bytes the client received; nil if none
	Pushes [][]byte // push frames that arrived before the reply
	// Injected are frames the proxy sent on its own before the reply
	// (Fault.ExtraAfter), which no command asked for.
	Injected [][]byte
	Native   *Native
	Verdict  Verdict
	// Rule is the ID of the rule that decided Verdict (one of Rules;
	// ruleConversion's and ruleCallback's notes cite the library's
	// source); "" for a match or a skip.
	Rule  string
	Notes []string
	// Decisive is the note (one of Notes) on the node that decided
	// Verdict by Rule, when the judge wrote one: "[0][1]: RESP blob
	// string decoded as ...". Other notes may be informational (an
	// erasure, a conversion) or consequences.
	Decisive string
	Canary   string // the canary's outcome after a surprise
	// Cluster lists, on a cluster, the MOVED and ASK replies the library
	// followed for this step and the node addresses the proxy rewrote in
	// its reply (see addrMap), one sentence each.
	Cluster []string
	Typed   string // the typed wrapper used, in typed mode
	// respelled is how the typed wrapper respells the step's arguments
	// (typedCall.Limit of a call it sent), citing the library's source.
	respelled string
}

// WireConn is the recording of one proxied connection.
type WireConn struct {
	ID int
	// Node is the server the connection went to (on a cluster, the node of
	// the proxy listener the library connected to).
	Node   string
	Events []Event
}

// InjectedFrames counts the frames the proxy sent on its own in the run
// (Event.Injected): the extra replies of Fault.ExtraAfter, and the
// protocol errors it answered oversized commands with.
func (r *Report) InjectedFrames() int {
	n := 0
	for _, res := range r.Results {
		if res == nil {
			continue
		}
		for _, w := range res.Wire {
			for _, e := range w.Events {
				if e.Injected {
					n++
				}
			}
		}
	}
	return n
}

// Worst is the worst verdict of the report.
func (r *Report) Worst() Verdict {
	w := Skip
	for _, res := range r.Results {
		w = max(w, res.Verdict)
	}
	return w
}

// Failed reports whether any result is a finding, or a case failed its
// own check (CasesFailed).
func (r *Report) Failed() bool { return r.Worst().Finding() || r.CasesFailed() }

// CasesFailed reports whether the cases' own check (Cases) has a result
// that failed or erred.
func (r *Report) CasesFailed() bool { return r.Cases != nil && r.Cases.Failed() }

type item struct {
	d     Driver
	proto int
	c     *cases.Case
	// skip is why the case cannot run on the cluster target (see
	// clusterCaseSkip), or "".
	skip string
}

// Run replays the send steps of every selected case through every driver
// and judges each decoded value against the bytes the library received.
func Run(ctx context.Context, files []*cases.File, opts Options) (*Report, error) {
	if opts.Jobs <= 0 {
		opts.Jobs = defaultJobs()
	}
	protos := sched.Defaults(&opts.StepTimeout, &opts.Jobs, opts.Protos)
	if opts.Target.Timeout <= 0 {
		opts.Target.Timeout = opts.StepTimeout
	}
	t := opts.Opened
	if t == nil {
		var err error
		if t, err = target.Open(ctx, opts.Target); err != nil {
			return nil, &target.Error{Err: err}
		}
	}
	rep := &Report{Server: t.Server, Started: time.Now()}
	var items []item
	for _, d := range opts.Drivers {
		for _, p := range d.Protos() {
			if !slices.Contains(protos, p) {
				continue
			}
			rep.Clients = append(rep.Clients, ClientInfo{Name: ClientName(d, p), Library: d.Library(),
				Version: d.Version(), Proto: p, API: d.API(), Contract: contractOf(d, ClientName(d, p)).Notes})
			for _, c := range cases.Select(files, opts.Run, nil) {
				items = append(items, item{d: d, proto: p, c: c})
			}
		}
	}
	skips := clusterSkips(ctx, t, items)
	for i := range items {
		items[i].skip = skips[items[i].c]
	}
	results := sched.NewResults(len(items), opts.OnResult, nil)
	var mu sync.Mutex
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lost := func(why string) {
		mu.Lock()
		if rep.ServerLost == "" {
			rep.ServerLost = why
		}
		mu.Unlock()
		cancel(errors.New("the server stopped answering"))
	}
	order := startOrder(items)
	parent := ctx
	// An item waits for one of its adapter's processes (poolSize) without
	// holding a job: another library's item starts instead (testdata/clients
	// on redis-8.6.3 at --jobs 16: 145 s -> 114 s, 2026-12-07).
	perAdapter := sched.Limit{N: poolSize, Key: func(k int) any {
		if ex, ok := items[order[k]].d.(exclusiveDriver); ok {
			return ex.pool()
		}
		return nil
	}}
	sched.RunLimited(ctx, len(items), opts.Jobs, 1, func(k int) bool { return items[order[k]].c.Exclusive }, perAdapter, func(k, _ int) {
		i := order[k]
		start := time.Now()
		res := precheck(ctx, items[i], t)
		if res.Verdict == Skip && res.Reason == "" {
			it := items[i]
			if ex, ok := it.d.(exclusiveDriver); ok {
				// One session at a time per adapter process (see Adapter).
				d, release, err := ex.exclusive(ctx)
				if err != nil {
					res.Reason = "not run: " + err.Error()
					results.Put(i, res)
					return
				}
				defer release()
				it.d, start = d, time.Now()
			}
			res = runItem(ctx, it, t, opts, lost, res)
		}
		if parent.Err() != nil && cutShort(res) {
			// In flight when the run was interrupted: not judged.
			res.Verdict, res.Reason, res.NotRun = Skip, "not run: "+context.Cause(parent).Error(), true
		}
		res.Duration = time.Since(start)
		results.Put(i, res)
	})
	rep.Results = results.All
	for i, res := range rep.Results {
		if res != nil && strings.HasPrefix(res.Reason, "not run: ") && res.Verdict == Skip {
			res.NotRun = true
			if rep.ServerLost != "" {
				res.Verdict = Error // not judged, because the server was lost
			}
		}
		if res == nil {
			why := "interrupted"
			if parent.Err() != nil {
				why = context.Cause(parent).Error()
			}
			rep.Results[i] = &Result{Client: ClientName(items[i].d, items[i].proto), Proto: items[i].proto,
				Case: items[i].c, Verdict: Skip, Reason: "not run: " + why, NotRun: true}
			if rep.ServerLost != "" {
				rep.Results[i].Verdict, rep.Results[i].Reason = Error, "not run: the server stopped answering"
			}
		}
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// defaultJobs is the number of (client, case) pairs Run runs at once when
// Options.Jobs is 0: 8 per CPU, since a pair mostly waits (on the proxy,
// the server, a case's own blocking step, a hang's deadline).
// cases/suite/nil.yaml through every client on redis 8.6.3, 2 CPUs: 15.2 s
// of results with 2 jobs, 11.3 s with 4, 10.0 s with 8, the same verdicts;
// testdata/clients, 2026-12-07 (an item waiting for its adapter's process
// no longer holds a job): 190 s with 8 jobs, 109 s with 16, the machine a
// third busy, the same counts but for the desyncs of the cells the
// matrices list as varying. The committed client matrices are made with 8.
func defaultJobs() int { return 8 * runtime.NumCPU() }

// cutShort reports whether res was ended by the run's end rather than
// judged to its end: never started, stopped between steps, or a call not
// judged.
func cutShort(res *Result) bool {
	if strings.HasPrefix(res.Reason, "not run: ") || strings.HasPrefix(res.Reason, "stopped: ") {
		return true
	}
	for _, sv := range res.Steps {
		for _, n := range sv.Notes {
			if strings.HasPrefix(n, "not judged: ") {
				return true
			}
		}
	}
	return false
}

// outcome is what a library call returned.
type outcome struct {
	n    Native
	hung bool
	// vals and exec are a batch's values (see batcher).
	vals []Native
	exec *Native
}

// job is one library call on a pinned connection.
type job struct {
	args  [][]byte
	typed bool
	// batch, if set, is a pipeline or transaction run as one call (args
	// is then nil).
	batch *batchCall
	// sub sends args through the library's subscribe API; deliver, if
	// set, asks for the next item the library delivered for a frame of
	// that kind, waiting at most wait (see subscriber).
	sub     bool
	deliver string
	wait    time.Duration
	done    chan outcome
	// mark is the proxy's Seq when the job was queued: its command is
	// recorded after.
	mark uint64
	// next is the job queued after this one on the same connection.
	next *job
	// filled by the worker: what the typed wrapper did (typed jobs)
	call typedCall
	// started is 1 + the proxy's Seq when the worker began the call, 0
	// before.
	started atomic.Uint64
}

// window bounds the proxy events that can be the job's command (see
// wanted): from the start of its call to the start of the next call on the
// same connection (the worker runs them one at a time).
func (j *job) window() (from, to uint64) {
	from, to = j.mark, math.MaxUint64
	if s := j.started.Load(); s > 0 {
		from = max(from, s-1)
	}
	if j.next != nil {
		if s := j.next.started.Load(); s > 0 {
			to = s - 1
		}
	}
	return from, to
}

// pinned is one case connection: its library connection and a worker that
// runs calls one at a time (async sends queue behind each other).
type pinned struct {
	name    string
	c       Conn
	jobs    chan *job
	pending []*pendingStep
	dead    string
	inMulti bool // between MULTI and EXEC/DISCARD: a canary would be queued
	// deferred names the step whose surprise inside MULTI awaits its
	// canary (sent after EXEC or DISCARD).
	deferred string
	last     *job // the job queued last
	// tap is the proxied connection this connection's commands were last
	// seen on (nil before the first).
	tap *proxyConn
	// pushTap and pushNext: the event index on pushTap after the frames
	// earlier push steps took (a "/pubsub" configuration).
	pushTap  *proxyConn
	pushNext int
}

type pendingStep struct {
	j     *job
	args  [][]byte
	start time.Time
}

type session struct {
	it      item
	t       *target.Target
	lost    func(why string) // ends the run: the server stopped answering
	opts    Options
	client  string
	proxy   *proxy
	sess    Session
	env     *cases.Env
	conns   map[string]*pinned
	owner   map[*proxyConn]*pinned // each proxied connection's case connection (see bind)
	dead    string
	canary  atomic.Int64
	ctx     context.Context
	contr   *contract
	typedOK bool
	// batched: the configuration sends pipelines and transactions
	// through its batcher (a "/pipeline" configuration), or only
	// transactions (a cluster configuration's, see clusterTx).
	batched bool
	// directs are respcheck's own connections on a cluster (see placed).
	directs map[string]directConn
	// pubsub: the configuration sends (un)subscribe steps through its
	// subscriber and judges push steps against what it delivered (a
	// "/pubsub" configuration).
	pubsub bool
	// side is respcheck's own connection for COMMAND GETKEYS, and keys
	// the case's keys as the session sends them (see args).
	side *target.Conn
	keys *target.CaseKeys
}

// exclusiveDriver is a driver whose sessions each need a process of
// their own (an adapter's, see Adapter.acquire): exclusive returns the
// driver bound to such a process, and the function that releases it.
type exclusiveDriver interface {
	exclusive(ctx context.Context) (Driver, func(), error)
	// pool names the processes the driver's sessions share.
	pool() any
}

// SessionsAtOnce is how many sessions of d (in either protocol) can run
// at once without one waiting for another: one per process of its
// adapter configuration (two), or 0 when nothing bounds them (a
// command-line client starts a process per connection).
func SessionsAtOnce(d Driver) int {
	if _, ok := d.(exclusiveDriver); ok {
		return poolSize
	}
	return 0
}

// startOrder is the order items are started in: one item of each
// adapter in turn (items of one adapter keep their order), so that the
// jobs are not all waiting for the processes of one adapter (see
// exclusiveDriver) while the others idle; the items of exclusive cases
// last, in that order among themselves. An exclusive item runs alone, so
// it waits for every item running to end first (a hang's whole
// deadline): spread through the run, the 272 items of testdata/clients'
// two exclusive cases made the jobs wait so (2026-12-07, redis-8.6.3,
// --jobs 16: 164 s; last: 145 s). Results keep the items' order.
func startOrder(items []item) []int {
	var plain, alone []item
	var at, aloneAt []int
	for i, it := range items {
		if it.c.Exclusive {
			alone, aloneAt = append(alone, it), append(aloneAt, i)
		} else {
			plain, at = append(plain, it), append(at, i)
		}
	}
	var order []int
	for _, k := range roundRobin(plain) {
		order = append(order, at[k])
	}
	for _, k := range roundRobin(alone) {
		order = append(order, aloneAt[k])
	}
	return order
}

// roundRobin orders items one of each adapter in turn, the items of one
// adapter in their order, and returns their indexes.
func roundRobin(items []item) []int {
	var keys []any
	queues := map[any][]int{}
	for i, it := range items {
		// A driver's label keys its queue: a Driver value need not be
		// comparable (a test driver with a slice field).
		var k any = it.d.Library()
		if ex, ok := it.d.(exclusiveDriver); ok {
			k = ex.pool()
		}
		if _, ok := queues[k]; !ok {
			keys = append(keys, k)
		}
		queues[k] = append(queues[k], i)
	}
	order := make([]int, 0, len(items))
	for len(order) < len(items) {
		for _, k := range keys {
			if q := queues[k]; len(q) > 0 {
				order = append(order, q[0])
				queues[k] = q[1:]
			}
		}
	}
	return order
}

// precheck decides, before the item waits for its adapter process, what
// needs no library: the run has ended, the case's gates skip it on this
// server, or a "/pipeline" configuration has nothing to batch in it. It
// returns a result whose Verdict is Skip and Reason empty when the item
// is to be run.
func precheck(ctx context.Context, it item, t *target.Target) *Result {
	res := &Result{Client: ClientName(it.d, it.proto), Proto: it.proto, Case: it.c}
	if ctx.Err() != nil {
		// The run ended (interrupted, or the server stopped answering).
		res.Reason = "not run: " + context.Cause(ctx).Error()
		return res
	}
	if why, err := t.Skip(ctx, it.c, it.proto); err != nil {
		// A gate that cannot be checked is the server's problem, not the
		// library's.
		res.Verdict, res.Reason = Error, "gate: "+err.Error()
		return res
	} else if why != "" {
		res.Reason = why
		return res
	}
	if k := t.Server.KnownCrash(it.c, it.proto); k != nil {
		res.Reason = fmt.Sprintf("known to crash %s %s (%s: %s): not run through libraries, the server would die", t.Server.Family, t.Server.Version, k.Pos, k.Reason)
		return res
	}
	if st := silentStep(it.c); st != nil {
		res.Reason = fmt.Sprintf("%s expects no reply within a time: a library call waits for a reply, so the case is not run through libraries", st.Pos)
		return res
	}
	if isBatch(it.d) && len(planBatches(it.c)) == 0 {
		res.Reason = noBatch
	}
	return res
}

// expectsClosed says whether st expects the server to close the
// connection (cases.ExpectClosed) in one of its variants.
func expectsClosed(st *cases.Step) bool { return st != nil && stepExpects(st, cases.ExpectClosed) }

// stepExpects says whether one of st's variants (Expect or Replies) is an
// expectation of kind k.
func stepExpects(st *cases.Step, k cases.ExpectKind) bool {
	for _, vs := range append([]cases.Variants{st.Expect}, st.Replies...) {
		for _, v := range vs {
			if v.Expect != nil && v.Expect.Kind == k {
				return true
			}
		}
	}
	return false
}

// silentStep returns the first send step of c that expects no reply
// within a time (cases.ExpectNoReply, for any server), or nil. Through a
// library such a step is a call that never returns: without this, every
// library would be judged to hang on CLIENT REPLY OFF. A step that
// expects the connection closed is not one: the library's call returns
// at once (EOF, or a reconnection whose reply is judged), and the case's
// other steps are judged.
func silentStep(c *cases.Case) *cases.Step {
	for _, st := range c.Steps {
		if st.Action == cases.ActSend && stepExpects(st, cases.ExpectNoReply) {
			return st
		}
	}
	return nil
}

// openTimeout is the least deadline of a session's open: an adapter's
// open only registers the session (the library connects on the first
// call, under the step deadline), and a process starved of CPU on a
// loaded machine took over 2 s to answer it, which is no crash of the
// library's.
const openTimeout = 10 * time.Second

// runItem runs one item through its library into res (see precheck).
func runItem(ctx context.Context, it item, t *target.Target, opts Options, lost func(string), res *Result) *Result {
	client := res.Client
	if ctx.Err() != nil {
		// The run ended while this item waited for its adapter.
		res.Reason = "not run: " + context.Cause(ctx).Error()
		return res
	}
	switch {
	case IsCluster(it.d) && t.Topology == nil:
		res.Reason = notClusterTarget
		return res
	case IsCluster(it.d) && clusterTxSkip(it.d, it.c) != "":
		res.Reason = clusterTxSkip(it.d, it.c)
		return res
	case it.skip != "":
		res.Reason = it.skip
		return res
	}
	if where := pubsubWhere(it.d); where != "" {
		if res.Reason = pubsubSkip(it.c, where); res.Reason != "" {
			return res
		}
	}
	env := &cases.Env{KeyPrefix: cases.KeyPrefix(opts.RunID + " clients " + client + " " + it.c.ID()), Captures: map[string][]byte{}}
	p, err := openProxy(t, opts, env.KeyPrefix)
	if err != nil {
		res.Verdict, res.Reason = Crash, "proxy: "+err.Error()
		return res
	}
	s := &session{it: it, opts: opts, client: client, proxy: p, t: t, lost: lost, conns: map[string]*pinned{}, owner: map[*proxyConn]*pinned{}, ctx: ctx,
		contr: contractOf(it.d, client), typedOK: isTyped(it.d), batched: isBatch(it.d) || IsCluster(it.d) && txOK(it.d), pubsub: pubsubWhere(it.d) != "", env: env}
	addr := p.Addr()
	if IsCluster(it.d) {
		addr = strings.Join(p.Addrs(), ",")
	}
	openCtx, cancel := context.WithTimeout(ctx, max(opts.StepTimeout, openTimeout))
	s.sess, err = it.d.Open(openCtx, addr, it.proto)
	cancel()
	if err != nil {
		p.Close()
		res.Verdict, res.Reason = Crash, "open: "+err.Error()
		var be *bootError
		switch {
		case errors.As(err, &be) && ctx.Err() == nil:
			res.Verdict, res.Reason = Error, "open: "+err.Error()+" (not the library's decoding: not judged)"
		case ctx.Err() != nil:
			res.Verdict, res.Reason = Skip, "not run: "+context.Cause(ctx).Error()
		case !t.Alive():
			res.Verdict, res.Reason = Error, "open: "+err.Error()+" (the server stopped answering: not the library's fault)"
			lost(fmt.Sprintf("the server at %s stopped answering (opening %s for %q)", t.Addr, client, it.c.Name))
		}
		return res
	}
	s.steps(res)
	s.settle(res)
	// No call is queued after the steps and the settle: each case
	// connection's worker ends once its calls have (its goroutine held the
	// session, the proxy's recording with it, for as long as respcheck
	// ran: 22 GB after 10 minutes of generated replies).
	for _, pc := range s.conns {
		close(pc.jobs)
	}
	// Close the session, but never wait on a hung library for long.
	closed := make(chan struct{})
	go func() { s.sess.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
	}
	p.Close()
	for _, tp := range p.Taps() {
		res.Wire = append(res.Wire, WireConn{ID: tp.ID, Node: tp.Node, Events: tp.Events()})
	}
	// As run does: a case that may have moved a slot is cleaned up, and
	// followed, from a settled cluster (target.Target.Settle); a cluster
	// that does not settle is left to the next case's own checks.
	settle := it.c.Exclusive && t.Topology != nil
	if settle {
		t.Settle(context.WithoutCancel(ctx), 5*time.Second)
	}
	s.cleanupSteps()
	if settle {
		t.Settle(context.WithoutCancel(ctx), 5*time.Second)
	}
	s.deleteLiteral(context.WithoutCancel(ctx))
	// The case's keys are its own (its key prefix): remove them, as run
	// does, so that a shared server keeps none (on a cluster, from the
	// node that owns their slot), within run's bound of a cleanup.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*s.opts.StepTimeout+30*time.Second)
	t.DeleteCaseKeys(dctx, s.env.KeyPrefix)
	cancel()
	return res
}

// openProxy starts the session's recording proxy: one listener forwarding
// to the server, or on a cluster one per node with the owner of the slot
// of keyPrefix first (see newClusterProxy).
func openProxy(t *target.Target, opts Options, keyPrefix string) (*proxy, error) {
	if t.Topology == nil {
		return newProxy(opts.Target, opts.Fault)
	}
	seed, err := clusterSeed(t, keyPrefix)
	if err != nil {
		return nil, err
	}
	return newClusterProxy(t, seed, opts.Fault)
}

// steps runs the case's steps into res: step by step, except the batch
// groups of a "/pipeline" configuration (see planBatches), or the MULTI …
// EXEC blocks of a cluster configuration with a transaction API (see
// clusterTx), each sent in one library call.
func (s *session) steps(res *Result) {
	var plan map[int]*batchGroup
	if s.batched {
		plan = planBatches(s.it.c)
	}
	if IsCluster(s.it.d) {
		maps.DeleteFunc(plan, func(_ int, g *batchGroup) bool { return g.mode != modeMulti })
	}
	steps := s.it.c.Steps
	for i := 0; i < len(steps); i++ {
		if s.ctx.Err() != nil {
			res.Reason = "stopped: " + context.Cause(s.ctx).Error()
			return
		}
		if g := plan[i]; g != nil {
			if views, ok := s.batch(g); ok {
				for _, sv := range views {
					settleRule(&sv)
					res.Steps = append(res.Steps, sv)
					res.Verdict = max(res.Verdict, sv.Verdict)
				}
				i += len(g.steps) - 1
				continue
			}
		}
		sv, stop := s.step(steps[i])
		if sv != nil {
			settleRule(sv)
			res.Steps = append(res.Steps, *sv)
			res.Verdict = max(res.Verdict, sv.Verdict)
		}
		if stop != "" {
			res.Reason = stop
			return
		}
		if s.opts.StopAtFatal && sv != nil && (sv.Verdict == Hang || sv.Verdict == Desync || sv.Verdict.Finding() && sv.Canary != "ok") {
			res.Reason = "stopped at the first hang, desync or finding whose canary did not come back right"
			return
		}
	}
}

func (s *session) conn(name string) (*pinned, error) {
	if pc, ok := s.conns[name]; ok {
		return pc, nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.StepTimeout)
	defer cancel()
	c, err := s.sess.Conn(ctx, name)
	if err != nil {
		return nil, err
	}
	pc := &pinned{name: name, c: c, jobs: make(chan *job, 64)}
	go func() {
		for j := range pc.jobs {
			j.started.Store(s.proxy.Seq() + 1)
			j.done <- s.call(c, j)
		}
	}()
	s.conns[name] = pc
	return pc, nil
}

// call runs one job through the library. A panic inside the library (or
// the driver) is that client's crash for this step, with the panic's value
// and stack: it never ends the run.
func (s *session) call(c Conn, j *job) (out outcome) {
	if j.batch != nil {
		return s.callBatch(c, j)
	}
	if j.sub || j.deliver != "" {
		return s.callSub(c, j)
	}
	defer func() {
		if r := recover(); r != nil {
			// A wrapper that panicked was called: its crash, not a skip.
			out.n, j.call.Sent = panicNative(r), true
		}
	}()
	if w, ok := c.(wrapper); ok && j.typed {
		// Never fall back to the generic call silently: a call the
		// wrapper did not send is a skip or inexpressible (see finish).
		out.n, j.call = w.DoTyped(s.ctx, j.args)
		return out
	}
	j.call.Sent = true
	out.n = c.Do(s.ctx, j.args)
	return out
}

// panicNative is the exception of a panic inside a library call, with its
// value and stack.
func panicNative(r any) Native {
	return errNative("exception", "panic", "panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
}

// step runs one step; stop ends the case with a reason.
func (s *session) step(st *cases.Step) (*StepView, string) {
	sv := &StepView{Step: st, Conn: st.Conn}
	switch st.Action {
	case cases.ActSleep:
		time.Sleep(st.Sleep)
		return nil, ""
	case cases.ActRaw:
		sv.Notes = []string{"raw step: not expressible through a generic command API; skipped"}
		return sv, ""
	case cases.ActPush:
		if !s.pubsub {
			sv.Notes = []string{"push step: pushes are recorded by the proxy (see the wire) but not read through the library"}
			return sv, ""
		}
	}
	if s.dead != "" {
		sv.Notes = []string{s.dead}
		return sv, ""
	}
	if s.placed(st) {
		if st.Action == cases.ActSend && !st.Async {
			s.placedStep(sv, st)
			s.capture(sv)
		} else {
			sv.Notes = []string{"an async send or read on a placed connection: not supported on respcheck's own connection; skipped"}
		}
		return sv, ""
	}
	pc, err := s.conn(st.Conn)
	if err != nil {
		sv.decide(Crash, ruleException)
		sv.Notes = []string{fmt.Sprintf("connection %q: %v", st.Conn, err)}
		return sv, ""
	}
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = s.opts.StepTimeout
	}
	switch st.Action {
	case cases.ActPush:
		s.pushStep(sv, st, timeout)
	case cases.ActSend:
		args, err := s.args(st)
		if err != nil {
			// The loader checked that every capture is made by an
			// earlier step: this one's was not sent through the library
			// (skipped) or got no reply.
			sv.Verdict = Skip
			sv.Notes = []string{fmt.Sprintf("not sent: %v (the step that captures it was skipped or got no reply through this client)", err)}
			return sv, ""
		}
		j := &job{args: args, typed: s.typedOK, sub: s.pubsub && isSubscribeStep(st), done: make(chan outcome, 1)}
		s.queue(pc, j)
		if st.Async {
			pc.pending = append(pc.pending, &pendingStep{j: j, args: args, start: time.Now()})
			return nil, ""
		}
		s.finish(sv, pc, &pendingStep{j: j, args: args, start: time.Now()}, timeout)
	case cases.ActRead:
		if len(pc.pending) == 0 {
			return nil, fmt.Sprintf("%s: read without a pending async send", st.Pos)
		}
		ps := pc.pending[0]
		pc.pending = pc.pending[1:]
		s.finish(sv, pc, ps, timeout)
	}
	s.capture(sv)
	return sv, ""
}

// capture records the capture of sv's step from the reply it received.
func (s *session) capture(sv *StepView) {
	st := sv.Step
	if st.Capture == "" || sv.Reply == nil {
		return
	}
	_, v, err := resp.Parse(sv.Reply)
	if err != nil {
		return
	}
	text := v.Raw
	if v.Kind.Textual() {
		text = v.Str
	}
	if st.CaptureMatch != nil {
		if m := st.CaptureMatch.FindSubmatch(text); m != nil {
			text = m[1]
		}
	}
	s.env.Captures[st.Capture] = bytes.Clone(text)
}

func isTyped(d Driver) bool {
	t, ok := d.(interface{ isTyped() bool })
	return ok && t.isTyped()
}

// finish waits for a call, finds the bytes the library received and judges.
func (s *session) finish(sv *StepView, pc *pinned, ps *pendingStep, timeout time.Duration) {
	sv.Args = ps.args
	a, ok := await(s.ctx, pc.c, s.proxy.Work, ps.j.done, ps.start, timeout)
	out := a.out
	if !ok {
		// The run ended meanwhile: this call is not judged.
		sv.decide(Error, ruleNotJudged)
		sv.Notes = append(sv.Notes, "not judged: "+context.Cause(s.ctx).Error())
		s.abandon("skipped: the run ended")
		return
	}
	if note := a.note(timeout); note != "" {
		defer func() { sv.Notes = append(sv.Notes, note) }()
	}
	if !out.hung && ps.j.typed && !ps.j.call.Sent {
		s.unsent(sv, pc, ps.args, ps.j.call)
		return
	}
	x, sent := s.received(sv, pc, ps, out.hung)
	if !out.hung {
		// A hung call may still be writing its job (DoTyped sets
		// call): read it only once the call returned.
		sv.Typed, sv.respelled = ps.j.call.Wrapper, ps.j.call.Limit
	}
	if out.hung {
		sv.decide(Hang, ruleHang)
		sv.Notes = append(sv.Notes, fmt.Sprintf("no result within %v", timeout))
		if fault := hungFault(pc, x); fault != nil {
			// The library may be waiting for the rest of a frame that
			// breaks RESP3: the server's finding, as for a value.
			sv.decide(Error, ruleMalformed)
			sv.Notes = append([]string{notJudgedMalformed + fault.Error()}, sv.Notes...)
		}
		if x.reply != nil {
			sv.Notes = append(sv.Notes, "the server's reply had reached the library")
		} else if sent {
			sv.Notes = append(sv.Notes, "the server had not replied yet")
		}
		s.serverCheck(sv)
		s.abandon("skipped: the session hung earlier")
		return
	}
	n := out.n
	sv.Native = &n
	if ps.j.sub || n.Kind == kindMessage {
		s.judgeSubscribe(sv, pc, x, sent, n)
	} else {
		s.judge(sv, pc, x, sent, n)
	}
	if len(sv.Injected) > 0 && sv.Verdict == Match {
		sv.Notes = append(sv.Notes, "the library dropped the frame the proxy injected before this reply")
	}
	if n.Type == "adapter" && n.Err != nil && strings.Contains(n.Err.Message, " exited") {
		// The library's process died (a panic in its own goroutine, an
		// uncaught exception): its sessions are gone with it.
		s.serverCheck(sv)
		s.abandon("skipped: the library's process died at step " + sv.Step.Pos.String())
		return
	}
	if !sent && sv.Verdict == Skip {
		return
	}
	s.probe(sv, pc, ps.args, x, timeout)
	s.serverCheck(sv)
}

// received finds the command the library sent for ps on the proxy and the
// bytes it received for it, and fills sv's wire fields.
func (s *session) received(sv *StepView, pc *pinned, ps *pendingStep, hung bool) (exchange, bool) {
	w := s.wanted(pc, ps.j, ps.args)
	x, sent := s.proxy.claim(w)
	for i := 0; !sent && !hung && i < 20; i++ {
		// A library can return before the proxy has recorded its command
		// (a reply it had buffered already): give the recording a moment.
		time.Sleep(5 * time.Millisecond)
		x, sent = s.proxy.claim(w)
	}
	if !sent {
		w.byName = true
		x, sent = s.proxy.claim(w)
		if sent {
			sv.Wire = bytes.Clone(x.tap.Events()[x.cmd].Value.Raw)
		}
	}
	if sent {
		s.bind(pc, x.tap)
	}
	if sent && x.pending && !hung {
		// The library returned before the proxy recorded its reply: a
		// reply cannot be lost in between, so wait for it briefly.
		for i := 0; i < 20 && x.pending; i++ {
			time.Sleep(10 * time.Millisecond)
			x = s.proxy.replyOf(x)
		}
	}
	if sent && s.proxy.addrs != nil {
		x = s.followRedirect(sv, pc, w, x)
		if n := rewriteNote(x); n != "" {
			sv.Cluster = append(sv.Cluster, n)
		}
	}
	fillWire(sv, x)
	return x, sent
}

// fillWire copies what the library received for x into sv: the reply (or
// the bytes that were not RESP), the pushes and the injected frames before
// it.
func fillWire(sv *StepView, x exchange) {
	if x.reply != nil {
		sv.Reply = bytes.Clone(x.reply.Raw)
	} else if x.bad != nil {
		sv.Reply = bytes.Clone(x.bad)
	}
	for _, p := range x.pushes {
		sv.Pushes = append(sv.Pushes, bytes.Clone(p.Raw))
	}
	for _, p := range x.injected {
		sv.Injected = append(sv.Injected, bytes.Clone(p.Raw))
	}
}

// judge gives the step's verdict from what the library returned (n) and
// what it received (x).
func (s *session) judge(sv *StepView, pc *pinned, x exchange, sent bool, n Native) {
	fault := x.fault
	if !sent && pc != nil && pc.tap != nil {
		// A value returned without a command of its own may be a piece
		// of an earlier malformed frame the library read.
		fault = pc.tap.fault()
	}
	switch {
	case n.Kind == kindUnsupported:
		sv.Verdict = Skip
		sv.Notes = append(sv.Notes, "not sent: "+errText(n))
		return
	case fault != nil:
		sv.decide(Error, ruleMalformed)
		sv.Notes = append(sv.Notes, notJudgedMalformed+fault.Error())
	case !sent && (n.Kind == "exception" || n.Kind == "error"):
		sv.Verdict = Skip
		msg, _, _ := strings.Cut(n.String(), "\\n") // a panic's stack stays in Native
		sv.Notes = append(sv.Notes, "the library did not send the command: "+msg)
	case !sent:
		sv.decide(Mismatch, ruleUnsent)
		sv.Notes = append(sv.Notes, "the library returned a value without sending the command")
	case x.overLimit != "":
		sv.decide(Error, ruleNotJudged)
		sv.Notes = append(sv.Notes, "not the library's fault: "+x.overLimit)
	case x.bad != nil:
		sv.decide(Error, ruleMalformed)
		sv.Notes = append(sv.Notes, notJudgedMalformed+"bytes that are not RESP")
	case x.reply == nil && x.serverEnded && expectsClosed(sv.Step) && (n.Kind == "exception" || n.Kind == "error"):
		// The step expects the server to close the connection, it did,
		// and the library said so to its user.
		sv.Verdict = Match
		sv.Notes = append(sv.Notes, "the server closed the connection, as the step expects; the library raised: "+errText(n))
	case x.reply == nil && n.Kind == "exception":
		sv.decide(Crash, ruleException)
		sv.Notes = append(sv.Notes, "no reply reached the library: "+n.String())
	case x.reply == nil:
		sv.decide(Mismatch, ruleEarly)
		sv.Notes = append(sv.Notes, "the library returned before any reply arrived")
	case s.contr.output != nil:
		st := cliStep{args: sv.Args, pushes: x.pushes, frames: append([]resp.Value{*x.reply}, x.more...),
			after: s.proxy.trailing(x), inMulti: pc.inMulti}
		st.prevArgs, st.prevFrames = s.proxy.previous(x)
		sv.Verdict, sv.Notes = s.contr.output(st, n)
		sv.Rule = outputRule(sv.Verdict)
	default:
		sv.Verdict, sv.Notes, sv.Rule, sv.Decisive = s.contr.judgeCommand(s.ctx, s.it.proto, sv.Args, append([]resp.Value{*x.reply}, x.more...), n)
	}
	if sv.Wire != nil {
		s.judgeWire(sv)
	}
}

// judgeWire judges a step whose library sent other bytes than the case's
// command (sv.Wire): the same arguments respelled as its typed wrapper
// says it respells them is inexpressible, anything else a mismatch.
func (s *session) judgeWire(sv *StepView) {
	if sv.respelled != "" && respelledOnly(sv.Wire, sv.Args) {
		sv.raise(Inexpressible, ruleInexpressible)
		sv.Notes = append(sv.Notes, fmt.Sprintf("the library sent %s for the case's command: %s", resp.Escape(sv.Wire), sv.respelled))
		return
	}
	sv.raise(Mismatch, ruleWire)
	sv.Notes = append(sv.Notes, "the library sent "+resp.Escape(sv.Wire)+", not the case's command")
	if sv.respelled != "" {
		sv.Notes = append(sv.Notes, "more than the typed wrapper's own respelling: "+sv.respelled)
	}
}

// unsent judges a typed step the wrapper did not send. Without a limit
// the adapter has no wrapper for the command: a skip. With one, the
// library's wrapper cannot express these arguments: inexpressible when
// the case says the server accepts the command (an API that cannot send
// what the server takes), a skip when the server may refuse it: its
// expectation allows an error, the command would be queued in a
// transaction (EXEC answers for it), or the step has a known difference
// on this server.
func (s *session) unsent(sv *StepView, pc *pinned, args [][]byte, call typedCall) {
	sv.Verdict = Skip
	if call.Limit == "" {
		sv.Notes = append(sv.Notes, fmt.Sprintf("no typed wrapper for %s with these arguments: not sent", args[0]))
		return
	}
	sv.Typed = call.Wrapper
	why := "the case's expectation allows an error"
	switch {
	case s.t == nil:
		why = "the server is not known"
	case pc != nil && pc.inMulti:
		why = "it would be queued in a transaction, whose EXEC answers for it"
	case knownOn(sv.Step, s.t.Server.Info(s.it.proto)):
		why = "the step has a known difference on this server"
	default:
		e, ok := sv.Step.Expect.Resolve(s.t.Server.Info(s.it.proto))
		if ok && expectsQueued(e) {
			why = "the case queues it in a transaction, whose EXEC answers for it"
		} else if ok && e.ExcludesErrors() {
			sv.decide(Inexpressible, ruleInexpressible)
			sv.Notes = append(sv.Notes, fmt.Sprintf("%s cannot send this command, which the case expects the server to accept: %s", call.Wrapper, call.Limit))
			return
		}
	}
	sv.Notes = append(sv.Notes, fmt.Sprintf("%s cannot send this command (%s); not sent, and not inexpressible, as the server may refuse it: %s", call.Wrapper, call.Limit, why))
}

// expectsQueued reports whether e is the +QUEUED of a command inside
// MULTI (its reply bytes, or a simple string QUEUED).
func expectsQueued(e *cases.Expect) bool {
	switch {
	case e.Kind == cases.ExpectBytes:
		lit, ok := e.Bytes.Literal()
		return ok && lit == "+QUEUED\r\n"
	case e.Kind == cases.ExpectValue && e.Value.Kind == resp.SimpleString && e.Value.Text != nil:
		lit, ok := e.Value.Text.Literal()
		return ok && lit == "QUEUED"
	}
	return false
}

// knownOn reports whether st has a known difference on the server info
// describes.
func knownOn(st *cases.Step, info cases.ServerInfo) bool {
	for _, k := range st.Known {
		if k.Server.Match(info) {
			return true
		}
	}
	return false
}

// probe runs the canary after a surprise, where a canary is a valid probe:
// never inside MULTI (it would be queued and change the transaction: the
// probe waits for EXEC or DISCARD), PING instead of ECHO on a RESP2
// subscribed connection (which refuses ECHO).
func (s *session) probe(sv *StepView, pc *pinned, args [][]byte, x exchange, timeout time.Duration) {
	// An error is not the library's: no canary after it.
	surprise := sv.Verdict >= Mismatch && sv.Verdict != Hang && sv.Verdict != Error
	switch strings.ToUpper(string(args[0])) {
	case "MULTI":
		pc.inMulti = x.reply != nil && x.reply.Kind == resp.SimpleString
	case "EXEC", "DISCARD":
		if pc.inMulti && pc.deferred != "" {
			surprise = true
			sv.Notes = append(sv.Notes, "canary deferred from "+pc.deferred+" (inside MULTI)")
		}
		pc.inMulti, pc.deferred = false, ""
	}
	if !surprise {
		return
	}
	if pc.inMulti {
		if pc.deferred == "" {
			pc.deferred = "step " + sv.Step.Pos.String()
		}
		sv.Canary = "deferred: inside MULTI (probed after EXEC or DISCARD)"
		return
	}
	s.canaryAfter(sv, pc, timeout)
}

// canaryAfter sends the canary after sv's surprise and adds its outcome to
// sv's verdict.
func (s *session) canaryAfter(sv *StepView, pc *pinned, timeout time.Duration) {
	sv.Canary = s.canaryCheck(pc, timeout)
	switch {
	case strings.HasPrefix(sv.Canary, processDied):
		// The library's process died: its sessions are gone, and a
		// canary cannot tell anything more.
		sv.raise(Crash, ruleExit)
		s.abandon("skipped: the library's process died at step " + sv.Step.Pos.String())
	case strings.HasPrefix(sv.Canary, canaryNotSent):
		// No verdict from a canary the library did not send.
	case strings.HasSuffix(sv.Canary, " hung"):
		sv.raise(Hang, ruleHang) // stuck, not shifted
	case strings.HasPrefix(sv.Canary, "not run: "):
		// No call for the canary on this connection (a subscribed
		// connection of a "/pubsub" configuration): nothing told.
	case sv.Canary != "ok":
		sv.raise(Desync, ruleDesync)
	}
}

// serverCheck turns a crash, hang or desync into an error when the server
// itself stopped answering: that is not the library's fault. The run then
// ends (Report.ServerLost).
func (s *session) serverCheck(sv *StepView) {
	if sv.Verdict < Crash || sv.Verdict == Error || s.t == nil || s.t.Alive() {
		return
	}
	sv.Notes = append(sv.Notes, fmt.Sprintf("judged %s, but the server stopped answering: not the library's fault", sv.Verdict))
	sv.decide(Error, ruleNotJudged)
	s.lost(fmt.Sprintf("the server at %s stopped answering (during %q through %s)", s.t.Addr, s.it.c.Name, s.client))
	s.abandon("skipped: the server stopped answering")
}

// hungFault is why a frame the server sent for x, or earlier on pc's
// connection, breaks RESP3, or nil: a library that does not return after
// such a frame is not judged (hung).
func hungFault(pc *pinned, x exchange) error {
	if x.fault != nil {
		return x.fault
	}
	if pc != nil && pc.tap != nil {
		return pc.tap.fault()
	}
	return nil
}

// notJudgedMalformed starts the note of a step whose reply depends on a
// frame of the server that breaks RESP3: whatever the library made of
// it, the step is the server's finding (Error), never a match.
const notJudgedMalformed = "not judged: the server's frame is malformed: "

// abandoner is implemented by sessions that can give up on a hung
// library (an adapter kills its process, which restarts on next use).
type abandoner interface{ Abandon() }

// abandon ends a session after a hang: later steps are skipped, the
// proxied connections are closed to unblock the library.
func (s *session) abandon(why string) {
	s.dead = why
	for _, t := range s.proxy.Taps() {
		t.Close()
	}
	if a, ok := s.sess.(abandoner); ok {
		a.Abandon()
	}
}

// processDied starts a canary outcome that is not the library's answer:
// its adapter process died (or lost the session) before the canary ran.
const processDied = "not run: the library's process died: "

// canaryNotSent starts a canary outcome when the library refused to send
// the canary (an exception, and no command on the wire): not a desync.
const canaryNotSent = "not run: the library did not send the canary: "

// canaryPrefix starts the token of every canary ECHO.
const canaryPrefix = "respcheck-canary-"

// canaryScript is the canary of a cluster client: EVAL canaryScript 1
// KEY TOKEN answers TOKEN as a blob string, from the node that owns KEY.
const canaryScript = "return ARGV[1]"

// canaryCheck sends ECHO with a fresh token on the same connection (PING
// with the token on a RESP2 connection in subscribed mode, where ECHO is
// refused and PING answers ["pong", token]): "ok" if the token comes
// back, else what came back.
func (s *session) canaryCheck(pc *pinned, timeout time.Duration) string {
	tok := canaryPrefix + strconv.FormatInt(s.canary.Add(1), 10) + "-" + s.env.KeyPrefix[4:12]
	verb := "ECHO"
	args := [][]byte{[]byte(verb), []byte(tok)}
	subscribed2 := false
	if pc.tap != nil {
		st := pc.tap.state()
		subscribed2 = st.proto == 2 && st.subscribed()
	}
	switch {
	case subscribed2:
		verb = "PING"
		args[0] = []byte(verb)
	case IsCluster(s.it.d) && !migratesSlots(s.it.c):
		// A cluster client sends a keyless ECHO to any node, so that its
		// token came back from another node's connection than the one
		// the surprise was on in one run and not in the next: the
		// canary names a key of the case's hash tag, which the library
		// routes to the node that owns the case's slot. (Not while the
		// case migrates its slot: a keyed canary would meet the
		// migration's ASK or MOVED itself.)
		verb = "EVAL"
		args = [][]byte{[]byte(verb), []byte(canaryScript), []byte("1"), []byte(s.env.KeyPrefix + "canary"), []byte(tok)}
	}
	j := &job{args: args, done: make(chan outcome, 1)}
	s.queue(pc, j)
	select {
	case out := <-j.done:
		x, sent := s.proxy.claim(s.wanted(pc, j, j.args))
		if sent {
			s.bind(pc, x.tap)
		}
		if carriesToken(out.n, tok) {
			return "ok"
		}
		if out.n.Kind == kindUnsupported {
			return "not run: " + errText(out.n)
		}
		if !sent && (out.n.Kind == "exception" || out.n.Kind == "error") {
			// The library refused the canary itself (redis-py's
			// RedisCluster finds no key to route ECHO by): it tells
			// nothing about the connection.
			msg, _, _ := strings.Cut(out.n.String(), "\\n")
			return canaryNotSent + msg
		}
		if out.n.Type == "adapter" && out.n.Err != nil {
			return processDied + out.n.Err.Message
		}
		return verb + " " + tok + " returned " + out.n.String()
	case <-time.After(timeout):
		s.abandon("skipped: the session hung earlier (canary)")
		return verb + " " + tok + " hung"
	}
}

// carriesToken reports whether a canary's value is its token: the string
// itself, or a list holding it (PING's ["pong", token] in subscribed mode).
func carriesToken(n Native, tok string) bool {
	if n.Kind == outputKind {
		return cliCarriesToken(text(&n), tok)
	}
	if b, ok := n.Bytes(); ok && (n.Kind == "string" || n.Kind == "bytes") {
		return string(b) == tok
	}
	if n.Kind == "list" && len(n.Elems) == 2 {
		return carriesToken(n.Elems[1], tok)
	}
	return false
}

// queue hands j to pc's worker.
func (s *session) queue(pc *pinned, j *job) {
	j.mark = s.proxy.Seq()
	if pc.last != nil {
		pc.last.next = j
	}
	pc.last = j
	pc.jobs <- j
}

// wanted describes the command job j on pc sent, for proxy.claim.
func (s *session) wanted(pc *pinned, j *job, args [][]byte) wanted {
	from, to := j.window()
	return wanted{args: args, from: from, to: to, own: pc.tap,
		foreign: func(t *proxyConn) bool { o := s.owner[t]; return o != nil && o != pc }}
}

// bind notes that pc's command went out on t: pc's next commands are
// looked for on t first, and other case connections' on t last. A
// connection that carried another case connection's command first stays
// that one's (a library multiplexing both over one connection).
func (s *session) bind(pc *pinned, t *proxyConn) {
	if o := s.owner[t]; o == nil {
		s.owner[t] = pc
	} else if o != pc {
		return
	}
	pc.tap = t
}
