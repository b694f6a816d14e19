package page

import (
	"fmt"
	"sort"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
)

// Diff is one case whose recorded bytes differ between golden directories.
type Diff struct {
	ID, File, Case string
	Proto          int
	Tags           string
	// Servers names the directories that differ from the first.
	Servers string
	Steps   []*DiffStep
	// St is the data-st attribute of the case's row (CaseRow.St).
	St string
}

// DiffStep is one differing step: what differs (golden.Change.What:
// "reply", "push" or "sent") and each distinct recording of it.
type DiffStep struct {
	Index, Line   int
	Command, What string
	Rows          []DiffRow
}

// DiffRow is one recording of a step, shared by the servers it names:
// the bytes escaped in three parts (before the first byte that differs
// from the first row, that byte, after it), their redis-cli text, and the
// case's status and reason on those servers.
type DiffRow struct {
	Servers, Status, Reason string
	Pre, Mark, Post         string
	// Offset is the first differing byte (-1 on the first row).
	Offset int
	Size   int
	CLI    string
	// Cut says the recording keeps only the head of Size bytes.
	Cut bool
}

// diffKey names a step of a case in a protocol.
type diffKey struct {
	file, name string
	proto      int
}

// diffs lists the cases whose bytes differ between the golden directories
// gs (column indexes cols in the matrix), each directory compared with
// the first by golden.Diff; steps in case order. The recordings are
// indexed once, so the cost is linear in the directories' sizes.
func diffs(gs []*golden.Dir, cols []int, m *matrix) []*Diff {
	if len(gs) < 2 {
		return nil
	}
	index := make([]map[diffKey]*golden.Case, len(gs))
	for i, d := range gs {
		index[i] = map[diffKey]*golden.Case{}
		for base, f := range d.Files {
			for _, c := range f.Cases {
				index[i][diffKey{base, c.Name, c.Proto}] = c
			}
		}
	}
	var order []diffKey
	steps := map[diffKey]map[int]golden.Change{}
	differ := map[diffKey][]string{}
	for j := 1; j < len(gs); j++ {
		seen := map[diffKey]bool{}
		for _, ch := range golden.Diff(gs[0], gs[j], golden.DiffOptions{}) {
			if !ch.Changed() {
				continue
			}
			k := diffKey{ch.File, ch.Case, ch.Proto}
			if steps[k] == nil {
				steps[k] = map[int]golden.Change{}
				order = append(order, k)
			}
			if old, ok := steps[k][ch.Step]; !ok || ch.What == "reply" && old.What != "reply" {
				steps[k][ch.Step] = ch
			}
			if !seen[k] {
				seen[k] = true
				differ[k] = append(differ[k], m.Servers[cols[j]].Name)
			}
		}
	}
	var out []*Diff
	for n, k := range order {
		d := &Diff{ID: fmt.Sprintf("d-%d", n+1), File: k.file, Case: k.name, Proto: k.proto,
			Servers: strings.Join(differ[k], ", ")}
		if row := m.caseRow(k.file, k.name, k.proto); row != nil {
			row.Diff, d.Tags, d.St = d.ID, row.Tags, row.St()
			m.byFile[k.file].Differs = true
		}
		var idx []int
		for i := range steps[k] {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			d.Steps = append(d.Steps, diffStep(k, i, steps[k][i], gs, cols, index, m))
		}
		out = append(out, d)
	}
	return out
}

// diffStep renders step i of a case on every directory that recorded it,
// the directories with the same bytes sharing a row.
func diffStep(k diffKey, i int, ch golden.Change, gs []*golden.Dir, cols []int, index []map[diffKey]*golden.Case, m *matrix) *DiffStep {
	what := ch.What
	ds := &DiffStep{Index: i, What: what, Command: ch.Command, Line: ch.Line}
	var base []byte
	rows := map[string]int{}
	for j := range gs {
		c := index[j][k]
		if c == nil {
			continue
		}
		s := c.Step(i)
		if s == nil {
			continue
		}
		b, size, cut := stepBytes(s, what)
		name := m.Servers[cols[j]].Name
		if r, ok := rows[string(b)]; ok && !cut {
			ds.Rows[r].Servers += ", " + name
			continue
		}
		row := DiffRow{Servers: name, Status: c.Status, Reason: c.Reason, Offset: -1, Size: size, Cut: cut}
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
