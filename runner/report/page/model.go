package page

import (
	"fmt"
	"github.com/respcheck/respcheck/runner"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/respcheck/respcheck/cases"
)

// statuses are the case statuses in the order cells list them, with the
// symbol that stands for each beside its colour.
var statuses = []struct{ name, sym, label string }{
	{"pass", "✓", "passed"},
	{"known", "≈", "known difference"},
	{"skip", "○", "skipped"},
	{"notrun", "–", "not run"},
	{"fail", "✗", "failed"},
	{"error", "!", "error"},
}

func statusIndex(s string) int {
	for i, st := range statuses {
		if st.name == s {
			return i
		}
	}
	return len(statuses) - 1 // anything unknown counts as an error
}

// count is one status's count in a cell.
type count struct {
	Status, Sym, Label string
	N                  int
}

// cell is one server's counts for one case file (or all, for totals).
type cell struct {
	counts [6]int
	// Worst is the most severe status counted ("" for an empty cell).
	Worst string
}

func (c *cell) add(status string) {
	i := statusIndex(status)
	c.counts[i]++
	if c.Worst == "" || i > statusIndex(c.Worst) {
		c.Worst = statuses[i].name
	}
}

// Counts lists the statuses counted at least once.
func (c cell) Counts() []count {
	var out []count
	for i, n := range c.counts {
		if n > 0 {
			out = append(out, count{statuses[i].name, statuses[i].sym, statuses[i].label, n})
		}
	}
	return out
}

// st is the data-st attribute of a row: per server, the statuses it has,
// comma-separated, servers separated by "|".
func st(cells []cell) string {
	var parts []string
	for _, c := range cells {
		var names []string
		for _, n := range c.Counts() {
			names = append(names, n.Status)
		}
		parts = append(parts, strings.Join(names, ","))
	}
	return strings.Join(parts, "|")
}

// server is one column of the server matrix: a run report or a golden
// directory.
type server struct {
	Name, Kind, Path string
	// Parts names the parts of a run split with --shard the column holds
	// ("shards 1/3, 2/3, 3/3"), "" for a whole run.
	Parts string
	// Protection says, for a run against an existing server, how it kept
	// to its own keys ("guard and ACL user", "guard alone"; see
	// runner.Protection), "" for other columns.
	Protection string
	base       string // Name as the input gave it
}

// Sub is the line under the column's name: its kind, unless the name
// already says it (two columns of one server, see addServer), and the
// parts of a sharded run.
func (s server) Sub() string {
	var out []string
	if !strings.HasSuffix(s.Name, " "+s.Kind) && !strings.Contains(s.Name, " "+s.Kind+" (") {
		out = append(out, s.Kind)
	}
	if s.Parts != "" {
		out = append(out, s.Parts)
	}
	if s.Protection != "" {
		out = append(out, "shared server: "+s.Protection)
	}
	return strings.Join(out, ", ")
}

// fileRow is one case file: its cells per server, and its cases.
type fileRow struct {
	Name, ID, Tags string
	Cells          []cell
	Cases          []*caseRow
	// Differs reports whether a case of the file has a Diff.
	Differs bool
	byKey   map[string]*caseRow
}

// St is the row's data-st attribute (see st).
func (f *fileRow) St() string { return st(f.Cells) }

// caseRow is one case in one protocol across the servers.
type caseRow struct {
	Name  string
	Proto int
	Tags  string
	Cells []caseCell
	// Diff is the id of the case's entry among the differences, or "".
	Diff string
}

// St is the row's data-st attribute.
func (c *caseRow) St() string {
	var parts []string
	for _, cc := range c.Cells {
		parts = append(parts, cc.Status)
	}
	return strings.Join(parts, "|")
}

// caseCell is one server's outcome of a case; Status "" where the server
// has no result for it.
type caseCell struct {
	Status, Sym, Reason string
	// Failure is a run report's failing step, if any.
	Failure *failure
}

// failure is the failing step of a case in a run report: what differs,
// the expectation, and the reply escaped in three parts around its first
// differing byte (all in Pre when the offset is unknown).
type failure struct {
	Pos, Message, Want string
	// Command is the failing step's command as sent (report.Command), ""
	// for a step that sends none.
	Command         string
	Pre, Mark, Post string
	Offset          int
	// Differences are the case's failures grouped by command and kind,
	// when it went on after its first (continue_on_failure: a replayed
	// capture).
	Differences []runner.Difference
}

// matrix builds the server matrix from the inputs that have case results.
type matrix struct {
	Servers []server
	Files   []*fileRow
	Totals  []cell
	Tags    []string
	byFile  map[string]*fileRow
	tags    map[string]bool
	bundled map[string]*cases.Case
}

func newMatrix() *matrix {
	return &matrix{byFile: map[string]*fileRow{}, tags: map[string]bool{}, bundled: bundledCases()}
}

// bundledCases indexes the bundled suite's cases by ID, loaded once.
var bundledCases = sync.OnceValue(func() map[string]*cases.Case {
	byID := map[string]*cases.Case{}
	if files, err := cases.Bundled(); err == nil {
		for _, f := range files {
			for _, c := range f.Cases {
				byID[c.ID()] = c
			}
		}
	}
	return byID
})

// addServer adds a column and returns its index. Two columns of one
// server are told apart by their kinds ("redis 7.0.15 run", "redis
// 7.0.15 golden"), two of one server and kind by their files' names too
// ("redis 7.0.15 run (a.json)"), the columns added before renamed alike.
func (m *matrix) addServer(s server) int {
	s.base = s.Name
	withKind := func(o server) string { return o.base + " " + o.Kind }
	withFile := func(o server) string { return withKind(o) + " (" + filepath.Base(o.Path) + ")" }
	for i, o := range m.Servers {
		if o.base != s.base {
			continue
		}
		switch {
		case o.Kind == s.Kind:
			m.Servers[i].Name, s.Name = withFile(o), withFile(s)
		case o.Name == o.base:
			m.Servers[i].Name = withKind(o)
		}
		if s.Name == s.base {
			s.Name = withKind(s)
		}
	}
	m.Servers = append(m.Servers, s)
	return len(m.Servers) - 1
}

// tagsOf returns a case's tags as a space-separated list (with a space at
// each end, for the filter's substring test), from the input's own map,
// else the bundled suite's.
func (m *matrix) tagsOf(id string, own map[string][]string) string {
	tags, ok := own[id]
	if !ok {
		if c := m.bundled[id]; c != nil {
			tags = c.AllTags()
		}
	}
	for _, t := range tags {
		m.tags[t] = true
	}
	if len(tags) == 0 {
		return ""
	}
	return " " + strings.Join(tags, " ") + " "
}

// add records server col's result of a case of the case file at path,
// and returns its cell.
func (m *matrix) add(col int, path, name string, proto int, status, reason string, own map[string][]string) *caseCell {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	f := m.byFile[base]
	if f == nil {
		f = &fileRow{Name: base, ID: "f-" + anchor(base), byKey: map[string]*caseRow{}}
		m.byFile[base] = f
	}
	key := fmt.Sprintf("%s\x00%d", name, proto)
	c := f.byKey[key]
	if c == nil {
		c = &caseRow{Name: name, Proto: proto, Tags: m.tagsOf(path+"/"+name, own)}
		f.byKey[key] = c
		f.Cases = append(f.Cases, c)
		if !strings.Contains(f.Tags, c.Tags) {
			f.Tags += c.Tags
		}
	}
	for len(c.Cells) <= col {
		c.Cells = append(c.Cells, caseCell{})
	}
	i := statusIndex(status)
	c.Cells[col] = caseCell{Status: statuses[i].name, Sym: statuses[i].sym, Reason: reason}
	return &c.Cells[col]
}

// finish sorts the files, pads every row to the servers and counts.
func (m *matrix) finish() {
	n := len(m.Servers)
	m.Totals = make([]cell, n)
	for _, f := range m.byFile {
		m.Files = append(m.Files, f)
		f.Cells = make([]cell, n)
		for _, c := range f.Cases {
			for len(c.Cells) < n {
				c.Cells = append(c.Cells, caseCell{})
			}
			for i, cc := range c.Cells {
				if cc.Status != "" {
					f.Cells[i].add(cc.Status)
					m.Totals[i].add(cc.Status)
				}
			}
		}
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Name < m.Files[j].Name })
	for t := range m.tags {
		m.Tags = append(m.Tags, t)
	}
	sort.Strings(m.Tags)
}

// caseRow returns the row of a case, or nil.
func (m *matrix) caseRow(file, name string, proto int) *caseRow {
	if f := m.byFile[file]; f != nil {
		return f.byKey[fmt.Sprintf("%s\x00%d", name, proto)]
	}
	return nil
}

// anchor makes s usable in an id: letters, digits, '-' and '_' kept,
// anything else '_'.
func anchor(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
