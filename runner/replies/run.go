package replies

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// ErrNoClient is Run's error when no driver can be served (each one's
// reason follows it).
var ErrNoClient = errors.New("replies: no client configuration to serve generated replies to")

// Options configure Run.
type Options struct {
	// Target is the server the proxy forwards to: it answers the
	// libraries' handshakes and canaries, and every generated command (a
	// GET of a missing key) before the proxy replaces its reply.
	Target target.Config
	// Drivers are the client configurations to serve frames to.
	Drivers []clients.Driver
	// Protos limits the protocols (2, 3); empty means both.
	Protos []int
	// Seed draws the frames: the same seed gives the same frames.
	Seed uint64
	// Frames is the number of frames per protocol each client receives;
	// 0 means until Duration ends.
	Frames int
	// Duration bounds the serving (shrinking comes after); 0 means no
	// bound (Frames is then required).
	Duration time.Duration
	// Batch is the number of frames per case (one library connection);
	// 0 means 40.
	Batch int
	// StepTimeout is the deadline of one library call; 0 means 2s.
	StepTimeout time.Duration
	// Jobs is the number of (client, case) pairs run at once; 0 means
	// clients.DefaultJobs.
	Jobs int
	// NoShrink leaves each finding's frame as it was generated.
	NoShrink bool
	// ShrinkBudget bounds the shrinking after the serving; 0 means
	// Duration (at least a minute).
	ShrinkBudget time.Duration
	// Progress, if set, is called after each round of cases.
	Progress func(Progress)
}

// Progress is how far a Run is.
type Progress struct {
	Frames   int // frames judged so far, all clients
	Findings int // distinct (client, verdict, rule) so far
	Shrunk   int // findings shrunk so far
}

// Report is the outcome of Run.
type Report struct {
	Seed    uint64
	Server  target.Server
	Clients []clients.ClientInfo
	// Judged counts, per client name, the frames judged (skipped steps
	// and steps not judged left out).
	Judged map[string]int
	// Served counts, per client name, the frames served.
	Served map[string]int
	// Busy is, per client name, the time its cases took (their adapter
	// process their own: see clients.Result.Duration).
	Busy     map[string]time.Duration
	Findings []*Finding
	// NotServed says, per library, why it got no frames.
	NotServed map[string]string
	// ServerLost is why the run ended early, if the server stopped
	// answering.
	ServerLost string
	Duration   time.Duration
}

// Finding is one class of finding: a client, a verdict, the judge's rule
// and the RESP type the judge's deciding note names (the element it found
// wrong; "" when it names none, as for a crash), with the first frame
// that gave it and that frame shrunk.
type Finding struct {
	Client  string
	Proto   int
	Verdict clients.Verdict
	Rule    string
	Kind    string
	// Count is how many frames gave this class.
	Count int
	// Frame is the first frame that gave it; Shrunk the smallest frame
	// found that gives it too (Frame when not shrunk).
	Frame, Shrunk Frame
	// Notes, Native and Canary are the judge's view of Shrunk.
	Notes  []string
	Native *clients.Native
	Canary string
	// Before are the frames the library read on the same connection
	// before Frame.
	Before []Frame
	// Alone says Frame, served alone on a new connection, gives the
	// class again (then Shrunk is shrunk); false when the class came from
	// Frame after Before only, or shrinking was not asked for.
	Alone bool
}

// Command is the command the finding's frames answered, its key written
// {key} ("HGETALL {key}").
func (f *Finding) Command() string { return strings.Join(commandWith(f.Frame.ID, "{key}"), " ") }

// Key is the finding's class: "client verdict rule kind".
func (f *Finding) Key() string {
	return strings.TrimSpace(f.Client + " " + f.Verdict.String() + " " + f.Rule + " " + f.Kind)
}

// kindNoted is the RESP type the judge's deciding note names ("RESP blob
// error decoded as ..."), or "".
func kindNoted(note string) string {
	if m := notedKind.FindStringSubmatch(note); m != nil {
		return m[1]
	}
	return ""
}

var notedKind = regexp.MustCompile(`RESP ((?:simple|blob|verbatim|big|nil blob|nil) \w+|integer|array|null|double|boolean|map|set|attribute|push)\b`)

// frames holds the frames served so far by id, per protocol.
type frames struct {
	mu sync.RWMutex
	by [4]map[int]Frame
}

func (fs *frames) put(f Frame) {
	fs.mu.Lock()
	if fs.by[f.Proto] == nil {
		fs.by[f.Proto] = map[int]Frame{}
	}
	fs.by[f.Proto][f.ID] = f
	fs.mu.Unlock()
}

func (fs *frames) get(proto, id int) (Frame, bool) {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	f, ok := fs.by[proto][id]
	return f, ok
}

// serve is the proxy's Fault.Serve over fs.
func (fs *frames) serve(args [][]byte, proto int) []byte {
	id, ok := frameID(args)
	if !ok {
		return nil
	}
	if f, ok := fs.get(proto, id); ok {
		return f.Served(args).Bytes()
	}
	return nil
}

// casesFile is a file of cases that send the commands of frames ids
// (CommandOf) in turn, batch frames a case (one library connection; the
// last case may have fewer); pipelined, each case sends its commands at
// once (async) and then reads the replies, as a "/pipeline" configuration
// runs them through its pipeline API. A command that changes the
// connection's state (terminal: HELLO 3, SUBSCRIBE...) is a case of its
// own; a pipeline sends none.
func casesFile(ids []int, batch int, pipelined bool) (*cases.File, error) {
	var b strings.Builder
	b.WriteString("suite: generated replies\ncases:\n")
	var part []int
	flush := func() {
		if len(part) == 0 {
			return
		}
		fmt.Fprintf(&b, "  - name: frames %d\n    steps:\n", part[0])
		for _, id := range part {
			var args []string
			for _, a := range CommandOf(id) {
				args = append(args, strconv.Quote(a))
			}
			if pipelined {
				fmt.Fprintf(&b, "      - {send: [%s], async: true}\n", strings.Join(args, ", "))
			} else {
				fmt.Fprintf(&b, "      - {send: [%s], any: true}\n", strings.Join(args, ", "))
			}
			if followed(id) {
				b.WriteString("      - {send: [PING], any: true}\n")
			}
		}
		for range part {
			if pipelined {
				b.WriteString("      - {read: true, any: true}\n")
			}
		}
		part = part[:0]
	}
	for _, id := range ids {
		switch {
		case terminal(id) && pipelined:
		case terminal(id):
			flush()
			part = append(part, id)
			flush()
		default:
			part = append(part, id)
			if len(part) == batch {
				flush()
			}
		}
	}
	flush()
	return cases.Load("generated.yaml", []byte(b.String()))
}

// served splits drivers into those served generic calls and those served
// pipelines ("/pipeline" configurations); the rest are not served, with
// why: a cluster client (standalone only), a subscribe API, a typed API
// (wrappers typed for each command's reply).
func served(ds []clients.Driver) (plain, piped []clients.Driver, not map[string]string) {
	not = map[string]string{}
	for _, d := range ds {
		lib := d.Library()
		switch {
		case clients.IsCluster(d):
			not[lib] = "a cluster client: generated replies are served on a standalone server"
		case strings.HasSuffix(lib, "/pubsub"):
			not[lib] = "a subscribe API: generated replies answer GET and other reads, which it does not send"
		case strings.Contains(lib, "-typed"):
			not[lib] = "a typed API: its wrappers expect each command's reply types"
		case strings.HasSuffix(lib, "/pipeline"):
			piped = append(piped, d)
		default:
			plain = append(plain, d)
		}
	}
	return plain, piped, not
}

// Run serves generated frames to every driver, in each protocol, until
// opts.Frames frames per protocol or opts.Duration, then shrinks each
// finding class. A server that stops answering ends the run (Report.ServerLost).
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = 40
	}
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = 2 * time.Second
	}
	if opts.Frames <= 0 && opts.Duration <= 0 {
		return nil, fmt.Errorf("replies: neither Frames nor Duration set")
	}
	protos := opts.Protos
	if len(protos) == 0 {
		protos = []int{2, 3}
	}
	start := time.Now()
	plain, piped, not := served(opts.Drivers)
	if len(plain)+len(piped) == 0 {
		var why []string
		for _, lib := range slices.Sorted(maps.Keys(not)) {
			why = append(why, lib+": "+not[lib])
		}
		return nil, fmt.Errorf("%w (%s)", ErrNoClient, strings.Join(why, "; "))
	}
	gens := map[int]*Generator{}
	for _, p := range protos {
		gens[p] = NewGenerator(opts.Seed, p)
	}
	rep := &Report{Seed: opts.Seed, Judged: map[string]int{}, Served: map[string]int{}, Busy: map[string]time.Duration{}, NotServed: not}
	byKey := map[string]*Finding{}
	serveCtx := ctx
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		serveCtx, cancel = context.WithTimeout(ctx, opts.Duration)
		defer cancel()
	}
	perCase := max(1, opts.Jobs)
	if opts.Jobs <= 0 {
		perCase = clients.DefaultJobs()
	}
	next := 0
	for serveCtx.Err() == nil && (opts.Frames <= 0 || next < opts.Frames) {
		n := perCase * opts.Batch // frames this round
		if opts.Frames > 0 {
			n = min(n, opts.Frames-next)
		}
		// A round's frames are kept for the round only (a finding keeps
		// its own).
		fs := &frames{}
		for _, p := range protos {
			for range n {
				fs.put(gens[p].Next())
			}
		}
		reps, err := serveRound(serveCtx, opts, fs, idRange(next, n), opts.Batch, plain, piped, protos)
		if err != nil {
			return nil, err
		}
		next += n
		for _, crep := range reps {
			rep.Server = crep.Server
			rep.Clients = mergeClients(rep.Clients, crep.Clients)
			collect(rep, crep, fs, byKey)
			if crep.ServerLost != "" && rep.ServerLost == "" {
				rep.ServerLost = crep.ServerLost
			}
		}
		if rep.ServerLost != "" {
			break
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Frames: total(rep.Judged), Findings: len(rep.Findings)})
		}
	}
	if !opts.NoShrink && rep.ServerLost == "" {
		shrinkAll(ctx, opts, rep)
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// idRange is first … first+n-1.
func idRange(first, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	return ids
}

// serveRound serves frames ids (in fs), batch a case: generic calls to
// plain, pipelines to piped, both at once.
func serveRound(ctx context.Context, opts Options, fs *frames, ids []int, batch int, plain, piped []clients.Driver, protos []int) ([]*clients.Report, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		reps []*clients.Report
		errs []error
	)
	for _, part := range []struct {
		ds        []clients.Driver
		pipelined bool
	}{{plain, false}, {piped, true}} {
		if len(part.ds) == 0 {
			continue
		}
		file, err := casesFile(ids, batch, part.pipelined)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			crep, err := clients.Run(ctx, []*cases.File{file}, clients.Options{Target: opts.Target, Drivers: part.ds,
				Protos: protos, StepTimeout: opts.StepTimeout, Jobs: opts.Jobs, Fault: clients.Fault{Serve: fs.serve}, StopAtFatal: true})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			reps = append(reps, crep)
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return reps, nil
}

// mergeClients adds the clients of add that have is not already.
func mergeClients(have, add []clients.ClientInfo) []clients.ClientInfo {
	for _, c := range add {
		if !slices.ContainsFunc(have, func(h clients.ClientInfo) bool { return h.Name == c.Name }) {
			have = append(have, c)
		}
	}
	return have
}

// shrinkTime bounds the shrinking of one finding (a frame that gives a
// hang costs StepTimeout a candidate); shrinkers is how many findings
// shrink at once.
const (
	shrinkTime = 20 * time.Second
	shrinkers  = 4
)

// shrinkAll shrinks rep's findings, shrinkers at a time, the most
// frequent first, within opts.ShrinkBudget: a finding not reached keeps
// its frame as generated (Finding.Alone false).
func shrinkAll(ctx context.Context, opts Options, rep *Report) {
	budget := opts.ShrinkBudget
	if budget <= 0 {
		budget = max(opts.Duration, time.Minute)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	order := slices.Clone(rep.Findings)
	slices.SortStableFunc(order, func(a, b *Finding) int { return b.Count - a.Count })
	work := make(chan *Finding)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range shrinkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				fctx, cancel := context.WithTimeout(ctx, shrinkTime)
				shrinkFinding(fctx, opts, f)
				cancel()
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(Progress{Frames: total(rep.Judged), Findings: len(rep.Findings), Shrunk: done})
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range order {
		if ctx.Err() != nil {
			break
		}
		work <- f
	}
	close(work)
	wg.Wait()
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// collect adds one round's verdicts to rep.
func collect(rep *Report, crep *clients.Report, fs *frames, byKey map[string]*Finding) {
	for _, res := range crep.Results {
		if res == nil {
			continue
		}
		rep.Busy[res.Client] += res.Duration
		fatal := false
		piped := strings.Contains(res.Client, "/pipeline/")
		var before []Frame
		for _, fst := range stepFrames(res.Steps) {
			id, sv := fst.id, fst.sv
			if !fst.follow {
				rep.Served[res.Client]++
			}
			if fatal || sv.Verdict == clients.Skip || sv.Verdict == clients.Error {
				// After a hang or a desync the connection's later
				// replies say nothing of their own frames.
				continue
			}
			// After a finding whose canary did not come back right, and in
			// a pipeline after any finding, later values may be another
			// frame's: the library read on from where it stopped. A crash
			// whose canary came back right (an exception the library got
			// over) leaves the connection as it was (clients.Options.StopAtFatal).
			fatal = sv.Verdict == clients.Hang || sv.Verdict == clients.Desync || sv.Verdict.Finding() && (sv.Canary != "ok" || piped)
			frame, _ := fs.get(res.Proto, id)
			if !fst.follow {
				rep.Judged[res.Client]++
				before = append(before, frame)
			}
			if !sv.Verdict.Finding() {
				continue
			}
			f := &Finding{Client: res.Client, Proto: res.Proto, Verdict: sv.Verdict, Rule: sv.Rule, Kind: kindNoted(sv.Decisive)}
			if old, ok := byKey[f.Key()]; ok {
				old.Count++
				continue
			}
			f.Count, f.Frame, f.Shrunk, f.Before = 1, frame, frame, slices.Clone(before[:len(before)-1])
			f.Notes, f.Native, f.Canary = sv.Notes, sv.Native, sv.Canary
			if fst.follow {
				f.Notes = append([]string{"at the PING sent after the frame's command on its connection"}, f.Notes...)
			}
			byKey[f.Key()] = f
			rep.Findings = append(rep.Findings, f)
		}
	}
	slices.SortStableFunc(rep.Findings, func(a, b *Finding) int { return strings.Compare(a.Key(), b.Key()) })
}
