package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// captureOptions are capture's own flags.
type captureOptions struct {
	listen      string
	out         string
	duration    time.Duration
	maxCommands int
	twin        string
	keysBefore  bool
}

// newCaptureCmd is `respcheck capture`: an application's traffic, as a
// case file.
func newCaptureCmd() *cobra.Command {
	var f targetFlags
	var o captureOptions
	cmd := &cobra.Command{
		Use:   "capture [flags]",
		Short: "Record an application's commands and the exact replies, as a case file to replay on another server",
		Long: `Capture is a RESP proxy: point the application at --listen instead of its
server (the upstream: --addr, -u, or a throwaway --server). Every byte is
forwarded unchanged; each connection's commands and the exact replies are
recorded and, when the capture ends (--duration, --max-commands, or
Ctrl-C: exit 130, the file written all the same), written as one case file
(-o): one case whose connections c1, c2, ... send the commands in the
order the proxy saw them, each reply expected byte for byte (the replies
of commands that return elements in no order, such as SMEMBERS and
HGETALL, in any order). Replay it on the next server with "respcheck run
--server valkey-9.1.2 --proto 2 capture.yaml" (or --addr; the case runs
in RESP2 only, as the proxy's connections started, and --proto 2 leaves
out its RESP3 run's skip): every failure is a reply that differs, and the
case goes on after each (continue_on_failure), so the report names them
all.

The file keeps what makes the traffic replay as it ran: connection
boundaries, pipelined and overlapping commands (async sends read where
their replies came), MULTI/EXEC and WATCH, (un)subscribe confirmations
and pub/sub messages, the application's own HELLO, and pauses of 50 ms
or more (as sleep steps, at most 5 s). Keys are written as sent: the
runner moves them into the case's namespace, so the file also runs on a
shared server. Replies that change from run to run on one server (TIME,
INFO, CLIENT ID, random picks, XADD's IDs, HELLO, SCAN cursors) expect any
reply, the captured bytes in a comment; and so does each reply that
differs when the file runs on a throwaway twin of the upstream's build
(--twin, by default the --server build: noise learned as Diffy does). AUTH
is not written (respcheck's own connection authenticates) and other secrets
are asterisks.

The keys the application found in the server are read just before the
first command that names each one, and built again at the start of the
file (on connection setup): strings, lists, sets, sorted sets, hashes and
streams, with their TTL (--keys-before=false: not).

A value the server drew and the application sent back later (an XADD *
ID, a CLIENT ID) is captured and carried: the replay sends, and expects
in replies, what its own server drew.`,
		Example: `  respcheck capture --server redis-8.6.3 --listen 127.0.0.1:6400 -o capture.yaml
  respcheck capture --addr 10.0.0.5:6379 --listen 127.0.0.1:6400 --duration 60s
  respcheck run --server valkey-9.1.2 --proto 2 capture.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.maxCommands < 0 || o.duration < 0 {
				return usageErr("--max-commands and --duration are counts and lengths: not negative")
			}
			// A --twin that cannot start is said before the capture, as
			// --server's is (it was said after the capture, beside "0
			// captured replies differed on a twin"): the build spawn
			// would look up.
			if o.twin != "" && o.twin != "none" && o.twin != "miniredis" {
				if _, err := findBuild("", o.twin); err != nil {
					return usageErr("--twin %s: %v", o.twin, err)
				}
			}
			return runCapture(cmd.Context(), f, o, cmd.ErrOrStderr())
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:0", "the proxy's `host:port`, where the application connects (port 0: a free one, printed)")
	cmd.Flags().StringVarP(&o.out, "output", "o", "capture.yaml", "the case `file` to write")
	cmd.Flags().DurationVar(&o.duration, "duration", 0, "end the capture after this long (0: at Ctrl-C or --max-commands)")
	cmd.Flags().IntVar(&o.maxCommands, "max-commands", 0, "end the capture once this many frames were recorded, commands and replies (checked ten times a second: what crossed until then is kept; 0: no limit)")
	cmd.Flags().BoolVar(&o.keysBefore, "keys-before", true, "read each key a command names first, just before it is forwarded, and build it again at the start of the file (strings, lists, sets, sorted sets, hashes, streams, with their TTL; up to 10,000 elements)")
	cmd.Flags().StringVar(&o.twin, "twin", "", "the upstream's `build`, to learn the noise on: the file is run on a throwaway server of it, and each reply that differs there expects any reply (default: the --server build; none: learn nothing)")
	return cmd
}

// runCapture proxies until the capture ends, then writes the case file.
func runCapture(ctx context.Context, f targetFlags, o captureOptions, stderr io.Writer) error {
	t, stop, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer stop()
	t.printNotes(stderr)
	if err := reachable(ctx, t); err != nil {
		return err
	}
	rec, err := clients.NewRecorderWith(ctx, t.Config, o.listen, clients.RecorderOptions{KeysBefore: o.keysBefore})
	var oe *net.OpError
	if err != nil && o.keysBefore && !(errors.As(err, &oe) && oe.Op == "listen") {
		// respcheck's own connection may not read the command table
		// (the application authenticates, respcheck does not): the
		// capture goes on without the keys.
		fmt.Fprintf(stderr, "capture: the keys found before are not read (--keys-before): %v\n", err)
		rec, err = clients.NewRecorder(t.Config, o.listen)
	}
	if err != nil {
		return usageErr("--listen %s: %v", o.listen, err)
	}
	fmt.Fprintf(stderr, "capture: proxy on %s, forwarding to %s; Ctrl-C ends it and writes %s\n", rec.Addr(), t.Addr, o.out)
	started := time.Now()
	waitCapture(ctx, rec, o, stderr)
	rec.Close()
	exchanges, bad := rec.Exchanges()
	conns, frames := rec.Counts()
	upstream := f.recordedWith()
	if f.server != "" {
		upstream = "a throwaway " + f.server
	}
	header := fmt.Sprintf("Captured by respcheck capture from %s (%s) on %s, %s: %s.\nReplay: respcheck run --server BUILD --proto 2 %s",
		t.Addr, upstream, started.UTC().Format(time.RFC3339), time.Since(started).Round(time.Second), counted(conns, frames), o.out)
	for _, c := range bad {
		header += fmt.Sprintf("\nConnection c%d sent or got bytes that are not RESP: its recording stops there.", c)
	}
	copts := capture.Options{Suite: "capture", Case: "traffic captured " + started.UTC().Format(time.RFC3339), Header: header, Before: rec.KeysBefore()}
	askCommands(ctx, t.Config, exchanges, &copts, stderr)
	copts = learnNoise(ctx, f, o, exchanges, copts, stderr)
	b := capture.CaseFile(exchanges, copts)
	if err := os.WriteFile(o.out, b, 0o644); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(stderr, "capture: %s in %s: wrote %s\n", counted(conns, frames), time.Since(started).Round(time.Millisecond), o.out)
	return nil
}

// askCommands asks the upstream which captured commands' replies have no
// order (capture.Unordered) and which commands may wait for another
// connection (capture.Blocking), into o, within 10 s (1 s after an
// interrupt, askInterrupted); where it cannot be asked (gone, COMMAND refused)
// respcheck's own lists decide, and stderr says so.
func askCommands(ctx context.Context, cfg target.Config, exchanges []clients.Exchange, o *capture.Options, stderr io.Writer) {
	if len(exchanges) == 0 {
		return
	}
	budget := 10 * time.Second
	if ctx.Err() != nil {
		budget = askInterrupted
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	tg, err := target.Open(ctx, cfg)
	if err != nil {
		tg = nil
	}
	var uerr, berr error
	o.Unordered, uerr = capture.Unordered(ctx, tg, exchanges)
	o.Blocking, berr = capture.Blocking(ctx, tg, exchanges) // the same lookups, cached
	if err = cmp.Or(err, uerr, berr); err != nil {
		fmt.Fprintf(stderr, "capture: the upstream was not asked which replies have no order (COMMAND INFO's tips) nor which commands block (its flags): respcheck's own lists decide (SMEMBERS, SINTER, SUNION, SDIFF, KEYS, HKEYS, HVALS, HGETALL; BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP, XREAD, XREADGROUP, WAIT, WAITAOF): %v\n", err)
	}
}

// counted says conns connections and frames frames ("1 connection, 2
// frames").
func counted(conns int, frames uint64) string {
	return fmt.Sprintf("%d %s, %d %s", conns, cases.Plural(conns, "connection", "connections"), frames, cases.Plural(int(frames), "frame", "frames"))
}

// reachable opens a socket to the upstream (TCP, TLS where asked; no
// command: the application may authenticate where respcheck cannot) and
// closes it: an upstream that cannot be reached is exit 3 before the
// proxy listens (it used to start, close every connection the application
// opened and exit 0; found by a fresh user, 2026-12-07).
func reachable(ctx context.Context, t endpoint) error {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := t.Config.DialSocket(dctx)
	if err != nil {
		return serverErr(fmt.Errorf("the upstream %s could not be reached: %v", t.Addr, err))
	}
	c.Close()
	return nil
}

// noiseRounds bounds the runs on the twin: each learns one reply.
const noiseRounds = 50

// learnNoise runs the capture on a throwaway twin of the upstream's build
// (--twin, else the --server build) and returns copts with the replies
// that differed there as noise (capture.LearnNoise), saying on stderr
// what it learned; without a twin, or when the twin does not start,
// copts as it was.
func learnNoise(ctx context.Context, f targetFlags, o captureOptions, exchanges []clients.Exchange, copts capture.Options, stderr io.Writer) capture.Options {
	twin := o.twin
	if twin == "" {
		twin = f.server
	}
	switch {
	case twin == "none" || len(exchanges) == 0:
		return copts
	case twin == "":
		fmt.Fprintln(stderr, "capture: noise not learned (name the upstream's build with --twin to learn it): only the fixed list of volatile commands expects any reply")
		return copts
	case ctx.Err() != nil:
		// Ctrl-C is how most captures end: the noise is learned in what
		// is left before the process is ended (forceExitAfter).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), interruptedLearning)
		defer cancel()
		fmt.Fprintf(stderr, "capture: interrupted: the noise is learned for at most %s (--duration or --max-commands leave it the time it needs)\n", interruptedLearning)
	}
	fresh := func(ctx context.Context) (runner.Options, func(), error) {
		srv, err := spawn(ctx, "", twin)
		if err != nil {
			return runner.Options{}, nil, err
		}
		return runner.Options{Addr: srv.Addr()}, func() { srv.Stop() }, nil
	}
	learned, n, err := capture.LearnNoise(ctx, exchanges, copts, fresh, noiseRounds)
	if err == nil || n > 0 {
		fmt.Fprintf(stderr, "capture: %d captured replies differed on a twin (a throwaway %s): expected as any reply%s\n", n, twin, noisyCommands(exchanges, copts.Noise, learned.Noise))
	}
	if err != nil {
		fmt.Fprintf(stderr, "capture: noise learning stopped: %v\n", err)
	}
	return learned
}

// interruptedLearning bounds the noise learning of a capture ended by
// Ctrl-C, with askInterrupted the command lookups before it: the file is
// written within forceExitAfter of the signal.
const (
	interruptedLearning = 3 * time.Second
	askInterrupted      = time.Second
)

// noisyCommands names the commands of the replies learned as noise (in
// after, not before), most first: ": XREADGROUP ×2, XPENDING ×2" (a
// fresh user's consumer groups, which the file does not build again,
// were learned as noise with nothing said of which replies).
func noisyCommands(exchanges []clients.Exchange, before, after map[int]bool) string {
	counts := map[string]int{}
	for i := range after {
		if !before[i] && i < len(exchanges) && len(exchanges[i].Args) > 0 {
			counts[strings.ToUpper(string(exchanges[i].Args[0]))]++
		}
	}
	if len(counts) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(names, func(a, b string) int { return counts[b] - counts[a] })
	var parts []string
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d", name, counts[name]))
	}
	return ": " + strings.Join(parts, ", ")
}

// waitCapture returns when the capture ends: ctx done, --duration
// passed, or --max-commands frames recorded; it prints a progress line
// every few seconds.
func waitCapture(ctx context.Context, rec *clients.Recorder, o captureOptions, stderr io.Writer) {
	var deadline <-chan time.Time
	if o.duration > 0 {
		deadline = time.After(o.duration)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	lastPrint := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline:
			return
		case <-tick.C:
		}
		conns, frames := rec.Counts()
		if o.maxCommands > 0 && frames >= uint64(o.maxCommands) {
			return
		}
		if time.Since(lastPrint) >= 5*time.Second {
			lastPrint = time.Now()
			fmt.Fprintf(stderr, "capture: %s so far\n", counted(conns, frames))
		}
	}
}
