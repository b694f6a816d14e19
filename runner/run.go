package runner

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
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
	// Jobs is the number of cases run at once, each on its own connections;
	// 0 means runtime.NumCPU().
	Jobs int
	// StepTimeout is the deadline of one step (a write and its reply) unless
	// the step sets its own; 0 means 5s.
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
	// Limits bound what the reader accepts; zero means resp.DefaultLimits.
	Limits resp.Limits
	// OnResult, if set, is called once per finished result, from one
	// goroutine at a time.
	OnResult func(*Result)
	// OnStart, if set, is called once with the number of results to come.
	OnStart func(total int)
	// Golden, if set, also compares each step whose reply matched the case's
	// expectation with a recording (package runner/golden); its Failure
	// fails the case like any other.
	Golden GoldenChecker
}

// TargetError means the target could not be reached or identified at the
// start of a run; no case ran.
type TargetError struct{ Err error }

// Error returns "target: " and the cause.
func (e *TargetError) Error() string { return "target: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TargetError) Unwrap() error { return e.Err }

// NewRunID returns a random 8-hex-digit run id for Options.RunID.
func NewRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type item struct {
	c     *cases.Case
	proto int
}

// Run executes the cases of files against opts.Addr and returns the report.
// It returns a *TargetError, and no report, when the target cannot be
// reached or identified; problems during the run are in the report
// (Report.ServerLost, results with status Error).
func Run(ctx context.Context, files []*cases.File, opts Options) (*Report, error) {
	if opts.Addr == "" {
		return nil, errors.New("runner: Options.Addr is empty")
	}
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = 5 * time.Second
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	protos := opts.Protos
	if len(protos) == 0 {
		protos = []int{2, 3}
	}
	limits := opts.Limits
	if limits == (resp.Limits{}) {
		limits = resp.DefaultLimits
	}
	d := &dialer{addr: opts.Addr, username: opts.Username, password: opts.Password, db: opts.DB, tls: opts.TLS,
		timeout: opts.StepTimeout, limits: limits}
	rep := &Report{RunID: opts.RunID, Started: time.Now()}
	srv, err := identify(ctx, d)
	if err != nil {
		return nil, &TargetError{Err: err}
	}
	rep.Server = srv
	rep.DBSize = [2]int64{-1, -1}
	if opts.Shared {
		rep.DBSize[0], _ = dbSize(d)
	}

	var items []item
	for _, f := range files {
		for _, c := range f.Cases {
			if !selected(c, opts) {
				continue
			}
			for _, p := range protos {
				items = append(items, item{c, p})
			}
		}
	}
	if opts.OnStart != nil {
		opts.OnStart(len(items))
	}
	rep.Results = make([]*Result, len(items))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{opts: opts, d: d, srv: srv,
		gates: &gateCache{d: d, commands: map[string]bool{}, infos: map[string]cmdInfo{}, probes: map[string]probeResult{}}}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var excl sync.RWMutex
	for w := 0; w < min(opts.Jobs, max(len(items), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// Exclusive cases run alone: the write lock waits for
				// running cases and holds new ones back.
				if items[i].c.Exclusive {
					excl.Lock()
				} else {
					excl.RLock()
				}
				res := r.runItem(ctx, items[i])
				if items[i].c.Exclusive {
					excl.Unlock()
				} else {
					excl.RUnlock()
				}
				if res.Status == Error && ctx.Err() == nil && !alive(d) {
					mu.Lock()
					if rep.ServerLost == nil {
						rep.ServerLost = fmt.Errorf("the server at %s stopped answering (during %q, %s)",
							d.addr, res.Case.Name, res.Reason)
					}
					mu.Unlock()
					cancel()
				}
				mu.Lock()
				rep.Results[i] = res
				if opts.OnResult != nil {
					opts.OnResult(res)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, res := range rep.Results {
		if res != nil {
			continue
		}
		// Cases never started: an error when the server was lost (they could
		// not be judged), a skip when the run was interrupted.
		res = &Result{Case: items[i].c, Proto: items[i].proto, NotRun: true,
			Status: Skip, Reason: "not run: " + context.Cause(ctx).Error()}
		if rep.ServerLost != nil {
			res.Status, res.Reason = Error, "not run: the server stopped answering"
		}
		rep.Results[i] = res
		if opts.OnResult != nil {
			opts.OnResult(res)
		}
	}
	if opts.Shared && rep.ServerLost == nil {
		r.sweep(rep.Results)
	}
	rep.KeysRemoved = r.keysRemoved.Load()
	if opts.Shared && rep.ServerLost == nil {
		rep.DBSize[1], _ = dbSize(d)
	}
	rep.count()
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// Select returns the cases of files that a run with these --run and --tags
// filters would run (in order), without contacting a server.
func Select(files []*cases.File, run *regexp.Regexp, tags []string) []*cases.Case {
	var out []*cases.Case
	opts := Options{Run: run, Tags: tags}
	for _, f := range files {
		for _, c := range f.Cases {
			if selected(c, opts) {
				out = append(out, c)
			}
		}
	}
	return out
}

// selected applies Options.Run and Options.Tags.
func selected(c *cases.Case, opts Options) bool {
	if opts.Run != nil && !opts.Run.MatchString(FullName(c)) {
		return false
	}
	if len(opts.Tags) == 0 {
		return true
	}
	for _, t := range opts.Tags {
		if slices.Contains(c.Tags, t) || (c.File != nil && slices.Contains(c.File.Tags, t)) {
			return true
		}
	}
	return false
}

// FullName is the name --run matches: the file's base name without its
// extension, a slash, and the case name ("strings/SET then GET").
func FullName(c *cases.Case) string {
	base := ""
	if c.File != nil {
		base = strings.TrimSuffix(path.Base(c.File.Path), path.Ext(c.File.Path))
	}
	return base + "/" + c.Name
}

// alive reports whether the target still answers PING within a second,
// twice, 200 ms apart: a process that is crashing (printing its panic, say)
// can still accept and answer for a moment.
func alive(d *dialer) bool {
	return ping(d) && sleepThen(200*time.Millisecond, func() bool { return ping(d) })
}

func sleepThen(d time.Duration, f func() bool) bool {
	time.Sleep(d)
	return f()
}

// ping sends PING on a new connection; any reply (even -NOAUTH) is an
// answer.
func ping(d *dialer) bool {
	probe := *d
	probe.timeout = time.Second
	probe.password, probe.db = "", 0
	c, err := probe.dial(context.Background(), "alive", 2)
	if err != nil {
		return false
	}
	defer c.close()
	_, err = c.roundTrip(time.Second, "PING")
	return err == nil
}
