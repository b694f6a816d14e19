package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/bench"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/coverage"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

// committedGoldens loads testdata/golden/* of the repository.
func committedGoldens(t testing.TB) []Input {
	t.Helper()
	dirs, err := filepath.Glob("../../../testdata/golden/*")
	if err != nil || len(dirs) < 2 {
		t.Fatalf("goldens: %v %v", dirs, err)
	}
	var ins []Input
	for _, d := range dirs {
		in, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	return ins
}

// TestCommittedGoldens builds the page of the committed goldens: one row
// per case file, one column per directory, the differences with their
// first differing byte marked, and nothing that reaches the network.
func TestCommittedGoldens(t *testing.T) {
	ins := committedGoldens(t)
	p := Build(ins)
	files := map[string]bool{}
	for _, in := range ins {
		for base := range in.Golden.Files {
			files[base] = true
		}
	}
	if len(p.Files) != len(files) || len(p.Servers) != len(ins) {
		t.Fatalf("%d file rows (want %d), %d server columns (want %d)", len(p.Files), len(files), len(p.Servers), len(ins))
	}
	if len(p.Diffs) == 0 {
		t.Fatal("no differences between the committed goldens")
	}
	for _, d := range p.Diffs {
		if len(d.Steps) == 0 {
			t.Fatalf("%s/%s: no steps", d.File, d.Case)
		}
		for _, s := range d.Steps {
			if len(s.Rows) < 2 || s.Rows[0].Offset != -1 || s.Rows[1].Offset < 0 {
				t.Fatalf("%s/%s step %d: rows %+v", d.File, d.Case, s.Index, s.Rows)
			}
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, ins); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script src", "<link", "@import", "url(", `src="http`, `href="http`} {
		if strings.Contains(out, bad) {
			t.Errorf("the page holds %q: it must not load anything", bad)
		}
	}
	if n := strings.Count(out, "<tr class=\"file\""); n != len(files) {
		t.Errorf("%d file rows in the HTML, want %d", n, len(files))
	}
	if !strings.Contains(out, "<mark") || !strings.Contains(out, `id="d-1"`) {
		t.Error("no marked byte or no difference entry in the HTML")
	}
}

// TestMarked checks the split of an escaped reply at its first differing
// byte, a byte with a multi-character escape included.
func TestMarked(t *testing.T) {
	for _, c := range []struct {
		b             string
		off           int
		pre, mk, post string
	}{
		{"+PONG\r\n", 2, `"+P`, `O`, `NG\r\n"`},
		{"+OK\r\n", 3, `"+OK`, `\r`, `\n"`},
		{"+OK", 3, `"+OK`, ``, `"`},
		{"\x00", 0, `"`, `\x00`, `"`},
	} {
		pre, mk, post := marked([]byte(c.b), c.off)
		if pre != c.pre || mk != c.mk || post != c.post {
			t.Errorf("marked(%q, %d) = %q %q %q, want %q %q %q", c.b, c.off, pre, mk, post, c.pre, c.mk, c.post)
		}
	}
}

const runJSON = `{"version":1,"server":{"addr":"127.0.0.1:1","family":"redis","version":"7.0.15","redis_version":"7.0.15","debug":true,"resp3":true},
"started":"2026-12-01T00:00:00Z","duration_ms":1,"summary":{"passed":1,"failed":1,"skipped":0,"errors":0,"known":0},
"results":[{"file":"suite/x.yaml","case":"<img src=x onerror=alert(1)>","pos":"x.yaml:3:5","proto":2,"status":"fail","reason":"a & b </td>","duration_ms":1},
{"file":"suite/x.yaml","case":"plain","pos":"x.yaml:9:5","proto":3,"status":"pass","duration_ms":1}]}`

const clientsJSON = `{"server":{"addr":"127.0.0.1:1","family":"redis","version":"7.0.15","redis_version":"7.0.15","debug":true,"resp3":true},
"clients":[{"name":"go-redis","library":"github.com/redis/go-redis/v9","version":"9.23.0","proto":3}],"worst":"mismatch","counts":{"mismatch":1},
"results":[{"id":"x.yaml/c","name":"x/c","client":"go-redis","proto":3,"verdict":"mismatch","steps":[{"pos":"x.yaml:3:5","conn":"default",
"command":"GET k","reply":"$1\r\n<\r\n","reply_cli":"\"<\"","decoded":{"kind":"string","type":"string","text":"<script>"},"verdict":"mismatch"}]}],
"duration_seconds":1}`

// TestReportsEscaped reads a run and a clients report whose names, reasons
// and bytes hold HTML, and checks the page escapes them.
func TestReportsEscaped(t *testing.T) {
	dir := t.TempDir()
	var ins []Input
	for name, doc := range map[string]string{"run.json": runJSON, "clients.json": clientsJSON} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	var buf bytes.Buffer
	if err := Write(&buf, ins); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<img", "<script>\"", "</td>\"", "a & b"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", "a &amp; b &lt;/td&gt;", "go-redis</th>", "&#34;$1\\r\\n&lt;\\r\\n&#34;", "✗ fail"} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestLoadRejects checks that Load names the path of an input that is
// neither a golden directory nor a JSON report.
func TestLoadRejects(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.txt")
	other := filepath.Join(dir, "other.json")
	os.WriteFile(text, []byte("hello"), 0o644)
	os.WriteFile(other, []byte(`{"a": 1}`), 0o644)
	nullTable := filepath.Join(dir, "bench.json")
	os.WriteFile(nullTable, []byte(`{"tables": [null], "machine": {}}`), 0o644)
	for _, p := range []string{empty, text, other, nullTable} {
		_, err := Load(p)
		nr, ok := err.(*NotReportError)
		if !ok || nr.Path != p || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s) = %v, want a NotReportError naming it", p, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing path: %v", err)
	}
}

// TestFormatRegistered checks that html is a format of run and clients,
// picked by a .html -o name.
func TestFormatRegistered(t *testing.T) {
	for _, k := range []report.Kind{report.RunReports, report.ClientsReports} {
		if f, ok := report.ForFile("r.HTML", k); !ok || f.Name != "html" {
			t.Errorf("kind %d: ForFile(r.HTML) = %v %v", k, f.Name, ok)
		}
	}
	f, _ := report.Lookup("html", report.RunReports)
	var buf bytes.Buffer
	if err := f.Run(&buf, &runner.Report{}, report.HumanOptions{}); err != nil || !strings.HasPrefix(buf.String(), "<!doctype html>") {
		t.Errorf("the html format of an empty run: %v %.80q", err, buf.String())
	}
	f, _ = report.Lookup("html", report.ClientsReports)
	buf.Reset()
	if err := f.Clients(&buf, &clients.Report{}, report.HumanOptions{}); err != nil || !strings.Contains(buf.String(), "Client libraries on") {
		t.Errorf("the html format of an empty clients run: %v %.80q", err, buf.String())
	}
}

// BenchmarkCommittedGoldens measures building and writing the page of the
// committed goldens (respcheck report testdata/golden/*), loading them
// excluded.
func BenchmarkCommittedGoldens(b *testing.B) {
	ins := committedGoldens(b)
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := Write(&buf, ins); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}

// syntheticGoldens makes two golden directories of one case file with n
// cases of two steps each, every other case's second reply differing.
func syntheticGoldens(n int) []Input {
	var ins []Input
	for side, name := range []string{"a", "b"} {
		f := &golden.File{Path: "suite/big.yaml", Server: golden.Server{Family: "redis", Version: name}}
		for i := range n {
			c := &golden.Case{Name: fmt.Sprintf("case %d", i), Proto: 2, Status: "pass"}
			for s := range 2 {
				sent := golden.NewBlob([]byte(fmt.Sprintf("*2\r\n$3\r\nGET\r\n$%d\r\nk%d\r\n", len(strconv.Itoa(i))+1, i)))
				reply := golden.NewBlob([]byte(fmt.Sprintf(":%d\r\n", i)))
				if s == 1 && side == 1 && i%2 == 0 {
					reply = golden.NewBlob([]byte(fmt.Sprintf(":-%d\r\n", i)))
				}
				c.Steps = append(c.Steps, &golden.Step{Index: s, Action: "send", Sent: &sent, Reply: &reply})
			}
			f.Cases = append(f.Cases, c)
		}
		ins = append(ins, Input{Path: name, Golden: &golden.Dir{Path: name, Server: f.Server, Files: map[string]*golden.File{"big": f}}})
	}
	return ins
}

// BenchmarkCases measures the page of n synthetic cases (n = 1k, 10k): two
// golden directories of n cases (syntheticGoldens) and a client matrix of
// n cells (syntheticMatrix). The time per op grows with n, not with n²
// (Build indexes every case and cell once); page-bytes is the page's size.
func BenchmarkCases(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		ins := append(syntheticGoldens(n), syntheticMatrix(n))
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			var size int
			for b.Loop() {
				var buf bytes.Buffer
				if err := Write(&buf, ins); err != nil {
					b.Fatal(err)
				}
				size = buf.Len()
			}
			b.ReportMetric(float64(size), "page-bytes")
		})
	}
}

// syntheticMatrix is a client matrix file of n cells: n/10 cases through
// 10 clients, every seventh cell a mismatch with one step, every fifth a
// skip with a reason.
func syntheticMatrix(n int) Input {
	var rep report.ClientsJSONReport
	for j := range 10 {
		rep.Clients = append(rep.Clients, clients.ClientInfo{Name: fmt.Sprintf("lib%d/resp2", j), Proto: 2})
	}
	for i := range n {
		r := report.ClientsJSONResult{ID: fmt.Sprintf("big.yaml/case %d", i/10), Name: fmt.Sprintf("big/case %d", i/10),
			Client: rep.Clients[i%10].Name, Proto: 2, Verdict: clients.Match}
		switch {
		case i%7 == 0:
			r.Verdict = clients.Mismatch
			r.Steps = []report.ClientsJSONStep{{Pos: "big.yaml:1:1", Command: "GET k", Reply: report.Bytes(fmt.Sprintf(":%d\r\n", i)),
				CLI: fmt.Sprintf("(integer) %d", i), Verdict: clients.Mismatch, Notes: []string{"precision lost"}}}
		case i%5 == 0:
			r.Verdict, r.Reason = clients.Skip, "no pipeline in this case"
		}
		rep.Results = append(rep.Results, r)
	}
	m := &report.ClientMatrix{Version: 1}
	m.Put(report.ToMatrixSection("synthetic", rep))
	return Input{Path: "synthetic.json", Matrix: m}
}

// TestSyntheticDiffs checks the synthetic directories' differences: every
// other case, its second step.
func TestSyntheticDiffs(t *testing.T) {
	p := Build(syntheticGoldens(10))
	if len(p.Diffs) != 5 || len(p.Files) != 1 || len(p.Files[0].Cases) != 10 {
		t.Fatalf("%d diffs, %d files", len(p.Diffs), len(p.Files))
	}
	r := p.Diffs[1].Steps[0].Rows
	if p.Diffs[1].Case != "case 2" || len(r) != 2 || r[1].Offset != 1 || r[1].Mark != "-" || r[0].CLI != "(integer) 2" {
		t.Errorf("diff of case 2: %+v", r)
	}
}

// TestCoverageSection: a coverage report (respcheck coverage --format
// json) given to the page is one section with its total and a row per
// command group, the names not sent listed, escaped.
func TestCoverageSection(t *testing.T) {
	rep := &coverage.Report{Server: "redis 8.6.3", Cases: 2, Rows: []coverage.Row{
		{Command: coverage.Command{Name: "GET", Group: "string"}, Cases: 1, Steps: 2, Protos: []int{2, 3}},
		{Command: coverage.Command{Name: "APPEND", Group: "string"}},
		{Command: coverage.Command{Name: "CLIENT", Group: "connection", Container: true}},
		{Command: coverage.Command{Name: "CLIENT LIST", Group: "connection"}},
	}, Unknown: []string{"<NOSUCH>"}, Counted: 3, Covered: 1, Percent: 100.0 / 3}
	var js bytes.Buffer
	if err := coverage.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "coverage.json")
	if err := os.WriteFile(path, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(path)
	if err != nil || in.Coverage == nil {
		t.Fatalf("Load: %+v %v", in, err)
	}
	var page bytes.Buffer
	if err := Write(&page, []Input{in}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		"Commands the cases send: redis 8.6.3",
		"2 cases send 1 of the 3 commands and subcommands of the server's <code>COMMAND DOCS</code> (33.3%)",
		`<tr><th scope="row">connection</th><td>0</td><td>1</td>`,
		`<tr><th scope="row">string</th><td>1</td><td>2</td>`,
		"<code>APPEND</code>", "<code>CLIENT LIST</code>", "<code>&lt;NOSUCH&gt;</code>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page has no %q", want)
		}
	}
}

// TestBenchSection: a bench report (respcheck bench --format json) given
// to the page is its chart as inline SVG (no XML declaration inside the
// HTML, sized by the page) and its tables of medians, an unsupported cell
// as a dash.
func TestBenchSection(t *testing.T) {
	rep := &bench.Report{Server: target.Server{Family: "valkey", Version: "9.1.2"}, Trials: 5, Tables: []*bench.Table{{
		ID: "t", Title: "Conditional <overwrite> by value size", Unit: "ms", RowHeader: "size", Columns: []string{"GET-then-SET", "SET IFEQ"},
		Rows: []bench.Row{
			{Label: "100 B", X: 100, Cells: []bench.Stat{{Supported: true, N: 5, Median: 0.12, P10: 0.1, P90: 0.2}, {Note: "needs IFEQ"}}},
			{Label: "1 MB", X: 1 << 20, Cells: []bench.Stat{{Supported: true, N: 5, Median: 1.5, P10: 1.2, P90: 1.9}, {Note: "needs IFEQ"}}},
		}}}}
	var js bytes.Buffer
	e := json.NewEncoder(&js)
	if err := e.Encode(rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(path, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(path)
	if err != nil || in.Bench == nil {
		t.Fatalf("Load: %+v %v", in, err)
	}
	var page bytes.Buffer
	if err := Write(&page, []Input{in}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{"<h2>bench on valkey 9.1.2</h2>", `<svg style="width:100%;height:auto" role="img"`,
		"Conditional &lt;overwrite&gt; by value size <small>(ms)</small>", "<td>0.12</td>", `title="needs IFEQ">–</span>`} {
		if !strings.Contains(html, want) {
			t.Errorf("page has no %q", want)
		}
	}
	if strings.Contains(html, "<?xml") {
		t.Error("an XML declaration inside the page")
	}
}

// TestClientsCaseCheck: a clients report that carries the cases' own check
// (its "cases", a run report) puts that check on the page as a run's
// column, failures and all; without it, no server column.
func TestClientsCaseCheck(t *testing.T) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(clientsJSON), &doc); err != nil {
		t.Fatal(err)
	}
	for _, withCheck := range []bool{false, true} {
		if withCheck {
			doc["cases"] = json.RawMessage(runJSON)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "clients.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		pg := Build([]Input{in})
		var buf bytes.Buffer
		if err := Write(&buf, []Input{in}); err != nil {
			t.Fatal(err)
		}
		if got := len(pg.Servers); got != map[bool]int{false: 0, true: 1}[withCheck] {
			t.Errorf("with the check %v: %d server columns", withCheck, got)
		}
		if withCheck != strings.Contains(buf.String(), "a &amp; b &lt;/td&gt;") {
			t.Errorf("with the check %v: the page shows the check's failure: %v", withCheck, !withCheck)
		}
	}
}

// TestDifferencesOnPage: a run report's case that went on after its first
// failure (a replayed capture) shows its failures grouped by command and
// kind under the failure, escaped.
func TestDifferencesOnPage(t *testing.T) {
	doc := `{"version":1,"server":{"addr":"127.0.0.1:1","family":"redis","version":"7.0.15","redis_version":"7.0.15"},
"started":"2026-12-01T00:00:00Z","duration_ms":1,"summary":{"passed":0,"failed":1,"skipped":0,"errors":0,"known":0},
"results":[{"file":"capture.yaml","case":"app","pos":"capture.yaml:3:5","proto":2,"status":"fail","reason":"r","duration_ms":1,
"failure":{"pos":"capture.yaml:9:9","message":"reply differs at byte 0","expected":"+OK\\r\\n","offset":0},
"more_failures":[{"pos":"capture.yaml:12:9","message":"reply differs at byte 0","expected":"+OK\\r\\n","offset":0},{"pos":"capture.yaml:15:9","message":"reply differs at byte 5","expected":"$2\\r\\nv3\\r\\n","offset":5}],
"differences":[{"command":"SET","kind":"simple string → simple error","count":2,"first":"capture.yaml:9:9"},{"command":"GET <x>","kind":"blob string, another value","count":1,"first":"capture.yaml:15:9"}]}]}`
	p := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []Input{in}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"every failing step, by command and kind", "<td>2</td><td><code>SET</code></td><td>simple string → simple error</td><td>capture.yaml:9:9</td>", "<code>GET &lt;x&gt;</code>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
