package page

import (
	"fmt"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report"
)

// clientsTable is one clients report: its cases × client configurations.
type clientsTable struct {
	ID, Server, Path string
	Columns          []string
	Rows             []*clientsRow
	// Counts are the report's verdict counts, by name.
	Counts []count
}

// clientsRow is one case through every configuration.
type clientsRow struct {
	Name, Tags string
	Cells      []*clientsCell
}

// St is the row's data-st attribute: the verdict per column.
func (r *clientsRow) St() string {
	var parts []string
	for _, c := range r.Cells {
		if c != nil {
			parts = append(parts, c.Verdict)
		} else {
			parts = append(parts, "")
		}
	}
	return strings.Join(parts, "|")
}

// clientsCell is one case through one configuration: the verdict and each
// step's bytes and decoding.
type clientsCell struct {
	Verdict, Sym, Reason string
	Steps                []clientsStep
}

// clientsStep is what a library made of one step: the command, the exact
// bytes it received (escaped) and as redis-cli prints them, the value it
// returned, and the verdict with its notes.
type clientsStep struct {
	Pos, Command, Received, CLI, Decoded, Verdict string
	// Rule is the rule that decided Verdict (clients.StepView.Rule).
	Rule  string
	Notes []string
}

// newClientsTable builds the matrix of one clients report; rows in the order
// of their first result, columns in the report's client order (a result's
// client the list lacks gets a column of its own).
func newClientsTable(n int, in Input, m *matrix) *clientsTable {
	rep := in.Clients
	t := &clientsTable{ID: fmt.Sprintf("c-%d", n), Server: serverName(rep.Server), Path: in.Path}
	cols := map[string]int{}
	var protos []int
	col := func(name string, proto int) int {
		key := fmt.Sprintf("%s\x00%d", name, proto)
		if i, ok := cols[key]; ok {
			return i
		}
		cols[key] = len(t.Columns)
		t.Columns, protos = append(t.Columns, name), append(protos, proto)
		return cols[key]
	}
	for _, c := range rep.Clients {
		col(c.Name, c.Proto)
	}
	rows := map[string]*clientsRow{}
	for _, r := range rep.Results {
		row := rows[r.ID]
		if row == nil {
			row = &clientsRow{Name: r.Name, Tags: m.tagsOf(r.ID, in.Tags)}
			rows[r.ID] = row
			t.Rows = append(t.Rows, row)
		}
		i := col(r.Client, r.Proto)
		for len(row.Cells) <= i {
			row.Cells = append(row.Cells, nil)
		}
		row.Cells[i] = newClientsCell(r)
	}
	// A name that runs in both protocols gets the protocol in its label
	// (configuration names usually hold it already: go-redis/resp3).
	names := map[string]int{}
	for _, c := range t.Columns {
		names[c]++
	}
	for i, c := range t.Columns {
		if names[c] > 1 {
			t.Columns[i] = fmt.Sprintf("%s RESP%d", c, protos[i])
		}
	}
	for _, row := range t.Rows {
		for len(row.Cells) < len(t.Columns) {
			row.Cells = append(row.Cells, nil)
		}
	}
	for v := clients.Skip; v <= clients.Error; v++ {
		if k := rep.Counts[v.String()]; k > 0 {
			t.Counts = append(t.Counts, count{Status: v.String(), Sym: v.Symbol(), Label: v.String(), N: k})
		}
	}
	return t
}

func newClientsCell(r report.ClientsJSONResult) *clientsCell {
	v := r.Verdict.String()
	c := &clientsCell{Verdict: v, Sym: r.Verdict.Symbol(), Reason: r.Reason}
	for _, s := range r.Steps {
		cs := clientsStep{Pos: s.Pos, Command: s.Command, CLI: s.CLI, Verdict: s.Verdict.String(), Rule: s.Rule, Notes: s.Notes}
		if s.Reply != nil {
			cs.Received = resp.Escape(s.Reply)
		}
		if s.Native != nil {
			cs.Decoded = s.Native.String()
		}
		c.Steps = append(c.Steps, cs)
	}
	return c
}
