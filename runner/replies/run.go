package replies

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"runtime"
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
	// StepTimeout is the deadline of one library call; 0 means 1s. A
	// library whose process is still working at the deadline (its CPU
	// time grows, or it waits for one: clients' busy watch) is waited for
	// longer; one that waits on its socket is hung. A hang costs its lane
	// the deadline and a new connection: node-redis 6.3.1 in RESP3 hangs
	// on about one frame in ten (streamed strings), and 2s made its lanes
	// the run's slowest.
	StepTimeout time.Duration
	// Jobs is the number of sessions (a case through one library
	// connection) run at once, over all configurations; 0 means
	// defaultJobs.
	Jobs int
	// NoShrink leaves each finding's frame as it was generated.
	NoShrink bool
	// ShrinkBudget bounds the shrinking after the serving; 0 means
	// Duration (at least a minute).
	ShrinkBudget time.Duration
	// Progress, if set, is called after each session (a case through
	// one library connection) and each shrinking round.
	Progress func(Progress)

	// opened is Target, opened once for the whole run.
	opened *target.Target
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

// frameSet gives the frame of an id in a protocol: the frames of a
// shrinker's round (frames), or a seed's whole sequences (seeded).
type frameSet interface {
	get(proto, id int) (Frame, bool)
}

// seeded is the frames of a seed's generators, by protocol, the ones
// drawn last kept with their bytes: the lanes serve the same ids at about
// the same pace (serveLanes), so that a frame is drawn and written about
// once for all of them.
type seeded struct {
	gens map[int]*generator
	mu   sync.Mutex
	kept map[[2]int]keptFrame
	fifo [][2]int
}

// keptFrame is a frame and its bytes.
type keptFrame struct {
	f    Frame
	wire []byte
}

// seededKept is how many frames a seeded keeps (tens of MB at most).
const seededKept = 4096

func newSeeded(seed uint64, protos []int) *seeded {
	s := &seeded{gens: map[int]*generator{}, kept: map[[2]int]keptFrame{}}
	for _, p := range protos {
		s.gens[p] = newGenerator(seed, p)
	}
	return s
}

func (s *seeded) frame(proto, id int) (keptFrame, bool) {
	g, ok := s.gens[proto]
	if !ok {
		return keptFrame{}, false
	}
	k := [2]int{proto, id}
	s.mu.Lock()
	kf, ok := s.kept[k]
	s.mu.Unlock()
	if ok {
		return kf, true
	}
	f := g.Frame(id) // outside the lock: two lanes may draw it at once
	kf = keptFrame{f: f, wire: f.Bytes()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.kept[k]; !ok {
		s.kept[k] = kf
		s.fifo = append(s.fifo, k)
		if len(s.fifo) > seededKept {
			delete(s.kept, s.fifo[0])
			s.fifo = s.fifo[1:]
		}
	}
	return kf, true
}

func (s *seeded) get(proto, id int) (Frame, bool) {
	kf, ok := s.frame(proto, id)
	return kf.f, ok
}

// serveFrom is the proxy's Fault.Serve over src: a command whose key
// names a frame's id is answered with that frame.
func serveFrom(src frameSet) func(args [][]byte, proto int) []byte {
	return func(args [][]byte, proto int) []byte {
		id, ok := frameID(args)
		if !ok {
			return nil
		}
		if s, ok := src.(*seeded); ok && !isSubscribe(string(args[0])) {
			kf, _ := s.frame(proto, id)
			return kf.wire
		}
		if f, ok := src.get(proto, id); ok {
			return f.Served(args).Bytes()
		}
		return nil
	}
}

// casesFile is a file of cases that send the commands of frames ids
// (commandOf) in turn, batch frames a case (one library connection; the
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
			for _, a := range commandOf(id) {
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

// defaultJobs is Options.Jobs when 0: 24 sessions per CPU. A session
// mostly waits on its library's process; at 16 sessions this 2-CPU
// machine was half idle, at 48 busy (2026-12-07, redis-8.6.3, every
// served configuration, 2 minutes: 43,203 frames judged at 16, 97,716 at
// 48).
func defaultJobs() int { return 24 * runtime.NumCPU() }

// Run serves generated frames to every driver, in each protocol, until
// opts.Frames frames per protocol or opts.Duration, then shrinks each
// finding class. A server that stops answering ends the run (Report.ServerLost).
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = 40
	}
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = time.Second
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
	if opts.Target.Timeout <= 0 {
		opts.Target.Timeout = opts.StepTimeout
	}
	t, err := target.Open(ctx, opts.Target)
	if err != nil {
		return nil, &target.Error{Err: err}
	}
	opts.opened = t
	src := newSeeded(opts.Seed, protos)
	rep := &Report{Seed: opts.Seed, Judged: map[string]int{}, Served: map[string]int{}, Busy: map[string]time.Duration{}, NotServed: not}
	serveCtx := ctx
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		serveCtx, cancel = context.WithTimeout(ctx, opts.Duration)
		defer cancel()
	}
	if opts.Jobs <= 0 {
		opts.Jobs = defaultJobs()
	}
	if err := serveLanes(serveCtx, opts, src, lanes(plain, piped, protos), rep, map[string]*Finding{}); err != nil {
		return nil, err
	}
	slices.SortStableFunc(rep.Findings, func(a, b *Finding) int { return strings.Compare(a.Key(), b.Key()) })
	if !opts.NoShrink && rep.ServerLost == "" {
		shrinkAll(ctx, opts, rep)
	}
	rep.Duration = time.Since(start)
	return rep, nil
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
			crep, err := clients.Run(ctx, []*cases.File{file}, clients.Options{Target: opts.Target, Opened: opts.opened, Drivers: part.ds,
				Protos: protos, StepTimeout: opts.StepTimeout, Jobs: opts.Jobs, Fault: clients.Fault{Serve: serveFrom(fs)}, StopAtFatal: true})
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

// collect adds the verdicts of crep (a session's, or a shrinking
// round's) to rep, a class's frame the lowest id that gave it. stopped is
// the id of the frame after which a session judged no more (a hang, a
// desync, a finding the connection did not get over), -1 if none: its
// later frames were not judged, and are to be served again.
func collect(rep *Report, crep *clients.Report, fs frameSet, byKey map[string]*Finding) (stopped int) {
	stopped = -1
	for _, res := range crep.Results {
		if res == nil {
			continue
		}
		rep.Busy[res.Client] += res.Duration
		fatal := false
		piped := strings.Contains(res.Client, "/pipeline/")
		var before []int // the ids judged on the connection so far
		prev := -1       // the id of the frame before
		for _, fst := range stepFrames(res.Steps) {
			id, sv := fst.id, fst.sv
			if fatal {
				// After a hang or a desync the connection's later
				// replies say nothing of their own frames.
				continue
			}
			if sv.Verdict == clients.Skip && prev >= 0 && !fst.follow {
				// The library did not send it on a connection that
				// carried frames before it: an earlier frame may have
				// left the connection unusable (go-redis 9.23.0 after
				// a READONLY error inside an array). Served again
				// first on a new connection, where a skip is its own.
				fatal, stopped = true, prev
				continue
			}
			prev = id
			if !fst.follow {
				rep.Served[res.Client]++
			}
			if sv.Verdict == clients.Skip || sv.Verdict == clients.Error {
				continue
			}
			// After a finding whose canary did not come back right, and in
			// a pipeline after any finding, later values may be another
			// frame's: the library read on from where it stopped. A crash
			// whose canary came back right (an exception the library got
			// over) leaves the connection as it was (clients.Options.StopAtFatal).
			fatal = sv.Verdict == clients.Hang || sv.Verdict == clients.Desync || sv.Verdict.Finding() && (sv.Canary != "ok" || piped)
			if fatal {
				stopped = id
			}
			if !fst.follow {
				rep.Judged[res.Client]++
				before = append(before, id)
			}
			if !sv.Verdict.Finding() {
				continue
			}
			f := &Finding{Client: res.Client, Proto: res.Proto, Verdict: sv.Verdict, Rule: sv.Rule, Kind: kindNoted(sv.Decisive)}
			old, ok := byKey[f.Key()]
			if ok && old.Frame.ID <= id {
				old.Count++
				continue
			}
			frame, _ := fs.get(res.Proto, id)
			f.Count, f.Frame, f.Shrunk = 1, frame, frame
			for _, b := range before[:max(0, len(before)-1)] {
				g, _ := fs.get(res.Proto, b)
				f.Before = append(f.Before, g)
			}
			f.Notes, f.Native, f.Canary = sv.Notes, sv.Native, sv.Canary
			if fst.follow {
				f.Notes = append([]string{"at the PING sent after the frame's command on its connection"}, f.Notes...)
			}
			if ok {
				// The same class from a lower id (sessions end in any
				// order): it stands for the class, whatever the timing.
				f.Count += old.Count
				*old = *f
				continue
			}
			byKey[f.Key()] = f
			rep.Findings = append(rep.Findings, f)
		}
	}
	return stopped
}
