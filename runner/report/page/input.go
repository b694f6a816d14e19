package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/bench"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/coverage"
	"github.com/respcheck/respcheck/runner/explore"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/replies"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

// Input is one source of the page: exactly one of Run, Clients, Matrix,
// Golden, Coverage, Bench, Explore and Replies is set.
type Input struct {
	// Path is where the input was read from ("" for a run in this
	// process).
	Path    string
	Run     *report.JSONReport
	Clients *report.ClientsJSONReport
	// Matrix is a client matrix file (docs/generated/client-matrix.json): one
	// clients matrix per section.
	Matrix *report.ClientMatrix
	Golden *golden.Dir
	// Coverage is the JSON of respcheck coverage --format json.
	Coverage *coverage.Report
	// Bench is the JSON of respcheck bench --format json.
	Bench *bench.Report
	// Explore is the JSON of respcheck explore --format json.
	Explore *explore.JSONReport
	// Replies is the JSON of respcheck clients --generate --format json.
	Replies *replies.JSONReport
	// Tags are the tags of cases (file tags first) by case ID ("suite/
	// strings.yaml/name"), where the input knows them; cases of the
	// bundled suite get theirs from cases.Bundled in any case.
	Tags map[string][]string
}

// NotReportError is Load's error for a path that is neither a golden
// directory nor a JSON report of respcheck run or clients.
type NotReportError struct {
	Path string
	Why  string
}

func (e *NotReportError) Error() string {
	return fmt.Sprintf("%s: neither a golden directory nor a JSON report of respcheck run, clients, clients --generate, coverage, bench or explore: %s", e.Path, e.Why)
}

// Load reads path: a golden directory (golden.Load; it must hold *.golden
// files), or a file holding the JSON report of respcheck run --format json
// (it has "summary"), of respcheck clients --format json (it has
// "clients"), a client matrix file (it has "client_matrix", see
// report.ClientMatrix), of respcheck coverage --format json (it has "commands" and
// "counted") or of respcheck bench --format json (it has "tables" and
// "machine"), of respcheck explore --format json (it has "differences"
// and "sequences") or of respcheck clients --generate --format json (it
// has "generated_replies"). Anything else is a *NotReportError naming path; a file that
// cannot be read is the os error.
func Load(path string) (Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Input{}, err
	}
	if st.IsDir() {
		d, err := golden.Load(path)
		if err != nil {
			return Input{}, &NotReportError{Path: path, Why: err.Error()}
		}
		if len(d.Files) == 0 {
			return Input{}, &NotReportError{Path: path, Why: "a directory without *" + golden.Ext + " files"}
		}
		return Input{Path: path, Golden: d}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	in, err := decode(data)
	if err != nil {
		return Input{}, &NotReportError{Path: path, Why: err.Error()}
	}
	in.Path = path
	return in, nil
}

// decode reads a JSON report of either kind, by its fields.
func decode(data []byte) (Input, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Input{}, fmt.Errorf("not JSON: %v", err)
	}
	_, results := probe["results"]
	_, summary := probe["summary"]
	_, cls := probe["clients"]
	_, tables := probe["tables"]
	_, machine := probe["machine"]
	_, commands := probe["commands"]
	_, counted := probe["counted"]
	_, cm := probe["client_matrix"]
	_, differences := probe["differences"]
	_, sequences := probe["sequences"]
	_, generated := probe["generated_replies"]
	dec := json.NewDecoder(bytes.NewReader(data))
	switch {
	case generated:
		var r replies.JSONReport
		if err := dec.Decode(&r); err != nil || r.GeneratedReplies != 1 {
			return Input{}, fmt.Errorf("a generated replies report that does not decode (version 1): %v", err)
		}
		return Input{Replies: &r}, nil
	case results && summary:
		var r report.JSONReport
		if err := dec.Decode(&r); err != nil {
			return Input{}, fmt.Errorf("a run report that does not decode: %v", err)
		}
		return Input{Run: &r}, nil
	case results && cls:
		var r report.ClientsJSONReport
		if err := dec.Decode(&r); err != nil {
			return Input{}, fmt.Errorf("a clients report that does not decode: %v", err)
		}
		return Input{Clients: &r}, nil
	case cm:
		var r report.ClientMatrix
		if err := dec.Decode(&r); err != nil || r.Version != 1 {
			return Input{}, fmt.Errorf("a client matrix that does not decode (version 1): %v", err)
		}
		for _, s := range r.Sections {
			if _, err := s.Expand(); err != nil {
				return Input{}, err
			}
		}
		return Input{Matrix: &r}, nil
	case commands && counted:
		var r coverage.Report
		if err := dec.Decode(&r); err != nil {
			return Input{}, fmt.Errorf("a coverage report that does not decode: %v", err)
		}
		return Input{Coverage: &r}, nil
	case tables && machine:
		var r bench.Report
		if err := dec.Decode(&r); err != nil {
			return Input{}, fmt.Errorf("a bench report that does not decode: %v", err)
		}
		if i := slices.Index(r.Tables, nil); i >= 0 {
			return Input{}, fmt.Errorf("a bench report whose table %d is null", i+1)
		}
		return Input{Bench: &r}, nil
	case differences && sequences:
		var r explore.JSONReport
		if err := dec.Decode(&r); err != nil {
			return Input{}, fmt.Errorf("an explore report that does not decode: %v", err)
		}
		return Input{Explore: &r}, nil
	}
	return Input{}, fmt.Errorf("JSON without \"results\" and \"summary\" (run), \"clients\" (clients), \"client_matrix\", \"commands\" and \"counted\" (coverage), \"tables\" and \"machine\" (bench) \"differences\" and \"sequences\" (explore) or \"generated_replies\" (clients --generate)")
}

// fromRun is the input of a run in this process, with its cases' tags.
func fromRun(rep *runner.Report) Input {
	r := report.ToJSON(rep)
	return Input{Run: &r, Tags: tagsOf(len(rep.Results), func(i int) *cases.Case { return rep.Results[i].Case })}
}

// fromClients is the input of a clients run in this process.
func fromClients(rep *clients.Report) Input {
	r := report.ClientsToJSON(rep)
	return Input{Clients: &r, Tags: tagsOf(len(rep.Results), func(i int) *cases.Case { return rep.Results[i].Case })}
}

// withCaseChecks is inputs with, after each clients report that carries
// the cases' own check (report.ClientsJSONReport.Cases), that check as a
// run report of its own: the page shows its failures as it shows a run's.
func withCaseChecks(inputs []Input) []Input {
	var out []Input
	for _, in := range inputs {
		out = append(out, in)
		if in.Clients != nil && in.Clients.Cases != nil {
			out = append(out, Input{Path: in.Path, Run: in.Clients.Cases, Tags: in.Tags})
		}
	}
	return out
}

// tagsOf is the tags of n results' cases by case ID (Input.Tags).
func tagsOf(n int, caseOf func(i int) *cases.Case) map[string][]string {
	tags := map[string][]string{}
	for i := range n {
		if c := caseOf(i); c != nil {
			tags[c.ID()] = c.AllTags()
		}
	}
	return tags
}

// name is a short label of the input's source for the page.
func (in Input) name() string {
	switch {
	case in.Golden != nil:
		if in.Golden.Server.Family != "" {
			return in.Golden.Server.Name()
		}
		return filepath.Base(in.Path)
	case in.Run != nil:
		return serverName(in.Run.Server)
	case in.Coverage != nil:
		return "coverage of " + in.Coverage.Server
	case in.Bench != nil:
		return "bench on " + in.Bench.Server.Family + " " + in.Bench.Server.Version
	case in.Matrix != nil:
		return "client matrix"
	case in.Explore != nil:
		return "explore: " + in.Explore.A + " against " + in.Explore.B
	case in.Replies != nil:
		return "generated replies on " + serverName(in.Replies.Server)
	default:
		return "clients on " + serverName(in.Clients.Server)
	}
}

func serverName(s target.Server) string {
	n := s.Family + " " + s.Version
	if s.Mode == "cluster" {
		n += " cluster"
	}
	return n
}

// kind is "golden", "run", "coverage", "bench", "client matrix" or
// "clients".
func (in Input) kind() string {
	switch {
	case in.Golden != nil:
		return "golden"
	case in.Run != nil:
		return "run"
	case in.Coverage != nil:
		return "coverage"
	case in.Bench != nil:
		return "bench"
	case in.Matrix != nil:
		return "client matrix"
	case in.Explore != nil:
		return "explore"
	case in.Replies != nil:
		return "generated replies"
	}
	return "clients"
}
