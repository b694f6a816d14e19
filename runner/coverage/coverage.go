// Package coverage measures which of a server's commands a set of case
// files sends: every command and container subcommand the server's
// COMMAND DOCS lists, with the cases and steps that send it and the
// protocols they run in (respcheck coverage).
package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/schema"
	"github.com/respcheck/respcheck/runner/target"
)

// Command is one entry of a server's COMMAND DOCS: a command, or a
// subcommand of a container command ("CLIENT LIST"), with the facts of
// its docs.
type Command struct {
	// Name is the command in upper case, a subcommand after its
	// container and a space: "GET", "CLIENT LIST".
	Name  string `json:"name"`
	Group string `json:"group,omitempty"` // "string", "connection", ...
	Since string `json:"since,omitempty"` // the server version that added it
	// Deprecated is true when the docs' doc_flags say "deprecated".
	Deprecated bool `json:"deprecated,omitempty"`
	// Container is true for a command with subcommands (CLIENT, CONFIG):
	// its subcommands are the entries that count, not it.
	Container bool `json:"container,omitempty"`
}

// Docs reads COMMAND DOCS on c (a RESP2 connection) and returns every
// command and subcommand, sorted by name. A reply that is not the
// documented flat array of name/docs pairs is an error naming what it was.
func Docs(c *target.Conn) ([]Command, error) {
	v, err := c.Do("COMMAND", "DOCS")
	if err != nil {
		return nil, err
	}
	if target.IsError(v) {
		return nil, fmt.Errorf("COMMAND DOCS: %s", v.Str)
	}
	out, err := docsOf(v, "")
	if err != nil {
		return nil, fmt.Errorf("COMMAND DOCS: %w", err)
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// docsOf reads a name/docs pair list (RESP2 array or RESP3 map) into
// commands; parent is the container's name for subcommands ("" at the
// top).
func docsOf(v resp.Value, parent string) ([]Command, error) {
	if v.Kind != resp.Array && v.Kind != resp.Map || len(v.Elems)%2 != 0 {
		return nil, fmt.Errorf("want an array of name/docs pairs, got %s", v.Kind)
	}
	var out []Command
	for i := 0; i < len(v.Elems); i += 2 {
		name := strings.ToUpper(string(v.Elems[i].Str))
		if parent != "" {
			_, sub, _ := strings.Cut(name, "|")
			name = parent + " " + sub
		}
		cmd := Command{Name: name}
		var subs []Command
		fields := v.Elems[i+1]
		for j := 0; j+1 < len(fields.Elems); j += 2 {
			val := fields.Elems[j+1]
			switch string(fields.Elems[j].Str) {
			case "group":
				cmd.Group = string(val.Str)
			case "since":
				cmd.Since = string(val.Str)
			case "doc_flags":
				for _, f := range val.Elems {
					cmd.Deprecated = cmd.Deprecated || string(f.Str) == "deprecated"
				}
			case "subcommands":
				var err error
				if subs, err = docsOf(val, name); err != nil {
					return nil, fmt.Errorf("%s subcommands: %w", name, err)
				}
			}
		}
		cmd.Container = len(subs) > 0
		out = append(append(out, cmd), subs...)
	}
	return out, nil
}

// Row is one command's coverage: how many cases and steps send it, in
// which protocols (2, 3).
type Row struct {
	Command
	Cases  int   `json:"cases"`
	Steps  int   `json:"steps"`
	Protos []int `json:"protocols,omitempty"`
	// Reason says why the bundled suite leaves an entry no case sends out
	// on purpose (reason), or is empty.
	Reason string `json:"reason,omitempty"`
}

// Covered reports whether a case sends the command.
func (r Row) Covered() bool { return r.Steps > 0 }

// Report is the coverage of a server's commands by case files.
type Report struct {
	Server string `json:"server"` // "redis 8.6.3"
	Rows   []Row  `json:"commands"`
	// Unknown are the commands the cases send that the server's docs do
	// not list (another server's commands, a module's), sorted.
	Unknown []string `json:"unknown,omitempty"`
	// Counted and Covered are the entries that count (commands without
	// subcommands, and subcommands) and those a case sends.
	Counted int     `json:"counted"`
	Covered int     `json:"covered"`
	Percent float64 `json:"percent"` // 100 × Covered / Counted
	Cases   int     `json:"cases"`   // cases read
	// Branches are the reply-schema branches the replies took, when
	// replies were counted (a golden directory's); nil for case files,
	// which are read, not run.
	Branches *schema.Coverage `json:"schema_branches,omitempty"`
}

// Measure counts, for each command of docs, the cases of files and their
// steps (send steps, raw steps holding a command array, cleanup steps)
// that send it. A case runs in RESP2 and RESP3 unless its file or it is
// gated to one (requires: {proto: N}); scenarios are not counted.
func Measure(server string, docs []Command, files []*cases.File) *Report {
	t := newTally(server, docs)
	for _, f := range files {
		for _, c := range f.Cases {
			key := f.Path + "\x00" + c.Name
			t.addCase(key)
			protos := caseProtos(c)
			for i, st := range append(slices.Clone(c.Steps), c.Cleanup...) {
				if words, ok := commandWords(st); ok {
					t.add(key, fmt.Sprint(i), words, protos)
				}
			}
		}
	}
	return t.report()
}

// MeasureGolden is Measure for what a golden directory recorded: every
// command each recorded step sent (a step that pipelines several counts
// each), in the protocol of its recording; cases recorded as skipped sent
// nothing. A case recorded in both protocols counts once.
func MeasureGolden(server string, docs []Command, d *golden.Dir) *Report {
	t := newTally(server, docs)
	for _, base := range slices.Sorted(maps.Keys(d.Files)) {
		f := d.Files[base]
		for _, c := range f.Cases {
			key := f.Path + "\x00" + c.Name
			t.addCase(key)
			if c.Status == "skip" {
				continue
			}
			for _, st := range c.Steps {
				if st.Sent == nil {
					continue
				}
				for j, args := range schema.Commands(st.Sent.Data) {
					var words []string
					for _, a := range args[:min(2, len(args))] {
						if a != nil {
							words = append(words, string(a))
						}
					}
					if len(words) > 0 {
						t.add(key, fmt.Sprintf("%d.%d", st.Index, j), words, []int{c.Proto})
					}
				}
			}
		}
	}
	return t.report()
}

// tally accumulates a Report: each case and step counted once, however
// many recordings or protocols it has.
type tally struct {
	rep        *Report
	index      map[string]int
	containers map[string]bool
	unknown    map[string]bool
	seen       map[string]bool // case keys, and row+case and row+case+step keys
}

func newTally(server string, docs []Command) *tally {
	t := &tally{rep: &Report{Server: server}, index: map[string]int{}, containers: map[string]bool{},
		unknown: map[string]bool{}, seen: map[string]bool{}}
	for i, d := range docs {
		t.rep.Rows = append(t.rep.Rows, Row{Command: d})
		t.index[d.Name] = i
		t.containers[d.Name] = d.Container
	}
	return t
}

// addCase counts a case read (Report.Cases) once.
func (t *tally) addCase(key string) {
	if !t.seen[key] {
		t.seen[key] = true
		t.rep.Cases++
	}
}

// add counts one command a step of case key sends: words are its first
// arguments (the command, and the subcommand of a container).
func (t *tally) add(key, step string, words []string, protos []int) {
	name := strings.ToUpper(words[0])
	if t.containers[name] && len(words) > 1 {
		name += " " + strings.ToUpper(words[1])
	}
	i, known := t.index[name]
	if !known {
		t.unknown[name] = true
		return
	}
	r := &t.rep.Rows[i]
	if k := name + "\x00" + key + "\x00" + step; !t.seen[k] {
		t.seen[k] = true
		r.Steps++
	}
	if k := name + "\x00" + key; !t.seen[k] {
		t.seen[k] = true
		r.Cases++
	}
	for _, p := range protos {
		if !slices.Contains(r.Protos, p) {
			r.Protos = append(r.Protos, p)
			slices.Sort(r.Protos)
		}
	}
}

// report totals the rows.
func (t *tally) report() *Report {
	rep := t.rep
	for i, r := range rep.Rows {
		if r.Container {
			continue
		}
		if !r.Covered() {
			rep.Rows[i].Reason = reason(r.Name)
		}
		rep.Counted++
		if r.Covered() {
			rep.Covered++
		}
	}
	if rep.Counted > 0 {
		rep.Percent = 100 * float64(rep.Covered) / float64(rep.Counted)
	}
	rep.Unknown = slices.Sorted(maps.Keys(t.unknown))
	return rep
}

// caseProtos are the protocols a case runs in.
func caseProtos(c *cases.Case) []int {
	for _, g := range c.Gates() {
		if g.Proto != 0 {
			return []int{g.Proto}
		}
	}
	return []int{2, 3}
}

// commandWords returns the first two arguments of what a step sends (the
// command, and the subcommand of a container); ok is false for a step
// that sends nothing or whose command is not literal (a template that
// needs a capture).
func commandWords(st *cases.Step) ([]string, bool) {
	var words []string
	switch {
	case st.Action == cases.ActSend:
		for _, t := range st.Send[:min(2, len(st.Send))] {
			w, ok := t.Literal()
			if !ok {
				break
			}
			words = append(words, w)
		}
	case st.Action == cases.ActRaw:
		words = rawWords(st.Raw)
	}
	return words, len(words) > 0
}

// rawWords returns the first two elements of a raw write that is one
// RESP array of blob strings (the command a client would send), else nil.
func rawWords(raw *cases.Template) []string {
	if raw == nil {
		return nil
	}
	s, ok := raw.Literal()
	if !ok {
		return nil
	}
	_, v, err := resp.Parse([]byte(s))
	if err != nil || v.Kind != resp.Array {
		return nil
	}
	var out []string
	for _, e := range v.Elems[:min(2, len(v.Elems))] {
		out = append(out, string(e.Str))
	}
	return out
}
