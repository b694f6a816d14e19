package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestQuickRedis86 runs a quick bench on Redis 8.6.3 and checks the shape
// of its output, never its timings: every table and row is there, the
// JSON parses, the SVG is well-formed XML with an <svg> root.
func TestQuickRedis86(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), Options{Target: target.Config{Addr: srv.Addr()}, Quick: true, ServerPID: srv.Pid(),
		Throwaway: true})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, true, true)
	if c := rep.Tables[2].Rows[3].Cells[0]; c.Supported || c.Note != notSupported {
		t.Errorf("INCREX on Redis 8.6.3: %+v, want not supported", c)
	}
	// IFDEQ sends the new value and a 16-byte digest; the Lua CAS sends
	// the old value too.
	ow := rep.Tables[0].Rows[3].Cells
	if ow[2].RequestBytes > 1_000_200 || ow[1].RequestBytes < 2_000_000 || ow[0].ReplyBytes < 1_000_000 {
		t.Errorf("1 MB row bytes: %+v", ow)
	}

	checkContention(t, rep)

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Contention: commands per update", "WATCH + backoff", "2 trials per cell", "link: loopback", "Conditional overwrite by value size (ms)", "1 MB", "10 MB", "INCREX", "not supported by this server", "1000", "HMSET"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	checkReport(t, &back, true, true)

	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg.Bytes())
}

// TestOlderServer: on Redis 7.0.15 DIGEST and SET IFDEQ are reported as not
// supported, and the rest is measured.
func TestOlderServer(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	rep, err := Run(context.Background(), Options{Target: target.Config{Addr: srv.Addr()}, Trials: 2, Warmup: -1, Proto: 3,
		Tables: []string{"overwrite", "digest", "incr-expire", "batch", "batch-read"}})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, false, false)
	for _, row := range rep.Tables[0].Rows {
		if row.Cells[2].Supported || !row.Cells[0].Supported || !row.Cells[1].Supported {
			t.Errorf("overwrite %s: %+v", row.Label, row.Cells)
		}
	}
	for _, row := range rep.Tables[1].Rows {
		if row.Cells[0].Supported {
			t.Errorf("DIGEST %s supported on Redis 7.0.15", row.Label)
		}
	}
	if rep.Trials != 2 || rep.Warmup != 0 || rep.Proto != 3 {
		t.Errorf("trials %d warmup %d proto %d", rep.Trials, rep.Warmup, rep.Proto)
	}
}

func TestTargetError(t *testing.T) {
	_, err := Run(context.Background(), Options{Target: target.Config{Addr: "127.0.0.1:1"}})
	var te *target.Error
	if err == nil || !asTarget(err, &te) {
		t.Errorf("got %v, want a *target.Error", err)
	}
}

func asTarget(err error, te **target.Error) bool {
	e, ok := err.(*target.Error)
	*te = e
	return ok
}

// checkContention checks the counts of the contention tables that do not
// depend on timing: on a throwaway server INCR, Lua and WATCH lose no
// update (a WATCH update that gives up is not lost), and the server counts
// exactly 1 command per INCR or Lua update, 2 per GET then SET, and at
// least 5 per WATCH update.
func checkContention(t *testing.T, rep *Report) {
	t.Helper()
	byID := map[string]*Table{}
	for _, tab := range rep.Tables {
		byID[tab.ID] = tab
	}
	lost, cmds := byID["contention-lost"], byID["contention-commands"]
	if lost == nil || cmds == nil {
		t.Fatal("no contention tables")
	}
	for i, row := range lost.Rows {
		for _, col := range []int{1, 2, 3, 4} {
			if c := row.Cells[col]; c.P90 != 0 {
				t.Errorf("%s clients, %s lost %+v", row.Label, lost.Columns[col], c)
			}
		}
		c := cmds.Rows[i].Cells
		if c[0].Median != 2 || c[2].Median != 1 || c[3].Median != 1 || c[1].P10 < 5 || c[4].P10 < 5 {
			t.Errorf("%s clients, commands per update: %+v", row.Label, c)
		}
	}
}

// checkReport checks that every table has every row and column: the
// five tables of the seed articles' single-connection experiments, then
// (when contention) the contention, INCREX and script tables (--quick, on a
// throwaway server).
func checkReport(t *testing.T, rep *Report, ifdeq, contention bool) {
	t.Helper()
	type shape struct {
		id   string
		rows []string
		cols int
	}
	want := []shape{
		{"overwrite", []string{"100 B", "10 KB", "100 KB", "1 MB"}, 3},
		{"digest", []string{"100 B", "10 KB", "100 KB", "1 MB", "10 MB"}, 1},
		{"incr-expire", []string{"INCR + EXPIRE, blocking", "INCR + EXPIRE, pipelined", "Lua INCR + EXPIRE", "INCREX"}, 1},
		{"batch", []string{"1", "2", "10", "100", "1000"}, 4},
		{"batch-read", []string{"1", "2", "10", "100", "1000"}, 4},
	}
	if contention {
		for _, m := range contentionMetrics {
			want = append(want, shape{m.ID, []string{"1", "5", "25", "50", "100"}, 5})
		}
		variants := []string{"INCR + EXPIRE", "MULTI/EXEC", "Lua", "INCREX"}
		loads := []string{"no script", "10ms scripts", "50ms scripts", "200ms scripts"}
		want = append(want, shape{"increx-contention", variants, 2}, shape{"increx-crash", variants, 2},
			shape{"script-pairs", loads, 1}, shape{"script-drop", loads, 1}, shape{"script-stall", []string{"250ms script"}, 2},
			shape{"script-busy", []string{"600ms script"}, 1},
			shape{"script-kill", []string{"read-only script", "script that wrote first"}, 4})
	}
	if len(rep.Tables) != len(want) {
		t.Fatalf("%d tables, want %d", len(rep.Tables), len(want))
	}
	for i, w := range want {
		tab := rep.Tables[i]
		if tab.ID != w.id || len(tab.Columns) != w.cols || len(tab.Rows) != len(w.rows) {
			t.Errorf("table %d: %s with %d columns and %d rows, want %s with %d and %d", i, tab.ID, len(tab.Columns), len(tab.Rows), w.id, w.cols, len(w.rows))
			continue
		}
		trials := rep.Trials
		// Counts that may be 0: a quick window may see no pair finish beside
		// 200 ms scripts on a loaded machine.
		zeroOK := strings.HasPrefix(tab.ID, "contention") || strings.HasPrefix(tab.ID, "increx") ||
			strings.HasPrefix(tab.ID, "script-")
		if tab.Trials > 0 {
			trials = tab.Trials
		}
		for j, row := range tab.Rows {
			if row.Label != w.rows[j] || len(row.Cells) != w.cols {
				t.Errorf("%s row %d: %q with %d cells", tab.ID, j, row.Label, len(row.Cells))
			}
			for k, c := range row.Cells {
				// A drop is negative where a run beat the no-script median.
				if c.Supported && (c.N != trials || (c.Median < 0 && tab.ID != "script-drop") || (c.Median == 0 && !zeroOK) || c.P10 > c.Median || c.P90 < c.Median || c.MAD < 0) {
					t.Errorf("%s %s %s: %+v", tab.ID, row.Label, tab.Columns[k], c)
				}
				if !c.Supported && c.Note != notSupported && c.Note != "no writes" {
					t.Errorf("%s %s %s: unsupported without the note: %+v", tab.ID, row.Label, tab.Columns[k], c)
				}
			}
		}
	}
	if got := rep.Tables[0].Rows[0].Cells[2].Supported; got != ifdeq {
		t.Errorf("SET IFDEQ supported = %v, want %v", got, ifdeq)
	}
}

// checkSVG checks that b is well-formed XML whose root is <svg>, with
// drawing in it.
func checkSVG(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root, elems := "", 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			elems++
		}
	}
	if root != "svg" || elems < 50 {
		t.Errorf("chart root <%s> with %d elements, want <svg> with a drawing", root, elems)
	}
}

// TestChartOfAnEmptyTable: a table whose every cell is unsupported (Redis
// 7.0.15 has neither IFDEQ nor DIGEST), or whose medians are 0, draws an
// empty panel that says so (a table of zeros, such as updates given up,
// says that instead), never a panic of the plotting library ("Values
// must be greater than 0 for a log scale").
func TestChartOfAnEmptyTable(t *testing.T) {
	unsupported := Stat{Note: notSupported}
	zero := Stat{Supported: true, N: 3}
	rep := &Report{Proto: 3, Trials: 3, Tables: []*Table{
		{ID: "digest", Title: "DIGEST", Unit: "µs", RowHeader: "size", Columns: []string{"DIGEST"},
			Rows: []Row{{Label: "1 KB", X: 1000, Cells: []Stat{unsupported}}, {Label: "1 MB", X: 1e6, Cells: []Stat{unsupported}}}},
		{ID: "overwrite", Title: "overwrite", Unit: "ms", RowHeader: "size", Columns: []string{"a", "b"},
			Rows: []Row{{Label: "1 KB", X: 1000, Cells: []Stat{zero, unsupported}}}},
	}}
	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatalf("WriteSVG: %v", err)
	}
	if !strings.Contains(svg.String(), "nothing measurable on this server") {
		t.Error("the empty panel does not say why it is empty")
	}
	if !strings.Contains(svg.String(), "every cell is 0") {
		t.Error("the panel of zeros does not say so")
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil {
		t.Errorf("not well-formed XML: %v", err)
	}
}
