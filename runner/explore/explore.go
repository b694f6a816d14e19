// Package explore looks for differences nobody wrote a case for: it draws
// sequences of commands from a server's own grammar (COMMAND DOCS), runs
// each on two targets A and B from the same small keyspace, in RESP2 and
// RESP3, compares the replies byte for byte, learns what legitimately
// differs by running the sequence on A twice (on a second server of A's
// build when there is one), shrinks each difference to the shortest
// sequence that still shows it, and writes the differences as case files.
//
// Noise is learned, as Twitter's Diffy does with a primary and a
// secondary: a command whose reply differs between A and A' (SPOP, TIME,
// XADD *) is noise from then on; one whose reply differs only in the order
// of its elements is compared as a multiset. COMMAND's tips say so ahead of
// time for the commands that declare it (nondeterministic_output,
// nondeterministic_output_order).
package explore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// Options configure a Run.
type Options struct {
	// A, A2 and B run sequences: A2 is a second run of A's build (another
	// server, or A itself), the reference for noise.
	A, A2, B Exec
	// Grammar is the commands to draw from (LoadGrammar of A).
	Grammar []Command
	// Seed makes the run reproducible: the same seed, grammar and
	// options draw the same sequences.
	Seed uint64
	// Length is the commands per sequence (default 20).
	Length int
	// Protos are the protocols each sequence runs in (default 3, then 2:
	// RESP3's sets and maps say which replies have no order).
	Protos []int
	// Duration and Sequences end the run: whichever comes first (0: no
	// bound; at least one must be set).
	Duration  time.Duration
	Sequences int
	// Restart, if set, replaces a lost target ("A", "A2" or "B") with a
	// fresh server of its build and returns its Exec, so that a crash is
	// shrunk and the run goes on; without it a lost target ends the run.
	Restart func(ctx context.Context, side string) (Exec, error)
	// Oracle, if set, judges each of A's RESP3 replies alone: a non-empty
	// answer says the reply does not fit what the command promises (the
	// build's reply schema, as --check-schema's oracle: its schema path),
	// a finding of A shrunk as differences are.
	Oracle func(args []string, reply []byte) string
	// Progress, if set, is called after each sequence.
	Progress func(Progress)
	// ScriptsMissing are the ScriptCommands a target does not have (or
	// refuses): commands are not run inside them.
	ScriptsMissing []string
	// Busy is the share (0 to 1) of sequences given a busy block
	// (busy.go): a script that keeps the server busy while the
	// sequence's connection sends commands. For throwaway targets only: a
	// server answers nothing else for a few milliseconds each time.
	// BusyShare is explore's.
	Busy float64
}

// BusyShare is the share of sequences explore gives a busy block on
// throwaway targets: each costs tens of milliseconds (the threshold, on
// three targets in two protocols), against about 1.5 ms for a sequence,
// so about 3% of a run's time.
const BusyShare = 1.0 / 1000

// Progress is where a run is.
type Progress struct {
	Sequences, Commands, Differences int
	Elapsed                          time.Duration
}

// Finding is one distinct difference between A and B.
type Finding struct {
	// Signature identifies the difference: the command and the classes of
	// the two replies (their RESP types; an error's first words, digits
	// blanked), or the target lost or desynchronized.
	Signature string
	// Command is the differing command's name ("SINTERCARD", "OBJECT
	// ENCODING").
	Command string
	// Proto is the protocol the sequence ran in when it was found, and
	// Protos every protocol in which it was seen.
	Proto  int
	Protos []int
	// Seq is the shrunk sequence; its last command differs.
	Seq [][]string
	// A and B are the two replies to the last command.
	A, B []byte
	// Seen counts the sequences that showed this signature.
	Seen int
	// Original is the length of the sequence it was shrunk from.
	Original int
	// Side is the target at fault when Lost or Desync: "A" (A's build,
	// A or A2) or "B".
	Side string
	// Lost is why Side stopped answering the last command: a crash or a
	// freeze.
	Lost string
	// Desync says Side answered the last command with another number of
	// replies than one (they are then A or B, one after the other): every
	// later reply on that connection is another command's.
	Desync bool
	// Schema is the Oracle's verdict on A's reply to the last command
	// (A holds it): a finding of A alone, not a difference.
	Schema string
}

// Report is what a run found.
type Report struct {
	Findings  []*Finding
	Sequences int
	Commands  int
	// Noise are the commands learned to differ between A and A' (their
	// replies not compared); Unordered those compared as multisets.
	Noise, Unordered []string
	Duration         time.Duration
	// Interrupted says ctx ended the run.
	Interrupted bool
	// Stopped names the target whose loss ended the run (it could not be
	// started again: an existing server, or no Options.Restart).
	Stopped string
	words   map[string]int
}

// explorer is one run's state.
type explorer struct {
	opts  Options
	noise map[string]bool
	// noisyAt are the elements of a command's reply that differ between A
	// and A2, by protocol and name ("3HELLO"): see noisyFields.
	noisyAt map[string]map[string]bool
	// setsInside are the commands whose RESP3 reply held a set.
	setsInside map[string]bool
	unordered  map[string]bool
	pairs      map[string]bool // the RESP3 reply is a map: RESP2's flat array holds pairs
	words      map[string]int  // command name → its words (1 or 2)
	writes     map[string]bool // commands flagged write
	cmds       map[string]Command
	found      map[string]*Finding
	ex         map[string]Exec // "A", "A2", "B"
	gen        *Generator
	stopped    string // the target whose loss ended the run, and why
	// shrinking is the signature being shrunk: a script error's tail,
	// passed over once found, is seen while its own finding shrinks.
	shrinking string
}

// Run explores until opts' bound or ctx ends, and returns the distinct
// findings, shrunk. An A that stops answering ends the run with an error;
// a B that does is a finding (Lost) and ends it.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Duration <= 0 && opts.Sequences <= 0 {
		return nil, errors.New("explore: a duration or a number of sequences is needed")
	}
	if len(opts.Grammar) == 0 {
		return nil, errors.New("explore: the grammar has no command to send")
	}
	if opts.Length <= 0 {
		opts.Length = 20
	}
	if len(opts.Protos) == 0 {
		opts.Protos = []int{3, 2}
	}
	e := &explorer{opts: opts, noise: map[string]bool{}, noisyAt: connIDFields(), setsInside: map[string]bool{}, unordered: map[string]bool{}, pairs: map[string]bool{}, words: map[string]int{}, writes: map[string]bool{}, cmds: map[string]Command{}, found: map[string]*Finding{},
		ex: map[string]Exec{"A": opts.A, "A2": opts.A2, "B": opts.B}}
	for _, c := range opts.Grammar {
		e.words[c.Name] = len(c.Words())
		e.cmds[c.Name] = c
		// What is known of a command holds inside a script too.
		names := []string{c.Name}
		for _, v := range scriptVariants {
			names = append(names, v.name+"("+c.Name+")")
		}
		for _, name := range names {
			e.writes[name] = c.Flags["write"]
			if c.Tips["nondeterministic_output"] && !tipIgnored[c.Name] {
				e.noise[name] = true
			}
			if c.Tips["nondeterministic_output_order"] {
				e.unordered[name] = true
			}
		}
	}
	gen := NewGenerator(opts.Grammar, opts.Seed)
	gen.dropScripts(opts.ScriptsMissing)
	if !slices.Contains(opts.ScriptsMissing, "EVAL") {
		gen.Busy = opts.Busy
	}
	e.gen = gen
	rep := &Report{}
	start := time.Now()
	var err error
	for opts.Sequences <= 0 || rep.Sequences < opts.Sequences {
		if opts.Duration > 0 && time.Since(start) >= opts.Duration {
			break
		}
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		if gen.Empty() {
			break // every command crashed a target
		}
		seq := gen.Sequence(opts.Length)
		stop := false
		for _, proto := range opts.Protos {
			if stop, err = e.one(ctx, proto, seq); stop || err != nil {
				break
			}
		}
		rep.Sequences++
		rep.Commands += len(seq) * len(opts.Protos)
		if opts.Progress != nil {
			opts.Progress(Progress{rep.Sequences, rep.Commands, len(e.found), time.Since(start)})
		}
		rep.Stopped = e.stopped
		if stop || err != nil {
			break
		}
	}
	rep.Duration = time.Since(start)
	for _, f := range e.found {
		// A command learned to be noise after its difference was found
		// (HPEXPIRETIME's absolute time, 1 ms apart on two servers of one
		// build, before A and A2 first disagreed on it) is noise there too.
		// (An error of a noisy command was compared: A and A2 agreed.)
		if f.Lost == "" && !f.Desync && f.Schema == "" && e.noise[f.Command] && !isError(f.A) || e.sameAsPlain(f) {
			continue
		}
		rep.Findings = append(rep.Findings, f)
	}
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Signature < rep.Findings[j].Signature })
	rep.Noise, rep.Unordered, rep.words = keys(e.noise), keys(e.unordered), e.words
	if ctx.Err() != nil && !rep.Interrupted {
		rep.Interrupted = true
	}
	return rep, err
}

// one runs seq in proto on the three targets and records its first
// difference; stop says a target was lost and could not be restarted.
func (e *explorer) one(ctx context.Context, proto int, seq [][]string) (stop bool, err error) {
	d, err := e.diff(ctx, proto, seq)
	if err != nil || d == nil {
		return false, err
	}
	if d.lost != "" {
		// A crash is found once: every later draw of the command would
		// cost restarts (inside a script or not: its own name).
		crashed := seq[d.i]
		if inner, _, ok := unwrapEval(crashed); ok {
			crashed = inner
		}
		e.gen.Drop(e.name(crashed))
		if stop, err := e.restart(ctx, d.side); stop || err != nil {
			// It cannot be started again: the run ends with the finding.
			e.record(d, proto, seq, seq[:d.i+1])
			e.stopped = sideOf(d.side)
			if err != nil {
				e.stopped += " (" + err.Error() + ")"
			}
			return true, nil
		}
	}
	if e.found[d.sig] != nil {
		e.record(d, proto, seq, nil)
		return false, nil
	}
	f := e.record(d, proto, seq, nil)
	switch {
	case d.desync:
		f.Seq = e.shrinkBy(seq[:d.i+1], func(s [][]string) bool {
			_, err := e.ex[d.side](ctx, proto, s)
			return ctx.Err() == nil && isDesync(err)
		})
		var de *desyncError
		if _, err := e.ex[d.side](ctx, proto, f.Seq); errors.As(err, &de) && len(de.Replies) >= len(f.Seq)-1 {
			f.setOwn(bytes.Join(de.Replies[len(f.Seq)-1:], nil))
		}
	case d.lost != "":
		f.Seq = e.shrinkBy(seq[:d.i+1], func(s [][]string) bool {
			_, err := e.ex[d.side](ctx, proto, s)
			var le *LostError
			if !errors.As(err, &le) {
				return false
			}
			if stop, err := e.restart(ctx, d.side); stop || err != nil {
				return false
			}
			return isMalformed(le) == d.malformed
		})
	default:
		e.shrinking = d.sig
		f.Seq = e.shrink(ctx, proto, seq[:d.i+1], d.sig)
		if last, _ := e.diff(ctx, proto, f.Seq); last != nil && last.sig == d.sig {
			f.A, f.B = last.a, last.b
		} else {
			f.Seq, f.A, f.B = seq[:d.i+1], d.a, d.b
		}
		e.shrinking = ""
	}
	return false, nil
}

// record keeps d as a new finding with the sequence seq, or counts it.
func (e *explorer) record(d *difference, proto int, orig, seq [][]string) *Finding {
	if f := e.found[d.sig]; f != nil {
		f.Seen++
		if !slices.Contains(f.Protos, proto) {
			f.Protos = append(f.Protos, proto)
			slices.Sort(f.Protos)
		}
		return f
	}
	name := d.command
	if name == "" {
		name = e.name(orig[d.i])
	}
	f := &Finding{Signature: d.sig, Command: name, Proto: proto, Seen: 1, Original: len(orig),
		Protos: []int{proto}, Seq: seq, A: d.a, B: d.b, Lost: d.lost, Desync: d.desync, Side: sideOf(d.side), Schema: d.schema}
	e.found[d.sig] = f
	return f
}

// Difference says f is a difference between A and B, not a target's own
// fault (Lost, Desync) or a reply its schema rejects (Schema).
func (f *Finding) Difference() bool { return f.Lost == "" && !f.Desync && f.Schema == "" }

// setOwn sets the replies of the target at fault.
func (f *Finding) setOwn(b []byte) {
	if f.Side == "A" {
		f.A = b
	} else {
		f.B = b
	}
}

// restart replaces the lost target side; stop says it cannot be.
func (e *explorer) restart(ctx context.Context, side string) (stop bool, err error) {
	if e.opts.Restart == nil {
		return true, nil
	}
	ex, err := e.opts.Restart(ctx, side)
	if err != nil {
		return true, fmt.Errorf("starting %s again: %w", side, err)
	}
	e.ex[side] = ex
	return false, nil
}

// difference is the first difference of a sequence: at command i, the
// replies a and b, or the target side that was lost or desynchronized.
type difference struct {
	i      int
	sig    string
	a, b   []byte
	side   string
	lost   string
	desync bool
	// malformed: lost on bytes that are not RESP (the server is up).
	malformed bool
	schema    string // the Oracle's verdict on A's reply
	// command names the finding when it is not the command's own name
	// (a script error's tail: EVAL).
	command string
}

// diff runs seq on A, A2 and B and returns its first difference between
// A and B that A and A2 agree on, learning noise on the way; nil if none.
// A target that stops answering, or answers a command with another
// number of replies than one, is a difference of its own.
func (e *explorer) diff(ctx context.Context, proto int, seq [][]string) (*difference, error) {
	out := map[string][][]byte{}
	for _, side := range []string{"A", "A2", "B"} {
		r, err := e.ex[side](ctx, proto, seq)
		var le *LostError
		switch {
		case isDesync(err):
			d := e.desyncOf(ctx, side, proto, seq)
			if e.found[d.sig] != nil && d.i > 0 {
				// Known: counted, and the commands before it compared
				// (after it every reply is another command's).
				e.record(d, proto, seq, nil)
				return e.diff(ctx, proto, seq[:d.i])
			}
			return d, nil
		case errors.As(err, &le):
			return e.lostOf(ctx, side, proto, seq, le)
		case err != nil:
			return nil, err
		}
		out[side] = r
	}
	ra, ra2, rb := out["A"], out["A2"], out["B"]
	// A transaction's EXEC answers what its queued commands answer: with
	// one of them noise (HRANDFIELD), EXEC's reply is too, and what
	// follows may depend on it.
	inBlock, noisyQueued := false, false
	for _, i := range replyOrder(seq) {
		name := e.name(seq[i])
		switch {
		case name == "MULTI":
			inBlock, noisyQueued = true, false
		case inBlock && (name == "EXEC" || name == "DISCARD"):
			inBlock = false
			if name == "EXEC" && (noisyQueued || !bytes.Equal(ra[i], ra2[i])) {
				// Never learned as noise: it is its commands'.
				return nil, nil
			}
		case inBlock && e.noise[name]:
			noisyQueued = true
		}
		if proto == 3 && e.opts.Oracle != nil {
			if why := e.opts.Oracle(seq[i], ra[i]); why != "" {
				return &difference{i: i, side: "A", a: ra[i], schema: why,
					sig: name + ": A's reply does not fit its reply schema (" + why + ")"}, nil
			}
		}
		// Noise is what a command answers when it works: an error both
		// servers of A's build word alike (CLIENT LIST ID abc, whose list
		// is noise) is compared.
		if e.noise[name] && !sameError(ra[i], ra2[i]) {
			if e.writes[name] {
				// A random write (SPOP, XADD *): the keyspaces may part
				// from here on.
				return nil, nil
			}
			continue
		}
		if same, stop := e.compare(proto, name, seq[i], ra[i], ra2[i], rb[i]); stop {
			return nil, nil
		} else if same {
			continue
		}
		// The same error but for how each server ends a script error,
		// or the script layer's own error in other words: one finding
		// per script command for all commands, passed over once found.
		if d := e.scriptDifference(i, seq[i], ra[i], rb[i]); d != nil {
			if e.found[d.sig] != nil && e.shrinking != d.sig {
				continue
			}
			return d, nil
		}
		classes := class(ra[i], seq[i]) + " | " + class(rb[i], seq[i])
		// A command a script runs that differs as it does on its own:
		// that finding's, not one more. A write's keyspaces part there:
		// what follows is not compared (found by a review: BITOP DIFF
		// in a script, then GETBIT blamed for it).
		if inner, _, ok := unwrapEval(seq[i]); ok && e.found[e.name(inner)+": "+classes] != nil {
			if e.writes[name] {
				return nil, nil
			}
			continue
		}
		return &difference{i: i, sig: name + ": " + classes, a: ra[i], b: rb[i]}, nil
	}
	return nil, nil
}

// compare compares one command's replies (args, named name): A's with
// A2's, learning its order, noisy fields or noise, then A's with B's.
// same says B agrees; stop that A differs from itself there, and the
// sequence's comparison ends (what follows may depend on it).
func (e *explorer) compare(proto int, name string, args []string, a, a2, b []byte) (same, stop bool) {
	// A set or a map has no order (the RESP3 specification): the
	// command's reply is compared as a multiset in both protocols
	// (RESP3 runs first).
	if proto == 3 && len(a) > 0 && (a[0] == '~' || a[0] == '%') {
		e.unordered[name] = true
		e.pairs[name] = a[0] == '%'
	}
	unordered, pairs := e.orderOf(args, name)
	at := fmt.Sprint(proto, name)
	ordered := !unordered && !e.unordered[name]
	// RESP2 has no sets: where the command's RESP3 reply holds one
	// (COMMAND INFO's flags), its arrays are compared without order.
	if proto == 3 && !e.setsInside[name] && bytes.IndexByte(a, '~') >= 0 && hasSet(a) {
		e.setsInside[name] = true
	}
	flat := proto == 2 && e.setsInside[name]
	if !bytes.Equal(a, a2) && !sameBut(a, a2, e.noisyAt[at], pairs) && !(flat && sameAll(a, a2)) {
		if sameUnordered(a, a2, pairs) {
			e.unordered[name] = true
		} else if fs, ok := noisyFields(a, a2, pairs); ok && !e.writes[name] && (pairs || ordered) {
			// Differs between A and itself in a few fields (a
			// connection id): noise in those only (a write's
			// keyspaces may part: all of it, below).
			if e.noisyAt[at] == nil {
				e.noisyAt[at] = map[string]bool{}
			}
			for _, f := range fs {
				e.noisyAt[at][f] = true
			}
		} else {
			// Differs between A and itself: noise from now on, and
			// what follows may depend on it.
			e.noise[name] = true
			return false, true
		}
	}
	return bytes.Equal(a, b) || (unordered || e.unordered[name]) && sameUnordered(a, b, pairs) || sameBut(a, b, e.noisyAt[at], pairs) || flat && sameAll(a, b), false
}

// scriptDifference is the difference of a command a script ran (args,
// with the replies a and b at position i) that is the script's, not the
// command's: a script error's tail in each server's words, or the script
// layer's own error in other words. It is named for the script command
// (EVAL, EVAL_RO), whatever the command: nil for any other difference.
func (e *explorer) scriptDifference(i int, args []string, a, b []byte) *difference {
	_, v, ok := unwrapEval(args)
	if !ok {
		return nil
	}
	cmd := scriptVariants[v].cmd
	if ta, tb, ok := scriptErrorTails(args, a, b); ok {
		return &difference{i: i, sig: cmd + ": a script error ends \"" + ta + "\" | \"" + tb + "\"", a: a, b: b, command: cmd}
	}
	if ha, hb, ok := scriptLayerErrors(args, a, b); ok {
		return &difference{i: i, sig: cmd + ": " + ha + " | " + hb, a: a, b: b, command: cmd}
	}
	return nil
}

// sameAsPlain says whether f is a difference of a command a script ran
// that the command also showed on its own (the same signature but for
// the script's name): found before its plain twin, it is left out at the
// end.
func (e *explorer) sameAsPlain(f *Finding) bool {
	name, classes, ok := strings.Cut(f.Signature, ": ")
	if !ok || !f.Difference() || len(f.Seq) == 0 {
		return false
	}
	inner, _, wrapped := unwrapEval(f.Seq[len(f.Seq)-1])
	return wrapped && name != e.name(inner) && e.found[e.name(inner)+": "+classes] != nil
}

// orderOf says whether the reply of args (named name) is compared as a
// multiset, and whether that multiset holds pairs (a map's fields and
// values): learned for the name, or, for a command a script runs, for the
// command itself (a set becomes a Lua table, then an array: the RESP3
// type that taught it is gone).
func (e *explorer) orderOf(args []string, name string) (unordered, pairs bool) {
	unordered, pairs = e.unordered[name], e.pairs[name]
	if inner, _, ok := unwrapEval(args); ok {
		n := e.name(inner)
		unordered, pairs = unordered || e.unordered[n], pairs || e.pairs[n]
	}
	return unordered, pairs
}

// sideOf names a target as findings do: A2 is A's build.
func sideOf(side string) string {
	if side == "A2" {
		return "A"
	}
	return side
}

// lostOf finds the command of seq that the target side does not survive:
// the shortest prefix after which it stops answering (or sends bytes that
// are not RESP), each try on a server started again (a server that
// crashes in a pipeline may not flush the replies to the commands before,
// so the count of replies read does not say which command it was).
// Without Restart, the first command not answered is taken.
func (e *explorer) lostOf(ctx context.Context, side string, proto int, seq [][]string, le *LostError) (*difference, error) {
	i := min(le.Answered, len(seq)-1)
	malformed := isMalformed(le)
	if e.opts.Restart != nil {
		lo, hi := 1, len(seq)
		for lo < hi {
			// Even a server that sent bytes that are not RESP may be
			// busy sending more (miniredis 2.40.0 answers SRANDMEMBER k
			// -9223372036854775808 with *-9223372036854775808, then
			// works on its elements): each try is on a new one.
			if stop, err := e.restart(ctx, side); stop || err != nil {
				// It cannot be started again (an existing server): the
				// first command it did not answer is the one.
				lo = min(le.Answered, len(seq)-1) + 1
				break
			}
			mid := (lo + hi) / 2
			var l *LostError
			if _, err := e.ex[side](ctx, proto, seq[:mid]); errors.As(err, &l) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		i = lo - 1
	}
	what := " stopped answering (a crash or a freeze)"
	if malformed {
		what = " sent bytes that are not RESP"
	}
	return &difference{i: i, side: side, lost: le.Err.Error(), malformed: malformed,
		sig: e.name(seq[i]) + ": " + sideOf(side) + what}, nil
}

// isMalformed says the target answered, with bytes that are not RESP:
// it is still up.
func isMalformed(err error) bool {
	var se *resp.SyntaxError
	return errors.As(err, &se)
}

func isDesync(err error) bool {
	var de *desyncError
	return errors.As(err, &de)
}

// desyncOf finds the command of seq after which the target side answers
// with another number of replies: the shortest prefix that does (a count
// once off stays off).
func (e *explorer) desyncOf(ctx context.Context, side string, proto int, seq [][]string) *difference {
	lo, hi := 1, len(seq)
	for lo < hi {
		mid := (lo + hi) / 2
		if _, err := e.ex[side](ctx, proto, seq[:mid]); isDesync(err) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	name := e.name(seq[lo-1])
	return &difference{i: lo - 1, side: side, desync: true,
		sig: name + ": " + sideOf(side) + " answers one command with another number of replies"}
}

// name is the grammar's name of a command as sent; "EVAL(CMD)" or
// "EVAL3(CMD)" for a command a script runs (wrapEval).
func (e *explorer) name(args []string) string {
	if inner, v, ok := unwrapEval(args); ok {
		return scriptVariants[v].name + "(" + e.name(inner) + ")"
	}
	if len(args) == 0 {
		return ""
	}
	first := strings.ToUpper(args[0])
	if len(args) > 1 && e.words[first+" "+strings.ToUpper(args[1])] == 2 {
		return first + " " + strings.ToUpper(args[1])
	}
	return first
}

func keys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
