package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"unicode/utf8"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// ClientMatrix is the machine-readable client matrix (docs/generated/client-matrix.json,
// written beside docs/generated/client-matrix.md by the client matrix tests'
// -update-client-matrix): one Section per server the corpus ran on. It is
// compact: a verdict symbol per cell, a reason where the cell has one, and
// the bytes and values only for the cells that are findings (mismatch,
// crash, hang, desync, error).
type ClientMatrix struct {
	// Version is 1; the key "client_matrix" names the format.
	Version     int             `json:"client_matrix"`
	GeneratedBy string          `json:"generated_by,omitempty"`
	Sections    []MatrixSection `json:"sections"`
}

// MatrixSection is one clients run: cases × client configurations.
type MatrixSection struct {
	// Name names the section ("redis-8.6.3", "redis-8.6.3 cluster").
	Name   string        `json:"name"`
	Server target.Server `json:"server"`
	// Clients are the configurations, without their contracts.
	Clients []clients.ClientInfo `json:"clients"`
	Cases   []MatrixCase         `json:"cases,omitempty"`
	// Verdicts holds one string per case: per client, in Clients' order,
	// its verdict's symbol (clients.Verdict.Symbol), a space where the
	// case did not run through that client.
	Verdicts []string `json:"verdicts,omitempty"`
	// Reasons are the distinct reasons of the cells, which cite them by
	// index.
	Reasons []string     `json:"reasons,omitempty"`
	Cells   []MatrixCell `json:"cells,omitempty"`
}

// MatrixCase is one row: the case's ID and its name in reports.
type MatrixCase struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MatrixCell is what a cell other than a match holds: its case and client
// (indexes into Cases and Clients), its reason (1 + an index into
// Reasons; 0: none) and, for a finding (clients.Verdict.Finding), its
// first steps that are findings (findingSteps). A cell with neither is not
// listed.
type MatrixCell struct {
	Case   int               `json:"case"`
	Client int               `json:"client"`
	Reason int               `json:"reason,omitempty"`
	Steps  []ClientsJSONStep `json:"steps,omitempty"`
}

// ToMatrixSection is the section name of a clients report (its JSON form,
// ClientsToJSON): rows in the order of their first result, columns in the
// report's client order.
func ToMatrixSection(name string, rep ClientsJSONReport) MatrixSection {
	s := MatrixSection{Name: name, Server: rep.Server}
	col := map[string]int{}
	for i, c := range rep.Clients {
		col[c.Name] = i
		c.Contract = nil // the clients' pages say it
		s.Clients = append(s.Clients, c)
	}
	row, reason := map[string]int{}, map[string]int{}
	var cells [][]byte
	for _, r := range rep.Results {
		i, ok := row[r.ID]
		if !ok {
			i = len(s.Cases)
			row[r.ID] = i
			s.Cases = append(s.Cases, MatrixCase{ID: r.ID, Name: r.Name})
			cells = append(cells, []byte(fmt.Sprintf("%*s", len(rep.Clients), "")))
		}
		j, ok := col[r.Client]
		if !ok {
			continue // not a configuration of the report
		}
		cells[i][j] = r.Verdict.Symbol()[0]
		if r.Verdict == clients.Match {
			continue
		}
		c := MatrixCell{Case: i, Client: j}
		if r.Reason != "" {
			if _, ok := reason[r.Reason]; !ok {
				reason[r.Reason] = len(s.Reasons)
				s.Reasons = append(s.Reasons, r.Reason)
			}
			c.Reason = reason[r.Reason] + 1
		}
		if r.Verdict.Finding() {
			c.Steps = findingSteps(r.Steps)
		}
		if c.Reason != 0 || len(c.Steps) > 0 {
			s.Cells = append(s.Cells, c)
		}
	}
	for _, b := range cells {
		s.Verdicts = append(s.Verdicts, string(b))
	}
	return s
}

// findingSteps are the first maxCellSteps steps of a finding's cell that
// are findings themselves (the last step when none is), without their
// arguments, wire bytes and parsed reply (Reply and CLI say it), their
// bytes and texts cut to heads (headsOf).
func findingSteps(steps []ClientsJSONStep) []ClientsJSONStep {
	var out []ClientsJSONStep
	for i, st := range steps {
		if len(out) < maxCellSteps && st.Verdict.Finding() || len(out) == 0 && i == len(steps)-1 {
			out = append(out, headsOf(st))
		}
	}
	return out
}

// maxHead is the most bytes a step of the matrix file keeps of its reply,
// of each push, of its redis-cli text, of each note and of each string the
// library returned; a cut text ends in "…". A 1 MiB reply would otherwise
// be megabytes per cell.
const maxHead = 256

// headsOf is st without its arguments, wire bytes and parsed reply, its
// other bytes and texts cut to maxHead (the decoded value's strings each,
// its lists, sets and maps to their first 16 entries, as
// clients.Native.String shows them: see cutNative).
func headsOf(st ClientsJSONStep) ClientsJSONStep {
	st.Args, st.Wire, st.Value = nil, nil, nil
	if len(st.Reply) > maxHead {
		st.Reply = st.Reply[:maxHead]
	}
	st.CLI = cut(st.CLI)
	notes := st.Notes
	st.Notes = nil
	for _, n := range notes {
		st.Notes = append(st.Notes, cut(n))
	}
	for _, list := range []*[]Bytes{&st.Pushes, &st.Injected} {
		var kept []Bytes
		for _, b := range *list {
			kept = append(kept, b[:min(len(b), maxHead)])
		}
		*list = kept
	}
	if st.Native != nil {
		n := cutNative(*st.Native)
		st.Native = &n
	}
	return st
}

// cut is s up to maxHead bytes (at a UTF-8 boundary), "…" ending a cut one.
func cut(s string) string {
	if len(s) <= maxHead {
		return s
	}
	i := maxHead
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// cutNative is n with its strings cut and its collections kept to 17
// entries (String shows 16 and an ellipsis), recursively.
func cutNative(n clients.Native) clients.Native {
	if n.Text != nil {
		c := cut(*n.Text)
		n.Text = &c
	}
	if n.B64 != nil && len(*n.B64) > 4*maxHead/3 {
		c := (*n.B64)[:4*maxHead/3] // whole base64 quanta: 256 bytes, more than String quotes
		n.B64 = &c
	}
	if n.Err != nil {
		e := clients.NativeErr{Class: n.Err.Class, Message: cut(n.Err.Message)}
		n.Err = &e
	}
	if n.Attr != nil {
		a := cutNative(*n.Attr)
		n.Attr = &a
	}
	elems, pairs := n.Elems, n.Pairs
	n.Elems, n.Pairs = nil, nil
	for i := range min(len(elems), 17) {
		n.Elems = append(n.Elems, cutNative(elems[i]))
	}
	for i := range min(len(pairs), 17) {
		n.Pairs = append(n.Pairs, [2]clients.Native{cutNative(pairs[i][0]), cutNative(pairs[i][1])})
	}
	return n
}

// maxCellSteps is the most steps a cell of the matrix file keeps: the
// first findings say what the library does; the file stays small.
const maxCellSteps = 2

// Expand is the section as a clients report (ClientsJSONReport): one
// result per cell, with the reason and steps the section kept, and the
// counts of the verdicts. A symbol that is no verdict's is an error.
func (s MatrixSection) Expand() (ClientsJSONReport, error) {
	rep := ClientsJSONReport{Server: s.Server, Clients: s.Clients, Counts: map[string]int{}}
	bySym := map[byte]clients.Verdict{}
	for v := clients.Skip; v <= clients.Error; v++ {
		bySym[v.Symbol()[0]] = v
	}
	extra := map[[2]int]MatrixCell{}
	for _, c := range s.Cells {
		extra[[2]int{c.Case, c.Client}] = c
	}
	for i, line := range s.Verdicts {
		if i >= len(s.Cases) || len(line) > len(s.Clients) {
			return rep, fmt.Errorf("section %s: verdicts row %d does not fit %d cases and %d clients", s.Name, i, len(s.Cases), len(s.Clients))
		}
		for j := range len(line) {
			if line[j] == ' ' {
				continue
			}
			v, ok := bySym[line[j]]
			if !ok {
				return rep, fmt.Errorf("section %s: case %q, client %s: %q is no verdict's symbol", s.Name, s.Cases[i].ID, s.Clients[j].Name, line[j])
			}
			r := ClientsJSONResult{ID: s.Cases[i].ID, Name: s.Cases[i].Name, Client: s.Clients[j].Name, Proto: s.Clients[j].Proto, Verdict: v}
			if c, ok := extra[[2]int{i, j}]; ok {
				if c.Reason > 0 && c.Reason <= len(s.Reasons) {
					r.Reason = s.Reasons[c.Reason-1]
				}
				r.Steps = c.Steps
			}
			rep.Counts[v.String()]++
			if v > rep.Worst {
				rep.Worst = v
			}
			rep.Results = append(rep.Results, r)
		}
	}
	return rep, nil
}

// Put sets the section of that name (replacing one), sections sorted by
// name.
func (m *ClientMatrix) Put(s MatrixSection) {
	for i, o := range m.Sections {
		if o.Name == s.Name {
			m.Sections[i] = s
			return
		}
	}
	m.Sections = append(m.Sections, s)
	sort.Slice(m.Sections, func(i, j int) bool { return m.Sections[i].Name < m.Sections[j].Name })
}

// ReadClientMatrix reads a client matrix file; a missing file is an empty
// matrix, anything that is not one an error.
func ReadClientMatrix(path string) (*ClientMatrix, error) {
	m := &ClientMatrix{Version: 1}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, m); err != nil || m.Version != 1 {
		return nil, fmt.Errorf("%s: not a client matrix (version 1): %v", path, err)
	}
	return m, nil
}

// WriteClientMatrix writes m to path: one JSON document with one line
// per case, per row of verdicts and per cell, so that a regeneration's
// diff shows the rows and cells that changed.
func WriteClientMatrix(path string, m *ClientMatrix) error {
	m.Version = 1
	var b bytes.Buffer
	line := func(prefix string, v any, last bool) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.WriteString(prefix)
		b.Write(data)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	head, _ := json.Marshal(m.GeneratedBy)
	fmt.Fprintf(&b, "{\"client_matrix\": 1, \"generated_by\": %s, \"sections\": [\n", head)
	for i, s := range m.Sections {
		cases, verdicts, cells := s.Cases, s.Verdicts, s.Cells
		s.Cases, s.Verdicts, s.Cells = nil, nil, nil
		top, err := json.Marshal(s)
		if err != nil {
			return err
		}
		b.Write(top[:len(top)-1])
		for _, list := range []struct {
			key string
			n   int
			at  func(int) any
		}{
			{"cases", len(cases), func(i int) any { return cases[i] }},
			{"verdicts", len(verdicts), func(i int) any { return verdicts[i] }},
			{"cells", len(cells), func(i int) any { return cells[i] }},
		} {
			fmt.Fprintf(&b, ",\n %q: [\n", list.key)
			for j := range list.n {
				if err := line("  ", list.at(j), j == list.n-1); err != nil {
					return err
				}
			}
			b.WriteString(" ]")
		}
		b.WriteString("}")
		if i < len(m.Sections)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}
