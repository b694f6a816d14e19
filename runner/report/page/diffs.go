package page

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
)

// Diff is one case whose recorded bytes differ between golden directories.
type Diff struct {
	ID, File, Case string
	// Proto is the first protocol the case differs in; Protos all of
	// them, when the differences are the same bytes in each (RESP2 and
	// RESP3 rows are merged).
	Proto  int
	Protos []int
	Tags   string
	// Servers names the directories that differ from the first.
	Servers string
	Steps   []*diffStep
	// St is the data-st attribute of the case's row (caseRow.St).
	St string
}

// diffStep is one differing step: what differs (golden.Change.What:
// "reply", "push" or "sent") and each distinct recording of it.
type diffStep struct {
	Index, Line   int
	Command, What string
	Rows          []diffRow
}

// diffRow is one recording of a step, shared by the servers it names:
// the bytes escaped in three parts (before the first byte that differs
// from the first row, that byte, after it), their redis-cli text, and the
// case's status and reason on those servers.
type diffRow struct {
	Servers, Status, Reason string
	Pre, Mark, Post         string
	// Offset is the first differing byte (-1 on the first row).
	Offset int
	Size   int
	CLI    string
	// Cut says the recording keeps only the head of Size bytes.
	Cut bool
}

// diffKey names a case in a protocol.
type diffKey struct {
	file, name string
	proto      int
}

// stepRef names one step of a case in a protocol.
type stepRef struct {
	diffKey
	step int
}

// recording is one golden directory or run report (read as one, runDir)
// of the page: its matrix column, its build ("redis 7.0.15", "redis
// 8.6.3 cluster"), and which arguments of its steps' commands carry a
// value captured from an earlier reply (report.JSONStep.Captured: nil for
// a golden directory, which does not record them).
type recording struct {
	dir      *golden.Dir
	col      int
	build    string
	captured map[stepRef][]int
}

// buildOf names the build a recording was made on: family and version,
// and "cluster" for a cluster.
func buildOf(d *golden.Dir) string {
	b := d.Server.Family + " " + d.Server.Version
	if d.Server.IsCluster() {
		b += " cluster"
	}
	return b
}

// compared picks the recordings diffs compares: the first of each build,
// in input order (a build is never compared with itself: a recording
// and a run of the same build differ by the run, not the server, which
// respcheck run --golden and respcheck diff show). It returns them and a
// sentence per recording left out.
func compared(rs []recording, m *matrix) ([]recording, []string) {
	var out []recording
	var notes []string
	first := map[string]int{}
	for _, r := range rs {
		if j, ok := first[r.build]; ok {
			notes = append(notes, fmt.Sprintf("%s is the same build as %s (%s): not compared with it (respcheck run --golden or respcheck diff compares a server with its own recording)",
				m.Servers[r.col].Name, m.Servers[out[j].col].Name, r.build))
			continue
		}
		first[r.build] = len(out)
		out = append(out, r)
	}
	return out, notes
}

// diffs lists the cases whose bytes differ between the recordings rs of
// different builds (compared), each compared with the first by
// golden.Diff; steps in case order. A step whose only difference is a
// captured value in the command it sends (both sides' masked commands
// equal) is left out. The recordings are indexed once, so the cost is
// linear in their sizes. It also returns the name of the first
// recording ("" when fewer than two are compared) and what it left out,
// in sentences.
func diffs(all []recording, m *matrix) ([]*Diff, string, []string) {
	rs, notes := compared(all, m)
	if len(rs) < 2 {
		return nil, "", notes
	}
	index := make([]map[diffKey]*golden.Case, len(rs))
	for i, r := range rs {
		index[i] = map[diffKey]*golden.Case{}
		for base, f := range r.dir.Files {
			for _, c := range f.Cases {
				index[i][diffKey{base, c.Name, c.Proto}] = c
			}
		}
	}
	var order []diffKey
	steps := map[diffKey]map[int]golden.Change{}
	differ := map[diffKey][]string{}
	capturedOnly := map[diffKey]bool{}
	for j := 1; j < len(rs); j++ {
		seen := map[diffKey]bool{}
		for _, ch := range golden.Diff(rs[0].dir, rs[j].dir, golden.DiffOptions{}) {
			if !ch.Changed() {
				continue
			}
			k := diffKey{ch.File, ch.Case, ch.Proto}
			if ch.What == "sent" && sameMasked(rs[0], rs[j], index[0][k], index[j][k], stepRef{k, ch.Step}) {
				capturedOnly[k] = true
				continue
			}
			if steps[k] == nil {
				steps[k] = map[int]golden.Change{}
				order = append(order, k)
			}
			if old, ok := steps[k][ch.Step]; !ok || ch.What == "reply" && old.What != "reply" {
				steps[k][ch.Step] = ch
			}
			if !seen[k] {
				seen[k] = true
				differ[k] = append(differ[k], m.Servers[rs[j].col].Name)
			}
		}
	}
	if n := countNotIn(capturedOnly, steps); n > 0 {
		notes = append(notes, fmt.Sprintf("%d %s whose commands differ only in what a run chooses (a value captured from an earlier reply such as a client ID, the case's ID in a name) and whose replies do not differ: not listed", n, cases.Plural(n, "case", "cases")))
	}
	var out []*Diff
	same := map[string]*Diff{} // by file, case and rendering: RESP2 and RESP3 alike
	for _, k := range order {
		d := &Diff{ID: fmt.Sprintf("d-%d", len(out)+1), File: k.file, Case: k.name, Proto: k.proto,
			Protos: []int{k.proto}, Servers: strings.Join(differ[k], ", ")}
		var idx []int
		for i := range steps[k] {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			d.Steps = append(d.Steps, newDiffStep(k, i, steps[k][i], rs, index, m))
		}
		sig := d.signature()
		if o := same[sig]; o != nil && sig != "" {
			o.Protos = append(o.Protos, k.proto)
			d = o
		} else {
			if sig != "" {
				same[sig] = d
			}
			out = append(out, d)
		}
		if row := m.caseRow(k.file, k.name, k.proto); row != nil {
			row.Diff, d.Tags, d.St = d.ID, row.Tags, row.St()
			m.byFile[k.file].Differs = true
		}
	}
	return out, m.Servers[rs[0].col].Name, notes
}

// signature is what makes two protocols' differences of a case one entry
// on the page: the case, the servers, and every row of every step; ""
// (never merged) when a row keeps only the head of its bytes, whose tails
// may differ.
func (d *Diff) signature() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q\n", d.File, d.Case, d.Servers)
	for _, s := range d.Steps {
		fmt.Fprintf(&b, "%d %q %q\n", s.Index, s.What, s.Command)
		for _, r := range s.Rows {
			if r.Cut {
				return ""
			}
			fmt.Fprintf(&b, "%q %q %q %q %q %q %q %d\n", r.Servers, r.Status, r.Reason, r.Pre, r.Mark, r.Post, r.CLI, r.Size)
		}
	}
	return b.String()
}

// sameMasked reports whether step ref sends the same command in a and b
// (whose recordings of ref's case are ca and cb) once what a run chooses
// itself is masked: the arguments either recording says carry a captured
// value (recording.captured: a run's client ID, masked on a golden
// directory's side too, which does not say) and the case's ID ({id}, the
// 8 hex digits of its key prefix, which a recording names after the case
// and a run draws at random).
func sameMasked(a, b recording, ca, cb *golden.Case, ref stepRef) bool {
	if ca == nil || cb == nil {
		return false
	}
	idx := append(append([]int(nil), a.captured[ref]...), b.captured[ref]...)
	ma, mb := maskedSent(ca, ref.step, idx), maskedSent(cb, ref.step, idx)
	return ma != nil && mb != nil && bytes.Equal(ma, mb)
}

// maskedSent is the command step i of c sent with the arguments at idx
// replaced by capturedMask and the case's ID masked (maskID), or nil when
// the step kept only the head of its bytes, or when idx is not empty and
// they are not one multibulk command with those arguments (an inline or
// raw write is compared as sent).
func maskedSent(c *golden.Case, i int, idx []int) []byte {
	s := c.Step(i)
	if s == nil || s.Sent == nil || !s.Sent.Full() {
		return nil
	}
	data := s.Sent.Data
	if len(idx) > 0 {
		if len(data) == 0 || data[0] != '*' {
			return nil
		}
		args, n, err := resp.ReadCommand(data)
		if err != nil || n != len(data) {
			return nil
		}
		args = slices.Clone(args)
		for _, j := range idx {
			if j < 0 || j >= len(args) {
				return nil
			}
			args[j] = []byte(capturedMask)
		}
		data = resp.AppendCommand(nil, args...)
	}
	return maskID(data, c.Prefix)
}

// maskID replaces the case ID of key prefix prefix ("rc:{3d2aa72f}:") in
// b by underscores; b without a prefix of that form is returned as is.
func maskID(b []byte, prefix string) []byte {
	id, ok := strings.CutPrefix(prefix, "rc:{")
	if id, ok = strings.CutSuffix(id, "}:"); !ok || len(id) != 8 {
		return b
	}
	return bytes.ReplaceAll(b, []byte(id), []byte("________"))
}

// countNotIn counts the keys of set that are not keys of m.
func countNotIn[V any](set map[diffKey]bool, m map[diffKey]V) int {
	n := 0
	for k := range set {
		if _, ok := m[k]; !ok {
			n++
		}
	}
	return n
}

// newDiffStep renders step i of a case on every directory that recorded it,
// the directories with the same bytes sharing a row.
func newDiffStep(k diffKey, i int, ch golden.Change, rs []recording, index []map[diffKey]*golden.Case, m *matrix) *diffStep {
	what := ch.What
	ds := &diffStep{Index: i, What: what, Command: ch.Command, Line: ch.Line}
	var base []byte
	rows := map[string]int{}
	for j, r := range rs {
		c := index[j][k]
		if c == nil {
			continue
		}
		s := c.Step(i)
		if s == nil {
			continue
		}
		b, size, cut := stepBytes(s, what)
		name := m.Servers[r.col].Name
		if r, ok := rows[string(b)]; ok && !cut {
			ds.Rows[r].Servers += ", " + name
			continue
		}
		row := diffRow{Servers: name, Status: c.Status, Reason: c.Reason, Offset: -1, Size: size, Cut: cut}
		if len(ds.Rows) == 0 {
			base = b
			row.Pre = resp.Escape(b)
		} else {
			row.Offset = resp.FirstDiff(base, b)
			row.Pre, row.Mark, row.Post = marked(b, row.Offset)
		}
		if what == "reply" && !cut {
			if n, v, err := resp.Parse(b); err == nil && n == len(b) {
				row.CLI = v.CLI()
			}
		}
		rows[string(b)] = len(ds.Rows)
		ds.Rows = append(ds.Rows, row)
	}
	return ds
}

// marked splits resp.Escape(b) at byte off: the escaped bytes before it
// (with the opening quote), the escaped byte itself ("" when b ends
// there), and the rest (with the closing quote).
func marked(b []byte, off int) (pre, mark, post string) {
	if off >= len(b) {
		e := resp.Escape(b)
		return e[:len(e)-1], "", `"`
	}
	pre = resp.Escape(b[:off])
	mark = resp.Escape(b[off : off+1])
	post = resp.Escape(b[off+1:])
	return pre[:len(pre)-1], mark[1 : len(mark)-1], post[1:]
}

// stepBytes returns the bytes of a step that what names, their full size,
// and whether the recording holds only their head.
func stepBytes(s *golden.Step, what string) ([]byte, int, bool) {
	var bl *golden.Blob
	switch what {
	case "sent":
		bl = s.Sent
	case "push":
		var all []byte
		for _, p := range s.Pushes {
			all = append(all, p.Data...)
		}
		return all, len(all), false
	default:
		bl = s.Reply
	}
	if bl == nil {
		return nil, 0, false
	}
	return bl.Data, bl.Size, !bl.Full()
}
