package clients

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/respcheck/respcheck/resp"
)

// The judge walks a reply and the library's native value together, once:
// each pair of a reply node and a native node is judged at most once on
// the way to a verdict (a conversion at the top of a reply may look at one
// child again), so its work is linear in the size of the reply however
// deep it nests. A judgement that is tried and not kept (a conversion
// whose parts do not fit, a candidate element of a set) writes its notes
// like any other and they are rolled back (judger.mark, judger.rollback)
// instead of being judged twice, once to try and once to keep.

// maxNotes is the most notes one judgement keeps; the rest are counted
// (a reply of a million mismatched elements is one finding, not a
// million lines).
const maxNotes = 100

// judgeCheckEvery is how many node visits pass between two looks at the
// judgement's context.
const judgeCheckEvery = 1 << 12

// judgeVisits counts the nodes every judgement visited, for tests that
// check the judge's work grows linearly with a reply's size.
var judgeVisits atomic.Int64

// Judge compares the library's native value n with the reply bytes the
// library received (v) under contract c. It returns the verdict and notes
// that explain anything but a plain match.
func (c *contract) Judge(v resp.Value, n Native) (Verdict, []string) {
	return c.JudgeFrames([]resp.Value{v}, n)
}

// JudgeFrames is Judge for a reply of several frames (SUBSCRIBE a b gets one
// confirmation per channel): the value is judged against the first frame,
// and a conversion may look at the others (a count library returns the
// last confirmation's count).

// JudgeFrames' verdict, notes and rule without the command (see
// JudgeCommand).
func (c *contract) JudgeFrames(frames []resp.Value, n Native) (Verdict, []string) {
	v, notes, _ := c.JudgeCommand(context.Background(), 0, nil, frames, n)
	return v, notes
}

// JudgeCommand is JudgeFrames for the reply to command args on a
// connection speaking RESP proto (nil and 0 when not known: the
// conversions that a library applies by command name, as redis-py's
// response callbacks, are then not tried), and the rule that
// decided the verdict (a RuleDoc's ID; "" for a plain match). It stops
// when ctx is done: the walk looks at ctx every few thousand nodes, and a
// judgement cut short is Error with a note saying why.
func (c *contract) JudgeCommand(ctx context.Context, proto int, args [][]byte, frames []resp.Value, n Native) (Verdict, []string, string) {
	v, notes, rule, _ := c.judgeCommand(ctx, proto, args, frames, n)
	return v, notes, rule
}

// judgeCommand is JudgeCommand, and the note of the node that decided the
// verdict ("" for a match, a callback's or a stopped walk's).
func (c *contract) judgeCommand(ctx context.Context, proto int, args [][]byte, frames []resp.Value, n Native) (Verdict, []string, string, string) {
	j := judger{c: c, frames: frames, ctx: ctx, command: commandName(args), proto: proto}
	verdict := j.judge(&frames[0], &n, nil, false)
	judgeVisits.Add(j.visits)
	if j.dropped > 0 {
		j.notes = append(j.notes, fmt.Sprintf("… and %d more %s", j.dropped, plural(j.dropped, "note", "notes")))
	}
	if j.stopped != nil {
		return Error, append(j.notes, "judging stopped: "+j.stopped.Error()), ruleNotJudged, ""
	}
	if verdict >= Mismatch && j.command != "" {
		if cb := c.callback(j.command, proto); cb != nil && verdict != Crash {
			// The library's callback for this command made the value.
			return verdict, append(j.notes, "made by "+cb.Name+" ("+cb.Source+")"), ruleCallback, j.rules[verdict].Note
		}
	}
	if verdict <= Match {
		return verdict, j.notes, "", ""
	}
	return verdict, j.notes, j.rules[verdict].ID, j.rules[verdict].Note
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type judger struct {
	c      *contract
	notes  []string
	frames []resp.Value // every frame of the reply, the first judged
	// dropped counts the notes past maxNotes.
	dropped int
	ctx     context.Context
	visits  int64
	// stopped is why the walk stopped early (ctx's error), or nil.
	stopped error
	// command is the command's name ("SET", "CLIENT SETNAME"), or "";
	// proto its connection's protocol, or 0.
	command string
	proto   int
	// rules holds, for each verdict, the first rule that gave it (a
	// verdict a conversion lowers, as an erasure it explains, is decided
	// by the conversion's rule).
	rules ruleSet
}

// ruleSet is the first rule that gave each verdict, by verdict.
type ruleSet [Error + 1]ruleHit

// ruleHit is a rule that gave a verdict, and the note it wrote.
type ruleHit struct{ ID, Note string }

// merge keeps r's rules and takes o's for the verdicts r has none of.
func (r *ruleSet) merge(o ruleSet) {
	for v, hit := range o {
		if r[v].ID == "" {
			r[v] = hit
		}
	}
}

// visit counts a node and reports whether the walk goes on.
func (j *judger) visit() bool {
	j.visits++
	if j.stopped == nil && j.ctx != nil && j.visits%judgeCheckEvery == 0 {
		if err := j.ctx.Err(); err != nil {
			j.stopped = context.Cause(j.ctx)
		}
	}
	return j.stopped == nil
}

// find writes a note on a node judged v by rule.
func (j *judger) find(rule string, v Verdict, path *jpath, format string, a ...any) {
	if j.rules[v].ID == "" {
		j.rules[v] = ruleHit{ID: rule, Note: path.String() + ": " + fmt.Sprintf(format, a...)}
	}
	j.note(path, format, a...)
}

func (j *judger) note(path *jpath, format string, a ...any) {
	if len(j.notes) >= maxNotes {
		j.dropped++
		return
	}
	j.notes = append(j.notes, path.String()+": "+fmt.Sprintf(format, a...))
}

// notesMark is a point in a judger's notes (and its rule) to roll back to.
type notesMark struct {
	notes, dropped int
	rules          ruleSet
}

func (j *judger) mark() notesMark { return notesMark{len(j.notes), j.dropped, j.rules} }

// rollback forgets the notes written since m, and the rule they decided.
func (j *judger) rollback(m notesMark) {
	clear(j.notes[m.notes:])
	j.notes, j.dropped, j.rules = j.notes[:m.notes], m.dropped, m.rules
}

// keptNotes are notes written since a mark, set aside with the rule they
// decided.
type keptNotes struct {
	notes   []string
	dropped int
	rules   ruleSet
}

// since sets aside the notes written since m (see restore).
func (j *judger) since(m notesMark) keptNotes {
	return keptNotes{append([]string(nil), j.notes[m.notes:]...), j.dropped - m.dropped, j.rules}
}

// restore writes notes set aside by since back.
func (j *judger) restore(k keptNotes) {
	j.rules.merge(k.rules)
	for _, s := range k.notes {
		if len(j.notes) >= maxNotes {
			j.dropped++
			continue
		}
		j.notes = append(j.notes, s)
	}
	j.dropped += k.dropped
}

// jpath is where a node lies in the reply: built as the judge descends
// (one small node per level) and rendered only when a note names it. The
// root is nil.
type jpath struct {
	up  *jpath
	idx int         // an element index, when key and text are unset
	key *resp.Value // a map entry: {key}
	txt string      // a suffix: ".value", "(key)"
}

func (p *jpath) root() bool { return p == nil }

// at is the path of element i.
func (p *jpath) at(i int) *jpath { return &jpath{up: p, idx: i} }

// keyed is the path of the map entry whose key is k.
func (p *jpath) keyed(k *resp.Value) *jpath { return &jpath{up: p, key: k} }

// field is the path with a suffix.
func (p *jpath) field(s string) *jpath { return &jpath{up: p, txt: s} }

func (p *jpath) seg() string {
	switch {
	case p.key != nil:
		return "{" + cliShort(p.key) + "}"
	case p.txt != "":
		return p.txt
	}
	return "[" + strconv.Itoa(p.idx) + "]"
}

// minRun is the shortest run of one segment that String writes once with
// its count.
const minRun = 4

// String renders the path as "[1][0]{key}.value"; a run of one segment
// repeated minRun times or more is written once with its count
// ("[0]×7994"). The root is "reply".
func (p *jpath) String() string {
	if p == nil {
		return "reply"
	}
	var segs []string
	for q := p; q != nil; q = q.up {
		segs = append(segs, q.seg())
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; {
		run := 1
		for i-run >= 0 && segs[i-run] == segs[i] {
			run++
		}
		if run >= minRun {
			b.WriteString(segs[i] + "×" + strconv.Itoa(run))
		} else {
			b.WriteString(strings.Repeat(segs[i], run))
		}
		i -= run
	}
	return b.String()
}

// convert tries the contract's conversions on v and n; a conversion that
// does not apply leaves no note.
func (j *judger) convert(v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	for _, cv := range j.c.Conversions {
		if cv.Commands != nil && (!path.root() || !slices.Contains(cv.Commands, j.command) || cv.RESP2 && j.proto != 2) {
			continue
		}
		m := j.mark()
		if vd, ok := cv.apply(j, v, n, path); ok {
			j.find(ruleConversion, Converted, path, "converted: %s (%s)", cv.Name, cv.Source)
			return max(Converted, vd), true
		}
		j.rollback(m)
	}
	return 0, false
}

// judge judges one node; key is true for map keys (a host that can only key
// by string may turn a scalar key into its text: erased).
func (j *judger) judge(v *resp.Value, n *Native, path *jpath, key bool) Verdict {
	if !j.visit() {
		return Error
	}
	if n.Kind == "exception" {
		j.find(ruleException, Crash, path, "%s", n.String())
		return Crash
	}
	if n.tooDeep() {
		j.note(path, "not judged below: the adapter reports 64 levels of nesting (%s)", v.Kind)
		return Skip
	}
	floor := Match
	if v.Attr != nil && n.Attr == nil {
		if vd, ok := j.convert(v, n, path); ok {
			return vd
		}
		j.find(ruleAttribute, Erased, path, "attribute %s dropped", resp.Escape(attrBytes(v)))
		floor = Erased
	}
	allowed, ok := j.c.Kinds[v.Kind][n.Kind]
	if !ok && key && (n.Kind == "string" || n.Kind == "bytes") && scalar(v.Kind) {
		allowed, ok = Erased, true
	}
	if !ok {
		if vd, ok := j.convert(v, n, path); ok {
			return max(floor, vd)
		}
		j.find(ruleKind, Mismatch, path, "RESP %s decoded as %s", v.Kind, n.String())
		return Mismatch
	}
	if n.RESP() != "" && n.RESP() == v.Kind.String() {
		allowed = Match
	}
	if v.Kind == resp.NilArray && n.Type == "[]interface {}(nil)" {
		allowed = Match // a nil slice: not the nil []byte of a nil blob string
	}
	verdict := max(floor, allowed)
	if allowed == Erased {
		j.find(ruleKind, Erased, path, "RESP %s decoded as %s (%s)", v.Kind, n.Type, erasedWhat(v.Kind, n.Kind, key))
	}
	switch v.Kind {
	case resp.Array, resp.Set, resp.Push, resp.Map:
		return j.container(v, n, path, floor, verdict)
	}
	if ok, why := scalarEqual(v, n); !ok {
		if vd, ok := j.convert(v, n, path); ok {
			return max(floor, vd)
		}
		j.find(RuleValue, Mismatch, path, "RESP %s %s decoded as %s: %s", v.Kind, cliShort(v), n.String(), why)
		return Mismatch
	} else if why != "" {
		j.find(RuleValue, Erased, path, "%s", why)
		verdict = max(verdict, Erased)
	}
	return verdict
}

// container judges the elements of an aggregate whose kind the contract
// allows; verdict is the node's own so far.
func (j *judger) container(v *resp.Value, n *Native, path *jpath, floor, verdict Verdict) Verdict {
	if v.Kind == resp.Map {
		if n.Kind == "list" {
			return max(verdict, j.elems(v.Elems, n, path, false))
		}
		return max(verdict, j.pairs(v, n, path))
	}
	unordered := v.Kind == resp.Set && n.Kind == "set"
	m := j.mark()
	ev := j.elems(v.Elems, n, path, unordered)
	if ev >= Mismatch && len(j.c.Conversions) > 0 && j.stopped == nil {
		// A container whose elements are a finding as they are may be a
		// documented reshaping of the whole (redis-py's SCAN cursor).
		kept := j.since(m)
		j.rollback(m)
		if vd, ok := j.convert(v, n, path); ok {
			return max(floor, vd)
		}
		j.restore(kept)
	}
	return max(verdict, ev)
}

func (j *judger) elems(ve []resp.Value, n *Native, path *jpath, unordered bool) Verdict {
	if len(ve) != len(n.Elems) {
		j.find(ruleLength, Mismatch, path, "%d elements on the wire, %d decoded", len(ve), len(n.Elems))
		return Mismatch
	}
	worst := Match
	if !unordered {
		for i := range ve {
			worst = max(worst, j.judge(&ve[i], &n.Elems[i], path.at(i), false))
			if j.stopped != nil {
				return Error
			}
		}
		return worst
	}
	pick := newPicker(len(n.Elems), func(k int) *Native { return &n.Elems[k] })
	for i := range ve {
		p := path.at(i)
		vd, _ := pick.best(j, &ve[i], i, func(k int) Verdict { return j.judge(&ve[i], &n.Elems[k], p, false) })
		if j.stopped != nil {
			return Error
		}
		if vd >= Mismatch {
			j.find(ruleMember, Mismatch, p, "no decoded element matches %s", cliShort(&ve[i]))
			return Mismatch
		}
		worst = max(worst, vd)
	}
	return worst
}

func (j *judger) pairs(v *resp.Value, n *Native, path *jpath) Verdict {
	np := len(v.Elems) / 2
	if np != len(n.Pairs) {
		j.find(ruleLength, Mismatch, path, "%d map entries on the wire, %d decoded (keys merged or lost?)", np, len(n.Pairs))
		return Mismatch
	}
	worst := Match
	pick := newPicker(np, func(x int) *Native { return &n.Pairs[x][0] })
	for i := 0; i < np; i++ {
		k := &v.Elems[2*i]
		kp := path.keyed(k)
		kk := kp.field("(key)")
		kv, bi := pick.best(j, k, i, func(x int) Verdict { return j.judge(k, &n.Pairs[x][0], kk, true) })
		if j.stopped != nil {
			return Error
		}
		if kv >= Mismatch {
			j.find(ruleMember, Mismatch, kp, "key not found among the decoded keys")
			return Mismatch
		}
		worst = max(worst, kv, j.judge(&v.Elems[2*i+1], &n.Pairs[bi][1], kp, false))
		if j.stopped != nil {
			return Error
		}
	}
	return worst
}

// picker matches the elements of an unordered aggregate (a set's
// elements, a map's keys) with the library's, each used once: for each
// element, the candidates are the library's element at the same place,
// then those with the same payload text, and only when none of them is
// acceptable every unused one. A candidate that matches stops the search,
// and an acceptable one among the first two kinds is kept, so a library
// that keeps the order, or whose elements' texts are the wire's, costs one
// judgement per element; the best verdict wins, the first tried on a tie.
type picker struct {
	used   []bool
	tried  []int // tried[k] == i+1: candidate k was tried for element i
	native func(k int) *Native
	index  map[string][]int // unused candidates by payload text, built when first needed
}

func newPicker(n int, native func(k int) *Native) *picker {
	return &picker{used: make([]bool, n), tried: make([]int, n), native: native}
}

// best judges element i (v) against the candidates with try, keeps the
// notes of the best one if it is acceptable (none otherwise), marks it
// used and returns its verdict and index (-1 and Mismatch when none is
// acceptable).
func (pk *picker) best(j *judger, v *resp.Value, i int, try func(k int) Verdict) (Verdict, int) {
	m := j.mark()
	best, bi := Error+1, -1
	var kept keptNotes
	// attempt tries candidate k and reports whether the search is over.
	attempt := func(k int) bool {
		if k < 0 || k >= len(pk.used) || pk.used[k] || pk.tried[k] == i+1 {
			return false
		}
		pk.tried[k] = i + 1
		vd := try(k)
		if vd < best {
			best, bi = vd, k
			kept = j.since(m)
		}
		j.rollback(m)
		return vd <= Match || j.stopped != nil
	}
	done := false
	if sig, ok := wireSignature(v); ok {
		for _, k := range pk.bucket(sig) {
			if done = attempt(k); done {
				break
			}
		}
	}
	if !done {
		done = attempt(i)
	}
	if !done && best >= Mismatch {
		for k := range pk.used {
			if attempt(k) {
				break
			}
		}
	}
	if bi < 0 || best >= Mismatch {
		return Mismatch, -1
	}
	pk.used[bi] = true
	j.restore(kept)
	return best, bi
}

// bucket returns the unused candidates whose payload text is sig.
func (pk *picker) bucket(sig string) []int {
	if pk.index == nil {
		pk.index = map[string][]int{}
		for k := range pk.used {
			if s, ok := nativeSignature(pk.native(k)); ok {
				pk.index[s] = append(pk.index[s], k)
			}
		}
	}
	b := pk.index[sig]
	for len(b) > 0 && pk.used[b[0]] {
		b = b[1:]
	}
	pk.index[sig] = b
	return b
}

// wireSignature is the payload text of a scalar reply, as a library's
// text of it would read when it keeps it whole.
func wireSignature(v *resp.Value) (string, bool) {
	if !scalar(v.Kind) {
		return "", false
	}
	return string(v.Str), true
}

// nativeSignature is the text of a scalar native.
func nativeSignature(n *Native) (string, bool) {
	switch n.Kind {
	case "string", "bytes", "int", "bigint", "number", "float", "bool":
		return text(n), true
	}
	return "", false
}
