package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/explore"
	"github.com/respcheck/respcheck/runner/schema"
	"github.com/respcheck/respcheck/runner/target"
)

// exploreFlags are explore's own flags.
type exploreFlags struct {
	against   string
	seed      uint64
	duration  time.Duration
	sequences int
	length    int
	proto     int
	out       string
	timeout   time.Duration
	format    string
	schema    bool
	// busy is the share of sequences with a busy block; busySet says
	// the user gave it.
	busy    float64
	busySet bool
}

// newExploreCmd is `respcheck explore`: generated commands compared
// across two servers.
func newExploreCmd() *cobra.Command {
	var f targetFlags
	var x exploreFlags
	cmd := &cobra.Command{
		Use:   "explore --against B [flags]",
		Short: "Send generated commands to two servers and report where their replies differ, shrunk to case files",
		Long: `Explore looks for differences nobody wrote a case for. It reads the
command grammar of the target (A: --server, --addr or -u, as run) from
COMMAND DOCS, draws sequences of commands of the data types (strings,
lists, sets, sorted sets, hashes, bitmaps, HyperLogLogs, geo, streams,
generic) and, as often as one of them, session commands (PING, HELLO,
CLIENT, COMMAND, scripts and digests, unknown names, MULTI blocks; none
that changes the server, and what one leaves on its connection is undone
after each sequence; and, on throwaway servers, one sequence in a
thousand holds a busy block: a script past busy-reply-threshold while
PING, GET and the kills are sent) with edge values
and, one time in ten, arguments the grammar does not allow (one command in
ten runs inside a Lua script: EVAL(CMD), EVAL3(CMD) after
redis.setresp(3), or EVAL_RO(CMD)), and runs each sequence on A and on B
(--against) from the same small keyspace (keys under {rx}:), in RESP2 and
RESP3, comparing every reply byte for byte.

What legitimately differs is learned: each sequence also runs on a
second server of A's build (on A again when A is an existing server); a
command whose reply differs there is noise from then on (in those fields
only, when a few of a map's differ), one
whose reply differs only in its elements' order is compared as a
multiset.

Each distinct difference (command, protocol and the two replies' types
or error texts) is shrunk to the shortest sequence that still shows it
and, with --out, written as a case file that expects A's replies and B's
under a selector for B: ready to review and commit into a suite. A B that
stops answering ends the run as a finding. The same --seed draws the same
sequences. Exit 1 when a difference was found, 0 when none.

--against is a build to start (redis-8.6.3, valkey-9.1.2, miniredis), a
host:port or a redis:// URL. With --cluster N, A and a build B are
throwaway clusters; on a cluster the sequences go to the primary that owns
the keyspace's slot (every key is under the {rx} hash tag).`,
		Example: `  respcheck explore --server redis-8.6.3 --against valkey-9.1.2 --duration 1m --out found/
  respcheck explore --server redis-8.6.3 --against miniredis --seed 7 --sequences 2000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			x.busySet = cmd.Flags().Changed("busy")
			return runExplore(cmd, f, x)
		},
	}
	f.register(cmd.Flags())
	f.cluster.register(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&x.against, "against", "", "the server B to compare with: a build to start (valkey-9.1.2, miniredis), host:port or a redis:// URL (required)")
	fl.Uint64Var(&x.seed, "seed", 0, "draw the sequences from this seed (0: a random one; the seed is printed, so that a run can be repeated)")
	fl.DurationVar(&x.duration, "duration", time.Minute, "explore this long (0: until --sequences)")
	fl.IntVar(&x.sequences, "sequences", 0, "stop after this many sequences (0: until --duration)")
	fl.IntVar(&x.length, "length", 20, "commands per sequence")
	fl.IntVar(&x.proto, "proto", 0, "run the sequences in this protocol only (2 or 3; 0: both)")
	choices(fl, "proto", "2", "3", "0")
	fl.StringVar(&x.out, "out", "", "write the differences as a case file into this `directory`")
	fl.DurationVar(&x.timeout, "timeout", 5*time.Second, "a server that does not answer a sequence within this long is lost")
	fl.BoolVar(&x.schema, "check-schema", false, "also check each of A's RESP3 replies against A's build's reply schemas (installed by scripts/install-schemas.sh): a reply a schema rejects is a finding of A, shrunk as differences are")
	fl.Float64Var(&x.busy, "busy", explore.BusyShare, "the share of sequences (0 to 1) that hold a busy block: a Lua script or function past busy-reply-threshold on a second connection while the sequence sends PING, ECHO, GET and the kills; the server answers nothing else meanwhile, so throwaway servers only (none on an existing one)")
	fl.StringVar(&x.format, "format", "human", "report format: human or json (one object: the run, the noise learned, each difference with its shrunk sequence and both replies; respcheck report makes it a section of the HTML page)")
	return cmd
}

func runExplore(cmd *cobra.Command, f targetFlags, x exploreFlags) error {
	if err := x.check(); err != nil {
		return err
	}
	if x.seed == 0 {
		x.seed = uint64(time.Now().UnixNano()%999_999) + 1
	}
	ctx := cmd.Context()
	bf, err := againstFlags(x.against)
	if err != nil {
		return err
	}
	if f.cluster.primaries > 0 && bf.server != "" {
		// B a build: a throwaway cluster of its own, as A's.
		bf.cluster = f.cluster
		if err := bf.cluster.check(bf); err != nil {
			return err
		}
	}
	t := &exploreTargets{sides: map[string]*exploreSide{"A": {f: f}, "B": {f: bf}}, execs: map[string]explore.Exec{}}
	defer t.close()
	if err := t.open(ctx, x.timeout); err != nil {
		return err
	}
	w, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	human := w
	if x.format == "json" {
		human = io.Discard
	}
	a, b := t.sides["A"].ep, t.sides["B"].ep
	fmt.Fprintf(human, "explore: A %s at %s, B %s at %s; seed %d; %d commands in the grammar\n", t.names.AName, a.Addr, t.names.BName, b.Addr, x.seed, len(t.grammar))
	if len(t.missing) > 0 {
		fmt.Fprintf(human, "not on B (%s), not sent: %s\n", t.names.BName, strings.Join(t.missing, ", "))
	}
	rep, err := t.run(ctx, x, errw)
	if rep == nil {
		return err
	}
	known := declaredBySuite(t.srvA, t.srvB, t.grammar)
	if x.format == "json" {
		if err := writeExploreJSON(w, x, rep, t.names, t.missing, known); err != nil {
			return err
		}
	} else {
		printExplore(w, rep, t.names, known)
	}
	if err != nil && ctx.Err() == nil {
		return serverErr(fmt.Errorf("A stopped answering: %w", err))
	}
	if x.out != "" && len(rep.Findings) > 0 && ctx.Err() == nil {
		path, err := writeExploreCases(ctx, x, [2]*exploreSide{t.sides["A"], t.sides["B"]}, rep, t.names, errw)
		if err != nil && ctx.Err() != nil {
			return &exitError{code: exitInterrupted, err: errors.New("interrupted while writing the case file; the differences found are above")}
		}
		if err != nil {
			return err
		}
		if path != "" {
			fmt.Fprintf(human, "case file: %s (review it, then run it: respcheck run %s)\n", path, path)
		}
	}
	return exploreExit(ctx, rep)
}

// check reads explore's flags: a usage error for a bad one.
func (x exploreFlags) check() error {
	switch {
	case x.against == "":
		return usageErr("explore needs --against: the server to compare with")
	case x.proto != 0 && x.proto != 2 && x.proto != 3:
		return usageErr("bad --proto %d: want 2, 3 or 0 for both", x.proto)
	case x.duration <= 0 && x.sequences <= 0:
		return usageErr("--duration 0 needs --sequences")
	case x.timeout <= 0:
		return usageErr("bad --timeout %v: want a positive duration", x.timeout)
	case x.busy < 0 || x.busy > 1:
		return usageErr("bad --busy %v: want a share from 0 to 1", x.busy)
	case x.format != "human" && x.format != "json":
		return usageErr("bad --format %q: want human or json", x.format)
	}
	return nil
}

// exploreExit is the exit of a run that printed its report: 130 when
// interrupted, 3 when a target it could not start again was lost, 1 for
// findings, else 0.
func exploreExit(ctx context.Context, rep *explore.Report) error {
	switch {
	case ctx.Err() != nil:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted; the differences found so far are above")}
	case rep.Stopped != "":
		return serverErr(fmt.Errorf("%s stopped answering and could not be started again: the run ended there; its finding is above", rep.Stopped))
	case len(rep.Findings) > 0:
		return &exitError{code: exitFindings, err: errSilent}
	}
	return nil
}

// exploreTargets are explore's three targets (A, A2, B), what they said
// about themselves and A's grammar.
type exploreTargets struct {
	sides      map[string]*exploreSide
	execs      map[string]explore.Exec
	srvA, srvB target.Server
	names      explore.Sides
	grammar    []explore.Command
	missing    []string
	// scriptsMissing are the script commands A or B does not run.
	scriptsMissing []string
}

// open starts (or reaches) the targets, identifies A and B and reads A's
// grammar without the commands B lacks.
func (t *exploreTargets) open(ctx context.Context, timeout time.Duration) error {
	var err error
	for _, name := range []string{"A", "A2", "B"} {
		if name == "A2" {
			// A second throwaway server of A's build: the reference for
			// noise (another process, its own hash seed and clocks); an
			// existing A is asked twice.
			t.sides["A2"] = &exploreSide{f: t.sides["A"].f, reuse: t.sides["A"]}
		}
		if t.execs[name], err = t.sides[name].open(ctx, timeout); err != nil {
			return err
		}
	}
	a, b := t.sides["A"].ep, t.sides["B"].ep
	if t.srvA, err = target.Identify(ctx, a.Config); err != nil {
		return serverErr(fmt.Errorf("A (%s): %w", a.Addr, err))
	}
	if t.srvB, err = target.Identify(ctx, b.Config); err != nil {
		return serverErr(fmt.Errorf("B (%s): %w", b.Addr, err))
	}
	if t.grammar, err = loadGrammar(ctx, a.Config); err != nil {
		return serverErr(fmt.Errorf("A (%s): %w", a.Addr, err))
	}
	// Commands B does not have differ in one way only ("unknown
	// command"): said once, and not sent.
	t.grammar, t.missing = withoutMissing(ctx, b.Config, t.grammar)
	t.scriptsMissing = scriptsMissing(ctx, a.Config, b.Config)
	t.names = explore.Sides{AName: serverName(t.srvA), BName: serverName(t.srvB), BWhen: bSelector(t.srvA, t.srvB)}
	return nil
}

// run explores, with a progress line on a terminal errw.
func (t *exploreTargets) run(ctx context.Context, x exploreFlags, errw io.Writer) (*explore.Report, error) {
	opts := explore.Options{A: t.execs["A"], A2: t.execs["A2"], B: t.execs["B"], Grammar: t.grammar, Seed: x.seed, Length: x.length,
		Duration: x.duration, Sequences: x.sequences, ScriptsMissing: t.scriptsMissing,
		Busy: x.busy,
		Restart: func(ctx context.Context, side string) (explore.Exec, error) {
			ex, err := t.sides[side].restart(ctx, x.timeout)
			if err == nil {
				t.execs[side] = ex
			}
			return ex, err
		}}
	if x.proto != 0 {
		opts.Protos = []int{x.proto}
	}
	// A busy script stops a server for everyone: throwaway ones only,
	// that set their busy-reply-threshold (not miniredis: no CONFIG).
	if !t.busyCapable(ctx) {
		if x.busySet && x.busy > 0 {
			return nil, usageErr("--busy needs throwaway servers (--server and --against builds) that take CONFIG SET busy-reply-threshold: a busy script stops a server for every client")
		}
		opts.Busy = 0
	}
	if x.schema {
		oracle, err := schemaOracle(t.srvA)
		if err != nil {
			return nil, err
		}
		opts.Oracle = oracle
	}
	if isTerminal(errw) {
		last := time.Time{}
		opts.Progress = func(p explore.Progress) {
			if time.Since(last) > 200*time.Millisecond {
				last = time.Now()
				fmt.Fprintf(errw, "\r%d sequences, %d commands, %d differences, %v ", p.Sequences, p.Commands, p.Differences, p.Elapsed.Round(time.Second))
			}
		}
	}
	rep, err := explore.Run(ctx, opts)
	if opts.Progress != nil {
		fmt.Fprint(errw, "\r\033[K")
	}
	return rep, err
}

// busyCapable says whether busy blocks may run on A and B: throwaway
// servers both, that answer CONFIG GET lua-time-limit (the threshold's
// name on every build: busy-reply-threshold's alias since Redis 7.0).
func (t *exploreTargets) busyCapable(ctx context.Context) bool {
	for _, side := range []string{"A", "B"} {
		ep := t.sides[side].ep
		if ep.spawned == nil {
			return false
		}
		cn, err := ep.Config.Dial(ctx, 2)
		if err != nil {
			return false
		}
		v, err := cn.Do("CONFIG", "GET", "lua-time-limit")
		cn.Close()
		if err != nil || v.Kind != resp.Array || len(v.Elems) != 2 {
			return false
		}
	}
	return true
}

// close stops what open started.
func (t *exploreTargets) close() {
	for _, sd := range t.sides {
		sd.close()
	}
}

// exploreSide is one target of explore: a throwaway server it starts (and
// can start again after a crash), or an existing one.
type exploreSide struct {
	f targetFlags
	// reuse is the side whose existing server this one asks again
	// (A2 of an existing A).
	reuse     *exploreSide
	ep        endpoint
	stop      func()
	exec      explore.Exec
	closeExec func()
}

// healing is the side's Exec that, after losing a throwaway server,
// starts it again and runs the sequence once more (the case file's
// second run of each sequence).
func (s *exploreSide) healing(timeout time.Duration) explore.Exec {
	return func(ctx context.Context, proto int, seq [][]string) ([][]byte, error) {
		out, err := s.exec(ctx, proto, seq)
		var le *explore.LostError
		if errors.As(err, &le) && s.ep.spawned != nil {
			if ex, rerr := s.restart(ctx, timeout); rerr == nil {
				return ex(ctx, proto, seq)
			}
		}
		return out, err
	}
}

// open reaches (or starts) the side's server and returns its Exec.
func (s *exploreSide) open(ctx context.Context, timeout time.Duration) (explore.Exec, error) {
	if s.reuse != nil && s.reuse.ep.spawned == nil {
		s.ep = s.reuse.ep
	} else {
		ep, stop, err := s.f.open(ctx)
		if err != nil {
			return nil, err
		}
		s.ep, s.stop = ep, stop
	}
	cfg, err := keyspaceNode(ctx, s.ep.Config)
	if err != nil {
		s.close()
		return nil, serverErr(err)
	}
	s.exec, s.closeExec = explore.ConnExec(cfg, timeout)
	return s.exec, nil
}

// keyspaceNode is how to reach the node that holds the keyspace (every
// key under explore.KeyPrefix, one hash tag: one slot): cfg itself on a
// standalone server, the primary that owns the slot on a cluster.
func keyspaceNode(ctx context.Context, cfg target.Config) (target.Config, error) {
	t, err := target.Open(ctx, cfg)
	if err != nil {
		return cfg, err
	}
	n, err := t.Place(target.KeySlot(explore.KeyPrefix), "")
	if err != nil {
		return cfg, err
	}
	return t.NodeConfig(n.Addr), nil
}

// restart replaces a lost throwaway server with a new one of its build.
func (s *exploreSide) restart(ctx context.Context, timeout time.Duration) (explore.Exec, error) {
	if s.ep.spawned == nil {
		return nil, fmt.Errorf("%s is an existing server: respcheck cannot start it again", s.ep.Addr)
	}
	if !s.ep.spawned.Exited() {
		// Lost but running (frozen, or it sent bytes that are not RESP):
		// it is not asked again, so no clean shutdown is waited for.
		syscall.Kill(s.ep.spawned.Pid(), syscall.SIGKILL)
	}
	s.close()
	return s.open(ctx, timeout)
}

func (s *exploreSide) close() {
	if s.closeExec != nil {
		s.closeExec()
		s.closeExec = nil
	}
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// againstFlags reads --against: a URL, a host:port, else a build name.
func againstFlags(s string) (targetFlags, error) {
	var f targetFlags
	switch {
	case strings.Contains(s, "://"):
		f.urls = []string{s}
	case isHostPort(s):
		f.addr = s
	default:
		f.server = s
	}
	return f, nil
}

func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	return err == nil && port != "" && strings.Trim(port, "0123456789") == ""
}

// loadGrammar reads A's grammar over a RESP3 connection (RESP2 where HELLO
// 3 is refused).
func loadGrammar(ctx context.Context, cfg target.Config) ([]explore.Command, error) {
	cn, err := cfg.Dial(ctx, 3)
	if err != nil {
		if cn, err = cfg.Dial(ctx, 2); err != nil {
			return nil, err
		}
	}
	defer cn.Close()
	return explore.LoadGrammar(cn)
}

// withoutMissing removes from grammar the commands the server at cfg
// does not have (explore.Missing) and returns their names.
func withoutMissing(ctx context.Context, cfg target.Config, grammar []explore.Command) ([]explore.Command, []string) {
	cn, err := cfg.Dial(ctx, 2)
	if err != nil {
		return grammar, nil
	}
	defer cn.Close()
	missing, err := explore.Missing(cn, grammar)
	if err != nil || len(missing) == 0 {
		return grammar, nil
	}
	var kept []explore.Command
	for _, c := range grammar {
		if !slices.Contains(missing, c.Name) {
			kept = append(kept, c)
		}
	}
	return kept, missing
}

// scriptsMissing returns the script commands (explore.ScriptCommands)
// that a server at cfgs does not run: `CMD "return 1" 0` answered with
// anything but 1 (an unknown command, scripting disabled, a server that
// cannot be asked).
func scriptsMissing(ctx context.Context, cfgs ...target.Config) []string {
	var out []string
	for _, cfg := range cfgs {
		cn, err := cfg.Dial(ctx, 2)
		if err != nil {
			return explore.ScriptCommands
		}
		for _, c := range explore.ScriptCommands {
			v, err := cn.Do(c, "return 1", "0")
			if (err != nil || v.Kind != resp.Integer || v.Int != 1) && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		cn.Close()
	}
	return out
}

func serverName(s target.Server) string { return s.Family + " " + s.Version }

// bSelector is a case selector that matches B and not A: B's family, or
// for two versions of one family B's side of A's version.
func bSelector(a, b target.Server) string {
	if a.Family != b.Family {
		return b.Family
	}
	vb, _ := cases.ParseVersion(b.Version)
	va, _ := cases.ParseVersion(a.Version)
	if vb.Compare(va) > 0 {
		return b.Family + ">" + a.Version
	}
	return b.Family + "<" + a.Version
}

// printExplore writes the report: each distinct difference with its
// shrunk sequence and the two replies.
func printExplore(w io.Writer, rep *explore.Report, sides explore.Sides, known map[string]bool) {
	rate := float64(rep.Commands) / max(rep.Duration.Seconds(), 1e-9)
	faults, schemas, byCommand := 0, 0, map[string]int{}
	for _, f := range rep.Findings {
		switch {
		case f.Schema != "":
			schemas++
		case !f.Difference():
			faults++
		default:
			byCommand[f.Command]++
		}
	}
	fmt.Fprintf(w, "%d sequences, %d commands (%.0f/s) in %v; %s in %s, %s of one server",
		rep.Sequences, rep.Commands, rate, rep.Duration.Round(time.Millisecond), plural(len(rep.Findings)-faults-schemas, "distinct difference"), plural(len(byCommand), "command"), plural(faults, "fault"))
	if schemas > 0 {
		fmt.Fprintf(w, ", %s of A's reply schemas", plural(schemas, "finding"))
	}
	fmt.Fprintln(w)
	if len(byCommand) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(byCommand)) {
			parts = append(parts, fmt.Sprintf("%s %d", c, byCommand[c]))
		}
		fmt.Fprintf(w, "differences by command: %s\n", strings.Join(parts, ", "))
	}
	if len(rep.Noise) > 0 {
		fmt.Fprintf(w, "noise (differs between two runs of A, not compared): %s\n", strings.Join(rep.Noise, ", "))
	}
	if len(rep.Unordered) > 0 {
		fmt.Fprintf(w, "compared without order: %s\n", strings.Join(rep.Unordered, ", "))
	}
	for i, fd := range rep.Findings {
		note := ""
		if known[fd.Command] && fd.Difference() {
			note = "; known: the bundled suite expects other replies from the two servers for " + fd.Command
		}
		fmt.Fprintf(w, "\n%d. %s (seen %d times; %d commands, shrunk from %d%s)\n", i+1, fd.Signature, fd.Seen, len(fd.Seq), fd.Original, note)
		for _, args := range fd.Seq {
			fmt.Fprintf(w, "   %s\n", quoteArgs(args))
		}
		name := map[string]string{"A": sides.AName, "B": sides.BName}[fd.Side]
		switch {
		case fd.Lost != "":
			fmt.Fprintf(w, "   %s: %s\n", name, fd.Lost)
			continue
		case fd.Schema != "":
			fmt.Fprintf(w, "   %-14s %s\n", name+":", resp.Escape(fd.A))
			continue
		case fd.Desync && fd.Side == "A":
			fmt.Fprintf(w, "   %-14s %s\n", name+":", resp.Escape(fd.A))
			continue
		case fd.Desync:
			fmt.Fprintf(w, "   %-14s %s\n", name+":", resp.Escape(fd.B))
			continue
		}
		fmt.Fprintf(w, "   %-14s %s\n   %-14s %s\n", sides.AName+":", resp.Escape(fd.A), sides.BName+":", resp.Escape(fd.B))
	}
}

// quoteArgs writes a command as redis-cli would take it.
func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \"'\\") || strings.IndexFunc(a, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
			out[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(out, " ")
}

// writeExploreCases writes the case file of rep into x.out and returns
// its path ("" when no finding makes a case). Each case is first run on
// A and on B as run would run it (namespaced keys, both protocols): the
// cases that do not pass on both are left out, and counted on w (a SORT
// BY pattern reads other keys once namespaced; an error text that quotes
// a key name has the namespaced one).
func writeExploreCases(ctx context.Context, x exploreFlags, ts [2]*exploreSide, rep *explore.Report, sides explore.Sides, w io.Writer) (string, error) {
	a, b := ts[0].healing(x.timeout), ts[1].healing(x.timeout)
	header := fmt.Sprintf("Differences found by respcheck explore --seed %d: %s (A) against %s (B).\n"+
		"Each case expects A's replies, and B's under when: %s where they differ.\n"+
		"Review before committing: a difference may be a bug of either server, or by design.", x.seed, sides.AName, sides.BName, sides.BWhen)
	suite := fmt.Sprintf("explore: %s against %s (seed %d)", sides.AName, sides.BName, x.seed)
	name := fmt.Sprintf("explore-%s-vs-%s-%d.yaml", strings.ReplaceAll(sides.AName, " ", "-"), strings.ReplaceAll(sides.BName, " ", "-"), x.seed)
	path := filepath.Join(x.out, name)
	findings := rep.Findings
	data, err := explore.CaseFile(ctx, a, b, findings, rep, sides, suite, header)
	if err != nil {
		return "", serverErr(err)
	}
	if data == nil {
		return "", nil // every finding a fault: no case to write
	}
	failing, err := replayExploreCases(ctx, path, data, ts, x.timeout)
	if err != nil {
		return "", err
	}
	if len(failing) > 0 {
		var kept []*explore.Finding
		for _, f := range findings {
			if !failing[explore.CaseName(f, sides)] {
				kept = append(kept, f)
			}
		}
		fmt.Fprintf(w, "%s left out of the case file: their cases did not pass twice on both servers as run runs them (a reply that varies from run to run, or one that names a key run moves into its namespace)\n", plural(len(findings)-len(kept), "difference"))
		if data, err = explore.CaseFile(ctx, a, b, kept, rep, sides, suite, header); err != nil {
			return "", serverErr(err)
		}
		if data == nil {
			return "", nil
		}
	}
	if err := os.MkdirAll(x.out, 0o755); err != nil {
		return "", usageErr("--out: %v", err)
	}
	return path, os.WriteFile(path, data, 0o644)
}

// replayExploreCases runs the case file data on both targets, twice,
// and returns the names of the cases that did not pass every time (one
// that crashes a throwaway server errs, and the server is started again
// for the others).
func replayExploreCases(ctx context.Context, path string, data []byte, ts [2]*exploreSide, timeout time.Duration) (map[string]bool, error) {
	f, err := cases.Load(path, data)
	if err != nil {
		return nil, fmt.Errorf("the case file explore wrote does not load (a bug of respcheck): %w", err)
	}
	failing := map[string]bool{}
	// Twice on each: a case whose reply varies from run to run (an order
	// nothing fixes) is left out too.
	for i, t := range []*exploreSide{ts[0], ts[1], ts[0], ts[1]} {
		ep := t.ep
		// A run id of its own each time: a throwaway server keeps a
		// run's keys, which the second run would start from.
		opts := runner.Options{Addr: ep.Addr, Username: ep.Username, Password: ep.Password, DB: ep.DB, TLS: ep.TLS,
			Shared: ep.spawned == nil, RunID: fmt.Sprintf("e0e0e0e%d", i)}
		if ep.spawned != nil {
			opts.Respawn = func(int) (string, string, error) {
				_, err := t.restart(ctx, timeout)
				return t.ep.Addr, "the server died", err
			}
		}
		rep, err := runner.Run(ctx, []*cases.File{f}, opts)
		if err != nil {
			return nil, serverErr(fmt.Errorf("running the cases on %s: %w", ep.Addr, err))
		}
		for _, r := range rep.Results {
			if r.Status != runner.Pass {
				failing[r.Case.Name] = true
			}
		}
		if rep.ServerLost != nil {
			return nil, serverErr(fmt.Errorf("running the cases on %s: %w", ep.Addr, rep.ServerLost))
		}
	}
	return failing, nil
}

// declaredBySuite returns the commands (named as in grammar) of the
// bundled suite's steps whose expectation for server a is another than
// for server b in RESP2 or RESP3: differences the suite already declares
// (a per-server reply, an expect variant under when:).
func declaredBySuite(a, b target.Server, grammar []explore.Command) map[string]bool {
	names := map[string]bool{}
	for _, c := range grammar {
		names[c.Name] = true
	}
	files, _ := cases.Bundled()
	out := map[string]bool{}
	for _, f := range files {
		for _, c := range f.Cases {
			for _, st := range c.Steps {
				if len(st.Send) == 0 {
					continue
				}
				name := strings.ToUpper(st.Send[0].Source())
				if len(st.Send) > 1 && names[name+" "+strings.ToUpper(st.Send[1].Source())] {
					name += " " + strings.ToUpper(st.Send[1].Source())
				}
				for _, p := range []int{2, 3} {
					ea, _ := st.Expect.Resolve(a.Info(p))
					eb, _ := st.Expect.Resolve(b.Info(p))
					if ea != eb {
						out[name] = true
					}
				}
			}
		}
	}
	return out
}

func writeExploreJSON(w io.Writer, x exploreFlags, rep *explore.Report, names explore.Sides, missing []string, known map[string]bool) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(explore.ToJSON(rep, x.seed, names, missing, known))
}

// plural is "1 fault", "2 faults".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// schemaOracle is explore's Options.Oracle from the reply schemas of the
// build srv is (schema.Dir of "family-version"): the schema path and
// errors of a reply its command's schema rejects; a build whose schemas
// are not installed is a usage error naming scripts/install-schemas.sh.
func schemaOracle(srv target.Server) (func([]string, []byte) string, error) {
	build := strings.ToLower(srv.Family) + "-" + srv.Version
	set, err := schema.Load(schema.Dir(build))
	if err != nil {
		return nil, usageErr("--check-schema: %v", err)
	}
	return func(args []string, reply []byte) string {
		bs := make([][]byte, len(args))
		for i, a := range args {
			bs[i] = []byte(a)
		}
		o, f, _ := set.Check(bs, reply)
		if o != schema.Invalid || f == nil {
			return ""
		}
		return f.File + "#" + f.Path
	}, nil
}
