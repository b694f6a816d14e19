package page

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/bench"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/coverage"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
)

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	// cols is the number of columns of the server matrix.
	"cols": func(s []server) int { return len(s) + 1 },
	// sym is a status's symbol.
	"sym": func(status string) string { return statuses[statusIndex(status)].sym },
}).Parse(pageTemplate))

// coverageSection is one coverage report as the page shows it: the total and
// one row per command group.
type coverageSection struct {
	*coverage.Report
	Path   string
	Groups []*coverage.Group
}

// benchSection is one bench report as the page shows it: its chart (inline SVG,
// drawn by bench.Report.WriteSVG; Error when it could not be drawn) and
// its tables of medians.
type benchSection struct {
	Name, Path string
	Trials     int
	SVG        template.HTML
	Error      string
	Tables     []*bench.Table
}

// svgSize is the fixed size the chart is drawn at, replaced by a width
// that follows the page.
var svgSize = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)

// newBenchSection draws in's bench report for the page.
func newBenchSection(in Input) *benchSection {
	b := &benchSection{Name: in.name(), Path: in.Path, Trials: in.Bench.Trials, Tables: in.Bench.Tables}
	for _, t := range b.Tables {
		for i := range t.Claims {
			if t.Claims[i].Article == "" { // a report written before claims named it
				t.Claims[i].Article = bench.ArticleOf(t.ID)
			}
		}
	}
	var svg bytes.Buffer
	if err := in.Bench.WriteSVG(&svg); err != nil {
		b.Error = err.Error()
		return b
	}
	s := svg.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:] // no XML declaration or comment inside HTML
	}
	// The chart is our own drawing (gonum's SVG of numbers and the
	// tables' titles, which it escapes): trusted as HTML.
	b.SVG = template.HTML(svgSize.ReplaceAllString(s, `<svg style="width:100%;height:auto" role="img" aria-label="bench chart"`))
	return b
}

// source is one input as the page lists it.
type source struct {
	Name, Kind, Path string
}

// Page is what the template renders.
type Page struct {
	Title string
	// MadeBy is the command that wrote the page: "respcheck report", or
	// "respcheck run" and "respcheck clients" for their --format html.
	MadeBy  string
	Sources []source
	Servers []server
	Files   []*fileRow
	Totals  []cell
	Tags    []string
	Diffs   []*Diff
	// DiffNotes say what the differences leave out and why: recordings of
	// a build already compared, cases whose commands differ only in a
	// captured value.
	DiffNotes []string
	// Failures are the run reports' failed cases and errors, one entry
	// per run report that has any, shown first.
	Failures []*failures
	// DiffBase names the recording the others are compared with.
	DiffBase string
	Clients  []*clientsTable
	Coverage []*coverageSection
	Bench    []*benchSection
	Explore  []*exploreSection
	Replies  []*repliesSection
	Statuses []count
	Verdicts []count
}

// Build makes the page of the inputs: the server matrix of the run reports
// and golden directories (one column each, in input order), the
// differences between them (each compared with the first; a run report's
// recording is read as a golden directory, see runDir), and one clients
// matrix per clients report and per section of a client matrix file.
func Build(inputs []Input) *Page {
	p := &Page{Title: "respcheck compatibility report", MadeBy: madeBy(inputs)}
	inputs = withCaseChecks(inputs)
	m := newMatrix()
	var rs []recording
	shards := map[string]*shardColumn{}
	for _, in := range inputs {
		p.Sources = append(p.Sources, source{Name: in.name(), Kind: in.kind(), Path: in.Path})
		switch {
		case in.Golden != nil:
			col := m.addServer(server{Name: in.name(), Kind: "golden", Path: in.Path})
			rs = append(rs, recording{dir: in.Golden, col: col, build: buildOf(in.Golden)})
			for _, f := range in.Golden.Files {
				for _, c := range f.Cases {
					m.add(col, f.Path, c.Name, c.Proto, c.Status, c.Reason, in.Tags)
				}
			}
		case in.Run != nil:
			p.addRun(in, m, &rs, shards)
		case in.Clients != nil:
			p.Clients = append(p.Clients, newClientsTable(len(p.Clients)+1, in, m))
		case in.Matrix != nil:
			for _, s := range in.Matrix.Sections {
				rep, _ := s.Expand() // Load checked it
				p.Clients = append(p.Clients, newClientsTable(len(p.Clients)+1, Input{Path: in.Path, Clients: &rep, Tags: in.Tags}, m))
			}
		case in.Coverage != nil:
			p.Coverage = append(p.Coverage, &coverageSection{Report: in.Coverage, Path: in.Path, Groups: coverage.Groups(in.Coverage)})
		case in.Bench != nil:
			p.Bench = append(p.Bench, newBenchSection(in))
		case in.Explore != nil:
			p.Explore = append(p.Explore, newExploreSection(in))
		case in.Replies != nil:
			p.Replies = append(p.Replies, newRepliesSection(in))
		}
	}
	m.finish()
	for _, fl := range p.Failures {
		fl.Server = m.Servers[fl.col].Name // as the column reads once all are added
	}
	p.Diffs, p.DiffBase, p.DiffNotes = diffs(rs, m)
	p.Servers, p.Files, p.Totals, p.Tags = m.Servers, m.Files, m.Totals, m.Tags
	for _, s := range statuses {
		p.Statuses = append(p.Statuses, count{Status: s.name, Sym: s.sym, Label: s.label})
	}
	for v := clients.Skip; v <= clients.Error; v++ {
		p.Verdicts = append(p.Verdicts, count{Status: v.String(), Sym: v.Symbol(), Label: v.String()})
	}
	var names []string
	for _, s := range p.Sources {
		if !slices.Contains(names, s.Name) { // a run and a golden of one server: named once
			names = append(names, s.Name)
		}
	}
	if len(names) > 0 && len(names) <= 4 {
		p.Title += ": " + strings.Join(names, ", ")
	}
	return p
}

// failureOf is the failing step of a run report's result, or nil.
func failureOf(r report.JSONResult) *failure {
	f := r.Failure
	if f == nil {
		return nil
	}
	out := &failure{Pos: f.Pos, Message: f.Message, Want: f.Expected, Offset: -1, Differences: r.Differences}
	if f.ExpectPos != "" {
		out.Pos = f.ExpectPos // the expectation's line; the step is found by its own (f.Pos)
	}
	for _, s := range r.Steps {
		if s.Pos != f.Pos {
			continue
		}
		if len(s.Args) > 0 {
			args := make([][]byte, len(s.Args))
			for i, a := range s.Args {
				args[i] = golden.Normalize(a, r.KeyPrefix)
			}
			out.Command = resp.EscapeCommand(args)
		}
		if s.Reply == nil {
			continue
		}
		if f.Offset >= 0 && f.Offset <= len(s.Reply) {
			out.Offset = f.Offset
			out.Pre, out.Mark, out.Post = marked(s.Reply, f.Offset)
		} else {
			out.Pre, out.Mark, out.Post = resp.Escape(s.Reply), "", ""
		}
	}
	return out
}

// protection is how a run against an existing server kept to its own
// keys, in a few words ("guard and ACL user", "guard alone"), "" for a
// run on a throwaway server or with --allow-destructive.
func protection(r *report.JSONReport) string {
	switch p := r.Protection; {
	case p == nil:
		return ""
	case p.ACLUser != "":
		return "guard and ACL user"
	}
	return "guard alone"
}

// shardColumn is the column of the parts of a run split by --shard: its
// index in the matrix and in the recordings, its failures, and the parts
// it holds.
type shardColumn struct {
	col, rec int
	fl       *failures
	parts    []string
}

// addRun adds a run report's column, its recording (runDir) and its
// failures; a part of a run split with --shard joins the column of the
// other parts of that build and shard count that came before it (each
// case is in one part: the column is the whole run's).
func (p *Page) addRun(in Input, m *matrix, rs *[]recording, shards map[string]*shardColumn) {
	d, captured := runDir(in)
	var sc *shardColumn
	key := ""
	if sh := in.Run.Shard; sh != "" && in.Run.Selection != "" {
		// Parts of one run: one build, one count, one whole selection.
		_, count, _ := strings.Cut(sh, "/")
		key = buildOf(d) + "\x00" + count + "\x00" + in.Run.Selection
		if o := shards[key]; o != nil && !slices.Contains(o.parts, sh) {
			sc = o
		}
	}
	if sc == nil {
		col := m.addServer(server{Name: in.name(), Kind: "run", Path: in.Path, Protection: protection(in.Run)})
		*rs = append(*rs, recording{dir: d, col: col, build: buildOf(d), captured: captured})
		sc = &shardColumn{col: col, rec: len(*rs) - 1, fl: &failures{col: col}}
		if key != "" {
			shards[key] = sc
		}
	} else {
		mergeRecording(&(*rs)[sc.rec], d, captured)
	}
	if in.Run.Shard != "" { // a part says so, alone too
		sc.parts = append(sc.parts, in.Run.Shard)
		m.Servers[sc.col].Parts = cases.Plural(len(sc.parts), "shard", "shards") + " " + strings.Join(sc.parts, ", ")
	}
	had := len(sc.fl.Cases)
	for _, r := range in.Run.Results {
		status := r.Status.String()
		if r.NotRun && r.Status == runner.Skip {
			status = "notrun" // interrupted: neither a skip nor a finding
		}
		cell := m.add(sc.col, r.File, r.Case, r.Proto, status, r.Reason, in.Tags)
		cell.Failure = failureOf(r)
		sc.fl.add(r, cell)
	}
	if had == 0 && len(sc.fl.Cases) > 0 {
		p.Failures = append(p.Failures, sc.fl)
	}
}

// mergeRecording adds the cases of d (another part of the same run) to
// r's recording, and which of their arguments carry captured values.
func mergeRecording(r *recording, d *golden.Dir, captured map[stepRef][]int) {
	for base, f := range d.Files {
		if o := r.dir.Files[base]; o != nil {
			o.Cases = append(o.Cases, f.Cases...)
		} else {
			r.dir.Files[base] = f
		}
	}
	for k, v := range captured {
		r.captured[k] = v
	}
}

// madeBy names the command that wrote a page of inputs: a single input
// made in this process (no path) is a run's or a clients run's own page.
func madeBy(inputs []Input) string {
	if len(inputs) == 1 && inputs[0].Path == "" {
		if inputs[0].Run != nil {
			return "respcheck run"
		}
		return "respcheck clients"
	}
	return "respcheck report"
}

// failures are the cases a run report says failed or erred: the first
// maxFailures of them (More counts the rest), each with its failing step.
type failures struct {
	Server string
	Cases  []failedCase
	More   int
	col    int
}

// failedCase is one failed case of a run report.
type failedCase struct {
	File, Case string
	Proto      int
	Status     string
	Reason     string
	Failure    *failure
}

// maxFailures is the most failed cases a run report lists at the top of
// the page; the matrix has them all.
const maxFailures = 100

// add lists r if it failed or erred.
func (f *failures) add(r report.JSONResult, cell *caseCell) {
	if r.Status != runner.Fail && r.Status != runner.Error {
		return
	}
	if len(f.Cases) == maxFailures {
		f.More++
		return
	}
	f.Cases = append(f.Cases, failedCase{File: strings.TrimSuffix(filepath.Base(r.File), filepath.Ext(r.File)), Case: r.Case,
		Proto: r.Proto, Status: cell.Status, Reason: cell.Reason, Failure: cell.Failure})
}

// Write writes the page of the inputs (Build) as one HTML document.
func Write(w io.Writer, inputs []Input) error {
	return tmpl.Execute(w, Build(inputs))
}

func init() {
	report.Register(report.Format{Name: "html", Ext: ".html",
		Description: "one self-contained HTML page: the matrix, each case's outcome, filters (respcheck report merges several)",
		Run: func(w io.Writer, rep *runner.Report, _ report.HumanOptions) error {
			return Write(w, []Input{fromRun(rep)})
		},
		Clients: func(w io.Writer, rep *clients.Report, _ report.HumanOptions) error {
			return Write(w, []Input{fromClients(rep)})
		}})
}
