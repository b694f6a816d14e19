package golden

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Change is one difference between two golden directories.
type Change struct {
	File string `json:"file"`           // suite file base name ("strings")
	Case string `json:"case,omitempty"` // case name; empty for a whole-file change
	// Proto is the protocol of the case (0 for a whole-file change).
	Proto int `json:"proto,omitempty"`
	// Step is the step index, or -1 for a whole-case change.
	Step int `json:"step"`
	// What says what differs: "only in A", "only in B", "status", "reply",
	// "sent", "push", or "case file" (recorded from different case files).
	What string `json:"what"`
	// A and B are the two sides: escaped bytes or a short text.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	// CLIA and CLIB are the redis-cli renderings of replies (empty when the
	// bytes are not one RESP frame or not a reply).
	CLIA string `json:"cli_a,omitempty"`
	CLIB string `json:"cli_b,omitempty"`
	// Command is the step's sent bytes (from A, else B), escaped.
	Command string `json:"command,omitempty"`
	// Line is the step's case-file line.
	Line int `json:"line,omitempty"`
	// StatusA and StatusB are the case's bare statuses (pass, skip...) for
	// "status" and whole-case "only in" changes; ReasonA and ReasonB why,
	// for anything but pass.
	StatusA string `json:"status_a,omitempty"`
	StatusB string `json:"status_b,omitempty"`
	ReasonA string `json:"reason_a,omitempty"`
	ReasonB string `json:"reason_b,omitempty"`
}

// Changed reports whether c is a step recorded on both sides whose sent
// bytes, reply or pushes differ (not a step, case or file recorded on one
// side only, nor a case status).
func (c Change) Changed() bool {
	return c.Step >= 0 && (c.What == "reply" || c.What == "push" || c.What == "sent")
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// Volatile includes steps that either recording marks volatile; by
	// default their replies are not compared (they differ from run to run).
	Volatile bool
}

// Diff lists the differences between two golden directories: files, cases
// and steps present in one only, case statuses, and the bytes of steps
// present in both. Changes come grouped by file (sorted), then in A's case
// order (cases only in B last), then by step. See DiffExcluding for what
// is not compared between a cluster's recording and a standalone one.
func Diff(a, b *Dir, opt DiffOptions) []Change {
	out, _ := DiffExcluding(a, b, opt)
	return out
}

// Excluded counts what Diff does not compare between a file recorded on a
// cluster and one recorded on a standalone server: the cases that one side
// skipped for its topology (a skip reason of "runs on a cluster only",
// "standalone only: ..." or "requires a replica of every primary ..."), and
// the steps either side marks as expecting one thing on a cluster and
// another standalone (Step.ByTopology).
type Excluded struct {
	Cases int `json:"cases"`
	Steps int `json:"steps"`
}

// topologyGated reports whether a case's status is a skip for its topology
// (target's topology gates).
func topologyGated(c *Case) bool {
	return c.Status == "skip" && (c.Reason == "runs on a cluster only" || strings.HasPrefix(c.Reason, "standalone only: ") ||
		strings.HasPrefix(c.Reason, "requires a replica of every primary"))
}

// DiffExcluding is Diff, and what it left out because one side is a
// cluster and the other standalone (Excluded).
func DiffExcluding(a, b *Dir, opt DiffOptions) ([]Change, Excluded) {
	var ex Excluded
	var out []Change
	bases := map[string]bool{}
	for k := range a.Files {
		bases[k] = true
	}
	for k := range b.Files {
		bases[k] = true
	}
	var names []string
	for k := range bases {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, base := range names {
		fa, fb := a.Files[base], b.Files[base]
		switch {
		case fb == nil:
			out = append(out, Change{File: base, Step: -1, What: "only in A", A: fa.Path})
			continue
		case fa == nil:
			out = append(out, Change{File: base, Step: -1, What: "only in B", B: fb.Path})
			continue
		}
		if fa.SHA256 != fb.SHA256 {
			out = append(out, Change{File: base, Step: -1, What: "case file",
				A: "sha256 " + fa.SHA256, B: "sha256 " + fb.SHA256})
		}
		out = append(out, diffFile(base, fa, fb, opt, &ex)...)
	}
	return out, ex
}

func diffFile(base string, fa, fb *File, opt DiffOptions, ex *Excluded) []Change {
	cross := fa.Server.IsCluster() != fb.Server.IsCluster()
	var out []Change
	seen := map[string]bool{}
	key := func(c *Case) string { return fmt.Sprintf("%s\x00%d", c.Name, c.Proto) }
	// B's cases by key: linear in the file's cases (Find would be
	// quadratic for files of thousands of cases).
	inB := make(map[string]*Case, len(fb.Cases))
	for _, cb := range fb.Cases {
		if k := key(cb); inB[k] == nil {
			inB[k] = cb
		}
	}
	for _, ca := range fa.Cases {
		seen[key(ca)] = true
		cb := inB[key(ca)]
		if cb == nil {
			out = append(out, Change{File: base, Case: ca.Name, Proto: ca.Proto, Step: -1, What: "only in A", A: statusText(ca),
				StatusA: ca.Status, ReasonA: ca.Reason})
			continue
		}
		if cross && ca.Status != cb.Status && (topologyGated(ca) || topologyGated(cb)) {
			ex.Cases++
			continue
		}
		out = append(out, diffCase(base, ca, cb, opt, cross, ex)...)
	}
	for _, cb := range fb.Cases {
		if !seen[key(cb)] {
			out = append(out, Change{File: base, Case: cb.Name, Proto: cb.Proto, Step: -1, What: "only in B", B: statusText(cb),
				StatusB: cb.Status, ReasonB: cb.Reason})
		}
	}
	return out
}

// oneSided fills in ch for a step only one recording has (sa or sb is nil):
// the step's command, case line and reply on its side.
func oneSided(ch Change, sa, sb *Step) Change {
	s, what, text, cli := sa, "only in A", &ch.A, &ch.CLIA
	if sa == nil {
		s, what, text, cli = sb, "only in B", &ch.B, &ch.CLIB
	}
	ch.What, ch.Command, ch.Line = what, sentText(s), s.CaseLine
	*text, *cli = replyText(s.Reply)
	return ch
}

func statusText(c *Case) string {
	s := c.Status
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return fmt.Sprintf("%s (%d steps)", s, len(c.Steps))
}

func diffCase(base string, ca, cb *Case, opt DiffOptions, cross bool, ex *Excluded) []Change {
	var out []Change
	mk := func(step int, what string) Change {
		return Change{File: base, Case: ca.Name, Proto: ca.Proto, Step: step, What: what}
	}
	if ca.Status != cb.Status {
		ch := mk(-1, "status")
		ch.A, ch.B = statusText(ca), statusText(cb)
		ch.StatusA, ch.StatusB, ch.ReasonA, ch.ReasonB = ca.Status, cb.Status, ca.Reason, cb.Reason
		out = append(out, ch)
	}
	idx := map[int]bool{}
	for _, s := range ca.Steps {
		idx[s.Index] = true
	}
	for _, s := range cb.Steps {
		idx[s.Index] = true
	}
	var order []int
	for i := range idx {
		order = append(order, i)
	}
	sort.Ints(order)
	for _, i := range order {
		sa, sb := ca.Step(i), cb.Step(i)
		if sa == nil || sb == nil {
			out = append(out, oneSided(mk(i, ""), sa, sb))
			continue
		}
		if cross && (sa.ByTopology || sb.ByTopology) {
			ex.Steps++
			continue
		}
		cmd, line := sentText(sa), sa.CaseLine
		if (sa.Volatile || sb.Volatile) && !opt.Volatile {
			continue
		}
		if sa.Sent != nil && sb.Sent != nil && !sa.Sent.Equal(*sb.Sent) {
			ch := mk(i, "sent")
			ch.Command, ch.Line = cmd, line
			ch.A, ch.B = blobText(*sa.Sent), blobText(*sb.Sent)
			out = append(out, ch)
		}
		if !sameReply(sa, sb) {
			what := "reply"
			if (sa.Reply == nil) == (sb.Reply == nil) && (sa.Reply == nil || sa.Reply.Equal(*sb.Reply)) {
				what = "push"
			}
			ch := mk(i, what)
			ch.Command, ch.Line = cmd, line
			if what == "push" {
				ch.A, ch.B = pushesText(sa.Pushes), pushesText(sb.Pushes)
			} else {
				ch.A, ch.CLIA = replyText(sa.Reply)
				ch.B, ch.CLIB = replyText(sb.Reply)
			}
			out = append(out, ch)
		}
	}
	return out
}

func sentText(s *Step) string {
	if s.Sent == nil {
		return s.Action
	}
	if !s.Sent.Full() {
		return blobText(*s.Sent)
	}
	if _, v, err := resp.Parse(s.Sent.Data); err == nil && v.Kind == resp.Array {
		var parts []string
		for _, e := range v.Elems {
			if bytes.ContainsAny(e.Str, " \"\\") || len(e.Str) == 0 || strings.IndexFunc(string(e.Str), func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
				parts = append(parts, resp.Escape(e.Str))
			} else {
				parts = append(parts, string(e.Str))
			}
		}
		return strings.Join(parts, " ")
	}
	return resp.Escape(s.Sent.Data)
}

func replyText(b *Blob) (string, string) {
	if b == nil {
		return "(no reply read)", ""
	}
	if !b.Full() {
		return blobText(*b), ""
	}
	cli := ""
	if n, v, err := resp.Parse(b.Data); err == nil && n == len(b.Data) {
		cli = v.CLI()
	}
	return resp.Escape(b.Data), cli
}

func pushesText(ps []Blob) string {
	if len(ps) == 0 {
		return "(no push frames)"
	}
	var s []string
	for _, p := range ps {
		s = append(s, blobText(p))
	}
	return strings.Join(s, ", ")
}

// DiffCounts counts the changes of one suite file, or of all.
type DiffCounts struct {
	File string `json:"file,omitempty"`
	// Changed counts the steps recorded on both sides whose sent bytes,
	// reply or pushes differ.
	Changed int `json:"changed"`
	// Status counts the cases whose status differs, and files recorded from
	// different case files.
	Status int `json:"status"`
	// OnlyA and OnlyB count the steps recorded on one side only, a case or
	// file recorded on one side only counting once.
	OnlyA int `json:"only_in_a"`
	OnlyB int `json:"only_in_b"`
}

// Total is the number of changes counted.
func (d DiffCounts) Total() int { return d.Changed + d.Status + d.OnlyA + d.OnlyB }

// Summarize counts changes per suite file (in their order) and in all.
func Summarize(changes []Change) (files []DiffCounts, total DiffCounts) {
	idx := map[string]int{}
	for _, c := range changes {
		i, ok := idx[c.File]
		if !ok {
			i = len(files)
			idx[c.File] = i
			files = append(files, DiffCounts{File: c.File})
		}
		for _, d := range []*DiffCounts{&files[i], &total} {
			switch {
			case c.Changed():
				d.Changed++
			case c.What == "only in A":
				d.OnlyA++
			case c.What == "only in B":
				d.OnlyB++
			default:
				d.Status++
			}
		}
	}
	return files, total
}

// ReportOptions tune WriteReport.
type ReportOptions struct {
	NameA, NameB string // the sides' labels
	// Verbose lists every change in full (writeDiff), long replies whole.
	Verbose bool
}

// Shortening of long texts in WriteReport (unless Verbose).
const (
	shortBytes = 160 // escaped text kept of a longer reply or command
	shortLines = 6   // redis-cli lines kept of a longer rendering
)

// WriteReport prints what a reviewer reads first: a summary per suite file,
// then the steps whose bytes differ in full (escaped and as redis-cli shows
// them, long replies shortened with their byte count), then one line per
// case whose status differs or that has steps recorded on one side only
// (the case, its protocols and the step positions). With Verbose, the
// summary is followed by every change in full instead (writeDiff).
func WriteReport(w io.Writer, changes []Change, opt ReportOptions) {
	files, total := Summarize(changes)
	width := len("total")
	for _, f := range files {
		width = max(width, len(f.File))
	}
	fmt.Fprintf(w, "\n%-*s  %7s  %6s  %9s  %9s\n", width+2, "", "changed", "status", "only in A", "only in B")
	for _, f := range append(files, DiffCounts{File: "total", Changed: total.Changed, Status: total.Status, OnlyA: total.OnlyA, OnlyB: total.OnlyB}) {
		fmt.Fprintf(w, "  %-*s  %7d  %6d  %9d  %9d\n", width, f.File, f.Changed, f.Status, f.OnlyA, f.OnlyB)
	}
	if opt.Verbose {
		writeDiff(w, changes, opt.NameA, opt.NameB)
		return
	}
	var changed, other []Change
	for _, c := range changes {
		if c.Changed() {
			changed = append(changed, c)
		} else {
			other = append(other, c)
		}
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "\n%d %s whose bytes differ:\n", len(changed), cases.Plural(len(changed), "step", "steps"))
		writeChanges(w, changed, opt.NameA, opt.NameB, true)
	}
	if len(other) > 0 {
		lines := compactLines(other, opt.NameA, opt.NameB)
		fmt.Fprintf(w, "\n%d %s recorded differently (status, steps in one recording only; -v shows every step):\n",
			len(lines), cases.Plural(len(lines), "case", "cases"))
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// compactLines renders changes that are not step bytes one line per file or
// case: the case's protocols merged when their changes are the same.
func compactLines(changes []Change, nameA, nameB string) []string {
	type group struct {
		file, name string
		protos     []string
		desc       string
	}
	var order []string
	descs := map[string][]string{}                           // file\x00case\x00proto → parts
	stepsA, stepsB := map[string][]int{}, map[string][]int{} // same key → step indexes
	var fileLines []string
	for _, c := range changes {
		if c.Case == "" {
			switch c.What {
			case "only in A":
				fileLines = append(fileLines, fmt.Sprintf("%s: whole file only in %s (%s)", c.File, nameA, c.A))
			case "only in B":
				fileLines = append(fileLines, fmt.Sprintf("%s: whole file only in %s (%s)", c.File, nameB, c.B))
			default:
				fileLines = append(fileLines, fmt.Sprintf("%s: %s differs: %s: %s, %s: %s", c.File, c.What, nameA, c.A, nameB, c.B))
			}
			continue
		}
		k := fmt.Sprintf("%s\x00%s\x00%d", c.File, c.Case, c.Proto)
		if _, ok := descs[k]; !ok {
			order = append(order, k)
			descs[k] = nil
		}
		switch {
		case c.Step >= 0 && c.What == "only in A":
			stepsA[k] = append(stepsA[k], c.Step)
		case c.Step >= 0 && c.What == "only in B":
			stepsB[k] = append(stepsB[k], c.Step)
		case c.What == "only in A":
			descs[k] = append(descs[k], fmt.Sprintf("whole case only in %s (%s)", nameA, shorten(c.A, 60)))
		case c.What == "only in B":
			descs[k] = append(descs[k], fmt.Sprintf("whole case only in %s (%s)", nameB, shorten(c.B, 60)))
		case c.What == "status":
			d := c.StatusA + " → " + c.StatusB
			if r := whyNot(c, nameA, nameB); r != "" {
				d += " (" + r + ")"
			}
			descs[k] = append(descs[k], d)
		default:
			descs[k] = append(descs[k], fmt.Sprintf("%s: %s / %s", c.What, shorten(c.A, 40), shorten(c.B, 40)))
		}
	}
	var groups []*group
	byDesc := map[string]*group{}
	for _, k := range order {
		parts := descs[k]
		if st := stepsA[k]; len(st) > 0 {
			parts = append(parts, fmt.Sprintf("%s only in %s", stepList(st), nameA))
		}
		if st := stepsB[k]; len(st) > 0 {
			parts = append(parts, fmt.Sprintf("%s only in %s", stepList(st), nameB))
		}
		f, rest, _ := strings.Cut(k, "\x00")
		name, proto, _ := strings.Cut(rest, "\x00")
		desc := strings.Join(parts, "; ")
		gk := f + "\x00" + name + "\x00" + desc
		if g := byDesc[gk]; g != nil {
			g.protos = append(g.protos, "RESP"+proto)
			continue
		}
		g := &group{file: f, name: name, protos: []string{"RESP" + proto}, desc: desc}
		byDesc[gk] = g
		groups = append(groups, g)
	}
	out := fileLines
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s %q [%s]: %s", g.file, g.name, strings.Join(g.protos, " "), g.desc))
	}
	return out
}

// whyNot is the reason, shortened, of the side of a status change that did
// not pass (both when neither passed).
func whyNot(c Change, nameA, nameB string) string {
	var r []string
	if c.ReasonA != "" {
		r = append(r, nameA+": "+shorten(c.ReasonA, 90))
	}
	if c.ReasonB != "" {
		r = append(r, nameB+": "+shorten(c.ReasonB, 90))
	}
	return strings.Join(r, "; ")
}

// stepList renders step indexes as "step 3" or "steps 0-4, 7".
func stepList(st []int) string {
	sort.Ints(st)
	var parts []string
	for i := 0; i < len(st); {
		j := i
		for j+1 < len(st) && st[j+1] == st[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(st[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", st[i], st[j]))
		}
		i = j + 1
	}
	if len(st) == 1 {
		return "step " + parts[0]
	}
	return "steps " + strings.Join(parts, ", ")
}

// shorten cuts s to about n bytes, saying how long it was.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// shortEscaped cuts an escaped text (a quoted resp.Escape rendering, or a
// size= line) to about shortBytes, naming the byte count of what it stands
// for.
func shortEscaped(s string) string {
	if len(s) <= shortBytes || !strings.HasPrefix(s, `"`) {
		return s
	}
	raw, err := unquote(s)
	if err != nil {
		return shorten(s, shortBytes)
	}
	// Cut between escape sequences (\r, \\, \xNN...), never inside one.
	i := 1 // after the opening quote
	for i < shortBytes && i < len(s)-1 {
		switch {
		case s[i] != '\\':
			i++
		case s[i+1] == 'x':
			i += 4
		default:
			i += 2
		}
	}
	return fmt.Sprintf("%s\"… (%d bytes)", s[:i], len(raw))
}

// shortCLI keeps the first lines of a redis-cli rendering, each cut.
func shortCLI(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i, l := range lines {
		if i == shortLines {
			out = append(out, fmt.Sprintf("… (%d more lines)", len(lines)-shortLines))
			break
		}
		out = append(out, shorten(l, shortBytes))
	}
	return strings.Join(out, "\n")
}

// writeDiff prints changes as a table a reviewer can read: grouped by file
// and case, each step with its command, both sides escaped and as redis-cli
// shows them, in full. nameA and nameB label the sides.
func writeDiff(w io.Writer, changes []Change, nameA, nameB string) {
	writeChanges(w, changes, nameA, nameB, false)
}

// writeChanges is writeDiff; short cuts long replies and commands.
func writeChanges(w io.Writer, changes []Change, nameA, nameB string, short bool) {
	width := max(utf8.RuneCountInString(nameA), utf8.RuneCountInString(nameB)) // columns, for the carets
	label := func(n string) string { return n + ":" + strings.Repeat(" ", width-utf8.RuneCountInString(n)) }
	pad := strings.Repeat(" ", width+1)
	lastFile, lastCase := "", ""
	for _, c := range changes {
		if c.File != lastFile {
			fmt.Fprintf(w, "\n== %s\n", c.File)
			lastFile, lastCase = c.File, ""
		}
		if c.Case == "" {
			fmt.Fprintf(w, "  file %s\n", c.What)
			if c.A != "" {
				fmt.Fprintf(w, "    %s %s\n", label(nameA), c.A)
			}
			if c.B != "" {
				fmt.Fprintf(w, "    %s %s\n", label(nameB), c.B)
			}
			continue
		}
		ck := fmt.Sprintf("%s [RESP%d]", c.Case, c.Proto)
		if ck != lastCase {
			fmt.Fprintf(w, "  case %q [RESP%d]\n", c.Case, c.Proto)
			lastCase = ck
		}
		if c.Step < 0 {
			fmt.Fprintf(w, "    %s\n", c.What)
		} else {
			loc := ""
			if c.Line > 0 {
				loc = fmt.Sprintf(" (line %d)", c.Line)
			}
			cmd := c.Command
			if short {
				cmd = shorten(cmd, shortBytes)
			}
			fmt.Fprintf(w, "    step %d%s %s: %s\n", c.Step, loc, c.What, cmd)
		}
		// show writes a side's bytes (as given), a caret under byte
		// caret of text (none when negative) and its redis-cli lines.
		show := func(name, text, cli string, caret int) {
			fmt.Fprintf(w, "      %s %s\n", label(name), text)
			if caret >= 0 {
				fmt.Fprintf(w, "      %s %s^\n", pad, strings.Repeat(" ", caret))
			}
			if short {
				cli = shortCLI(cli)
			}
			if cli != "" {
				for _, l := range strings.Split(cli, "\n") {
					fmt.Fprintf(w, "      %s %s\n", pad, l)
				}
			}
		}
		side := func(name, text, cli string) {
			switch {
			case text == "":
				fmt.Fprintf(w, "      %s (absent)\n", label(name))
			case short:
				show(name, shortEscaped(text), cli, -1)
			default:
				show(name, text, cli, -1)
			}
		}
		if short && (len(c.A) > shortBytes || len(c.B) > shortBytes) {
			if wa, wb, off, ok := around(c.A, c.B); ok {
				fmt.Fprintf(w, "      first differing byte: %d\n", off)
				show(nameA, wa.text, c.CLIA, wa.caret)
				show(nameB, wb.text, c.CLIB, wb.caret)
				continue
			}
		}
		side(nameA, c.A, c.CLIA)
		side(nameB, c.B, c.CLIB)
	}
}

// window is a side of a long change rendered around its first differing
// byte: the text, and the caret's column in it.
type window struct {
	text  string
	caret int
}

// aroundBytes is how many bytes a window shows before the first
// differing byte (and three times as many after it).
const aroundBytes = 32

// around renders both sides of a change (quoted texts or size= lines,
// blobText) around their first differing byte, and reports false when
// that byte is not known: past a side's head (headLen) when that side
// was kept as size and hash.
func around(a, b string) (window, window, int, bool) {
	ba, errA := parseBlob(a)
	bb, errB := parseBlob(b)
	if errA != nil || errB != nil {
		return window{}, window{}, 0, false
	}
	off := resp.FirstDiff(ba.Data, bb.Data)
	if off >= min(len(ba.Data), len(bb.Data)) && (!ba.Full() && off == len(ba.Data) || !bb.Full() && off == len(bb.Data)) {
		return window{}, window{}, 0, false
	}
	render := func(bl Blob) window {
		start, end := max(0, off-aroundBytes), min(len(bl.Data), off+3*aroundBytes)
		lead := ""
		if start > 0 {
			lead = fmt.Sprintf("…(%d bytes) ", start)
		}
		text := lead + quote(bl.Data[start:end])
		if end < bl.Size {
			text += fmt.Sprintf(" …(%d more bytes", bl.Size-end)
			if !bl.Full() {
				text += ", sha256 " + bl.SHA256[:min(12, len(bl.SHA256))]
			}
			text += ")"
		}
		return window{text, utf8.RuneCountInString(lead) + len(quote(bl.Data[start:min(off, end)])) - 1}
	}
	return render(ba), render(bb), off, true
}
