package bench

import (
	"strings"
	"testing"
)

// TestJudge: a claim holds when the medians of its cells increase in its
// order, does not hold otherwise, and is not measured when a cell is
// missing or unsupported; every article claim names cells its table can
// have (a typo in a row or column would leave it "not measured" for good).
func TestJudge(t *testing.T) {
	cell := func(m float64) Stat { return Stat{Supported: true, N: 1, Median: m} }
	tab := &Table{ID: "overwrite", Columns: []string{"GET-then-SET", "Lua CAS", "SET IFDEQ"},
		Rows: []Row{{Label: "1 MB", Cells: []Stat{cell(0.8), cell(4.9), cell(1.0)}}}}
	c := judge(tab)
	if len(c) != 1 || c[0].Holds != "does not hold" || !strings.Contains(c[0].Measured, "1 MB SET IFDEQ: 1.00; 1 MB GET-then-SET: 0.80") {
		t.Errorf("loopback order: %+v", c)
	}
	tab.Rows[0].Cells[2] = cell(0.5)
	if c = judge(tab); c[0].Holds != "holds" {
		t.Errorf("IFDEQ fastest: %+v", c)
	}
	tab.Rows[0].Cells[2] = Stat{Supported: false, Note: "not supported by this server"}
	if c = judge(tab); c[0].Holds != "not measured" || c[0].Measured != "" {
		t.Errorf("IFDEQ unsupported: %+v", c)
	}
	// The claims' cells exist in the tables' shapes.
	rows := map[string][]string{
		"overwrite": {"1 MB"}, "batch": {"1000"}, "batch-read": {"1000"}, "batch-aof-always": {"1000"},
		"incr-expire":     {"INCR + EXPIRE, pipelined", "INCR + EXPIRE, blocking"},
		"contention-lost": {"100"}, "contention-commands": {"100"}, "contention-time": {"100", "25"}, "contention-p99": {"25"},
		"increx-crash": {"Lua", "INCR + EXPIRE"}, "script-drop": {"10ms scripts", "200ms scripts"},
	}
	for id, cs := range articleClaims {
		for _, c := range cs {
			for _, ref := range c.Cells {
				found := false
				for _, r := range rows[id] {
					found = found || r == ref.Row
				}
				if !found || ref.Column == "" {
					t.Errorf("%s: claim %q names row %q, not one of %q", id, c.Text, ref.Row, rows[id])
				}
			}
		}
	}
}
