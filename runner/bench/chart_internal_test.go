package bench

import (
	"testing"

	"gonum.org/v1/plot"
)

// TestChartLayout: a table whose largest median dwarfs its smallest (a
// script-free run's 10,000 pairs a second beside 5 under 200 ms scripts)
// is points on a logarithmic axis, not bars that hide the small ones;
// close medians stay bars; a table of several columns has a legend of
// them (drawn under the panel), one of a single column none; a long
// unit is broken in two lines.
func TestChartLayout(t *testing.T) {
	stat := func(m float64) Stat { return Stat{Supported: true, N: 2, Median: m, P10: m, P90: m} }
	table := func(medians ...float64) *Table {
		tab := &Table{ID: "script-pairs", Title: "pairs", Unit: "pairs per second of another client's GET and SET", RowHeader: "script", Columns: []string{"pairs"}}
		for i, m := range medians {
			tab.Rows = append(tab.Rows, Row{Label: string(rune('a' + i)), Cells: []Stat{stat(m)}})
		}
		return tab
	}
	p, legend, err := tablePlot(table(10000, 70, 15, 5))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok || len(legend) != 0 {
		t.Errorf("dwarfed bars: scale %T, %d legend entries; want a log scale and none", p.Y.Scale, len(legend))
	}
	if p.Y.Label.Text != "pairs per second of another\nclient's GET and SET" {
		t.Errorf("unit %q not broken in two", p.Y.Label.Text)
	}
	p, _, _ = tablePlot(table(100, 70, 15, 10))
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		t.Error("medians within 20x of each other: a log scale")
	}
	two := table(10, 20)
	two.Columns = []string{"x", "y"}
	for i := range two.Rows {
		two.Rows[i].Cells = append(two.Rows[i].Cells, stat(3))
	}
	if _, legend, _ := tablePlot(two); len(legend) != 2 || legend[1].label != "y" {
		t.Errorf("two columns: legend %+v", legend)
	}
}
