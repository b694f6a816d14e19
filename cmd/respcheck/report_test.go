package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/respcheck/respcheck/runner/report/page"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestReportUsageErrors checks report's exit 2 for inputs that are not
// reports, each named in the message.
func TestReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notes := writeFile(t, "notes.txt", "hello\n")
	other := writeFile(t, "other.json", `{"a": 1}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "requires at least 1 arg"},
		{[]string{"report", notes}, notes + ": neither a golden directory nor a JSON report"},
		{[]string{"report", other}, other + ": neither a golden directory nor a JSON report"},
		{[]string{"report", dir}, dir + ": neither a golden directory nor a JSON report"},
		{[]string{"report", filepath.Join(dir, "missing")}, "missing: no such file"},
	} {
		code, out, errs := respcheck(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestReportCommittedGoldens writes the page of the committed goldens.
func TestReportCommittedGoldens(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/golden/*")
	out := filepath.Join(t.TempDir(), "r.html")
	if code, stdout, errs := respcheck(t, append([]string{"report", "-o", out}, dirs...)...); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(data, []byte("<!doctype html>")) || !bytes.Contains(data, []byte(`id="d-1"`)) {
		t.Fatalf("%v: %.200s", err, data)
	}
}

// TestRunFormatHTML writes one run's page with run -o FILE.html: its
// counts, and a failing case's expectation and reply (mixedCases).
func TestRunFormatHTML(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "mixed.yaml", mixedCases)
	out := filepath.Join(t.TempDir(), "run.html")
	code, stdout, errs := respcheck(t, "run", "--addr", srv.Addr(), "-o", out, f)
	if code != exitFindings || !strings.Contains(stdout, "2 passed, 2 failed, 2 skipped") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"<!doctype html>", `<tr class="file" id="f-mixed"`, `title="passed">✓ 2</span>`, `title="failed">✗ 2</span>`, `title="skipped">○ 2</span>`,
		`<code class="esc">&#34;$3\r\nabc\r\n&#34;</code>`, `<code class="esc">&#34;$3\r\na<mark title="first differing byte, offset 5">\x00</mark>b\r\n&#34;</code>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// reportArtifacts is where TestReportInBrowser keeps its screenshot and
// page: $RESPCHECK_ARTIFACTS, else testdata/out of the repository
// (gitignored).
func reportArtifacts(t *testing.T) string {
	dir := os.Getenv("RESPCHECK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// realReport records two builds (redis 7.0.15 and valkey 9.1.2) for three
// suite files, runs the clients cases of nil-kinds through go-redis, and
// writes the page of the two golden directories and the clients report
// (respcheck report). It returns the page's path and its number of case
// files.
func realReport(t *testing.T) (string, int) {
	dir := t.TempDir()
	files := []string{"errors", "strings", "resp3-types"}
	sel := "^(" + strings.Join(files, "|") + ")/"
	var args []string
	for _, build := range []string{"redis-7.0.15", "valkey-9.1.2"} {
		srv := servers.ForTest(t, build)
		out := filepath.Join(dir, build)
		if code, stdout, errs := respcheck(t, "record", "--addr", srv.Addr(), "--allow-destructive", "--passes", "1", "--out", out, "--run", sel); code != exitOK {
			t.Fatalf("record %s: exit %d\n%s%s", build, code, stdout, errs)
		}
		args = append(args, out)
		if build == "redis-7.0.15" {
			cl := filepath.Join(dir, "clients.json")
			code, stdout, errs := respcheck(t, "clients", "--addr", srv.Addr(), "--allow-destructive", "--clients", "go-redis",
				"-o", cl, "../../testdata/clients/nil-kinds.yaml")
			if code != exitOK && code != exitFindings {
				t.Fatalf("clients: exit %d\n%s%s", code, stdout, errs)
			}
			args = append(args, cl)
		}
	}
	// An explore report: Redis 8.6.3 against miniredis finds
	// differences and faults in a few hundred sequences.
	code, stdout, errs := respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "miniredis", "--sequences", "200", "--seed", "5", "--format", "json")
	if code != exitFindings {
		t.Fatalf("explore: exit %d\n%s", code, errs)
	}
	ex := filepath.Join(dir, "explore.json")
	if err := os.WriteFile(ex, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, ex)
	page := filepath.Join(reportArtifacts(t), "report.html")
	if code, stdout, errs := respcheck(t, append([]string{"report", "-o", page}, args...)...); code != exitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, errs)
	}
	return page, len(files)
}

// TestReportInBrowser opens the page of real runs in headless Chromium
// (Debian's chromium, installed by scripts/setup): it loads without
// console errors, the matrix has a row per case file and a column per
// server (the two recordings and the clients report's check), a click on a differing case shows its byte strings, a client
// cell opens the bytes received, the filters change what is shown, and a
// screenshot (kept as report.png beside the page, see reportArtifacts) is
// not blank.
func TestReportInBrowser(t *testing.T) {
	bctx, problems := browser(t)
	path, nfiles := realReport(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("#matrix"))); err != nil {
		t.Fatal(err)
	}
	// The clients report's own check of its cases is a run's column, and
	// its case file (nil-kinds) a row.
	rows := eval[int](t, bctx, `document.querySelectorAll("#matrix > tbody > tr.file").length`)
	cols := eval[int](t, bctx, `document.querySelectorAll("#matrix > thead th.srv").length`)
	if rows != nfiles+1 || cols != 3 {
		t.Errorf("the matrix has %d file rows and %d server columns, want %d and 3", rows, cols, nfiles+1)
	}
	checkDiffClick(t, bctx)
	// The screenshot: the matrix with the file of the clicked case open.
	eval[bool](t, bctx, `window.scrollTo(0,0);true`)
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	checkClientCell(t, bctx)
	checkExplore(t, bctx)
	checkFilters(t, bctx)
	shotPath := filepath.Join(filepath.Dir(path), "report.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := colours(t, shot); n < 4 {
		t.Errorf("the screenshot %s has %d colours: blank", shotPath, n)
	}
	for _, p := range problems() {
		t.Errorf("page %s: console %s", path, p)
	}
	checkGeneratedPage(t, bctx, problems)
}

// checkExplore: the explore report is a section with its groups of
// findings; a finding opened shows its sequence and the two replies, B's
// first differing byte marked, and the faults are a group of their own.
func checkExplore(t *testing.T, bctx context.Context) {
	t.Helper()
	groups := eval[[]string](t, bctx, `Array.prototype.map.call(document.querySelectorAll("section.explore h3"),function(e){return e.textContent;})`)
	if len(groups) < 2 || !slices.ContainsFunc(groups, func(g string) bool { return strings.HasPrefix(g, "Faults of a server") }) {
		t.Errorf("explore section's groups: %q, want differences and faults", groups)
	}
	got := eval[[]string](t, bctx, `(function(){var d=document.querySelector("section.explore details.finding");d.open=true;`+
		`var r=d.querySelectorAll("table.bytes tbody tr");return [String(d.querySelector("pre.seq").textContent.trim().length>0), String(r.length), String(r.length>1&&r[1].querySelector("mark")!==null), String(d.getBoundingClientRect().height>0)];})()`)
	if want := []string{"true", "2", "true", "true"}; !slices.Equal(got, want) {
		t.Errorf("the first explore finding opened: sequence shown, rows, B marked, visible = %q, want %q", got, want)
	}
}

// checkGeneratedPage opens the committed docs/generated/report.html (runner/report/
// page's TestGeneratedReport writes it) in the browser: it loads without
// console errors or warnings, and its servers × files matrix has one
// column per golden directory of testdata/golden and a row per file.
func checkGeneratedPage(t *testing.T, bctx context.Context, problems func() []string) {
	t.Helper()
	before := len(problems())
	abs, err := filepath.Abs("../../docs/generated/report.html")
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("#matrix"))); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob("../../testdata/golden/*")
	var want []string
	for _, d := range dirs {
		want = append(want, "testdata/golden/"+filepath.Base(d))
	}
	cols := eval[int](t, bctx, `document.querySelectorAll("#matrix > thead th.srv").length`)
	rows := eval[int](t, bctx, `document.querySelectorAll("#matrix > tbody > tr.file").length`)
	sources := eval[[]string](t, bctx, `Array.prototype.map.call(document.querySelectorAll("#sources code"),function(e){return e.textContent;}).filter(function(p){return p.indexOf("testdata/golden/")===0;})`)
	if cols != len(dirs) || strings.Join(sources, " ") != strings.Join(want, " ") || rows < 10 {
		t.Errorf("docs/generated/report.html: %d server columns and %d file rows, golden sources %q; want a column per golden directory %q (stale? go test ./runner/report/page -run TestGeneratedReport -update-report)",
			cols, rows, sources, want)
	}
	for _, p := range problems()[before:] {
		t.Errorf("docs/generated/report.html: console %s", p)
	}
}

// browser starts headless Chromium for the test (skipped when chromium is
// missing, failed in CI) and returns its tab and a func listing the
// console errors, warnings and uncaught exceptions of the tab so far.
func browser(t *testing.T) (context.Context, func() []string) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if servers.InCI() {
			t.Fatal("chromium is not installed: scripts/setup installs Debian's chromium package")
		}
		t.Skip("chromium is not installed (apt-get install chromium, or scripts/setup)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 1600))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	// Console subscribes when it returns: no message of the page is lost.
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(bctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	return bctx, func() []string {
		// A message sent before the last reply has been read by now,
		// unless the goroutine above has not caught up: a round trip
		// more gives it the time.
		eval[bool](t, bctx, "true")
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), problems...)
	}
}

// TestBrowserSeesConsoleErrors checks that browser's console check is not
// blind: a page that logs an error and throws is reported twice.
func TestBrowserSeesConsoleErrors(t *testing.T) {
	bctx, problems := browser(t)
	page := writeFile(t, "bad.html", `<!doctype html><title>bad</title><script>console.error("boom");</script><script>null.x;</script>`)
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 50 { // the events come on their own goroutine
		if got = problems(); len(got) >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 2 || !strings.Contains(got[0], "boom") || !strings.HasPrefix(got[1], "exception") {
		t.Errorf("console problems of a bad page: %q", got)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// checkDiffClick opens the first file with a difference, clicks a cell of
// its differing case, and checks that the entry opened shows two
// different byte strings.
func checkDiffClick(t *testing.T, ctx context.Context) {
	t.Helper()
	type opened struct {
		Open    bool     `json:"open"`
		Visible bool     `json:"visible"`
		Bytes   []string `json:"bytes"`
	}
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#matrix tr.file:has(.dmark) .toggle`)),
		chromedp.Click(chromedp.CSS(`#matrix tr.cases:not([hidden]) td[data-diff]`)))
	if err != nil {
		t.Fatal(err)
	}
	got := eval[opened](t, ctx, `(function(){
			var td=document.querySelector("#matrix tr.cases:not([hidden]) td[data-diff]"),d=document.getElementById(td.getAttribute("data-diff"));
			return {open:d.open,visible:d.getBoundingClientRect().height>0,
				bytes:Array.prototype.map.call(d.querySelectorAll("code.esc"),function(e){return e.textContent;})};
		})()`)
	if !got.Open || !got.Visible || len(got.Bytes) < 2 || got.Bytes[0] == got.Bytes[1] {
		t.Errorf("after a click on a differing cell: %+v, want an open entry with two different byte strings", got)
	}
}

// checkClientCell opens the first cell of the clients matrix and checks
// it shows the bytes the library received.
func checkClientCell(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.cmatrix td details summary`))); err != nil {
		t.Fatal(err)
	}
	text := eval[string](t, ctx, `document.querySelector(".cmatrix td details[open] .pop").innerText`)
	if !strings.Contains(text, "received") || !strings.Contains(text, `\r\n`) {
		t.Errorf("an opened client cell shows %q, want the bytes received", text)
	}
}

// checkFilters types into the search box and picks a server, and checks
// what is shown changes.
func checkFilters(t *testing.T, ctx context.Context) {
	t.Helper()
	const visible = `Array.prototype.filter.call(document.querySelectorAll(%q),function(e){return e.offsetParent!==null;}).length`
	diffsBefore := eval[int](t, ctx, fmt.Sprintf(visible, "details.diff"))
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("f-q"), "BITCOUNT")); err != nil {
		t.Fatal(err)
	}
	diffsAfter := eval[int](t, ctx, fmt.Sprintf(visible, "details.diff"))
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("f-server"), "1")); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `document.getElementById("f-server").dispatchEvent(new Event("change"))`)
	colsAfter := eval[int](t, ctx, fmt.Sprintf(visible, "#matrix > thead th.srv"))
	if diffsAfter == 0 || diffsAfter >= diffsBefore {
		t.Errorf("searching BITCOUNT: %d differences shown of %d, want fewer but some", diffsAfter, diffsBefore)
	}
	if colsAfter != 1 {
		t.Errorf("with one server picked, %d server columns are shown", colsAfter)
	}
}

// colours counts the distinct colours of a PNG, up to 1000.
func colours(t *testing.T, b []byte) int {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y && len(seen) < 1000; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
		}
	}
	return len(seen)
}

// TestReportRunDiffs writes the page of two run reports (run --format
// json) of the bundled errors cases on Redis 7.0.15 and Redis 8.6.3: the
// case whose BITCOUNT with a start but no end is ":0" on 7.0.15 and a
// syntax error on 8.6.3 has that step's replies side by side, and its sent
// bytes (a key with each run's own prefix) do not differ: the prefix is
// normalised (report.JSONResult.KeyPrefix).
func TestReportRunDiffs(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for _, build := range []string{"redis-7.0.15", "redis-8.6.3"} {
		srv := servers.ForTest(t, build)
		out := filepath.Join(dir, build+".json")
		code, stdout, errs := respcheck(t, "run", "--addr", srv.Addr(), "--allow-destructive", "--format", "json", "-o", out, "--run", "^errors/")
		if code != exitOK && code != exitFindings {
			t.Fatalf("run %s: exit %d\n%s%s", build, code, stdout, errs)
		}
		args = append(args, out)
	}
	out := filepath.Join(dir, "r.html")
	if code, stdout, errs := respcheck(t, append([]string{"report", "-o", out}, args...)...); code != exitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	i := strings.Index(page, "/ BITCOUNT with a start but no end is a syntax error on Redis only <small>RESP2, RESP3</small>: 1 step differs on redis 8.6.3</summary>")
	if i < 0 {
		t.Fatalf("no difference entry for the BITCOUNT case in the page")
	}
	entry := page[i:]
	entry = entry[:strings.Index(entry, "</details>")]
	for _, want := range []string{"<p>step 2 (case file line ", "the reply differs</p>", `<code class="esc">&#34;:0\r\n&#34;</code>`,
		`<mark title="first differing byte, offset 0">-</mark>ERR syntax error\r\n&#34;`, "(integer) 0", "(error) ERR syntax error"} {
		if !strings.Contains(entry, want) {
			t.Errorf("the BITCOUNT entry lacks %s:\n%s", want, entry)
		}
	}
	if strings.Contains(page, "the sent differs") {
		t.Error("sent bytes differ between the runs: the key prefix is not normalised")
	}
}

// TestReportRunsNoFalseDifferences: the page of two run reports of
// different builds (Redis 7.0.15 and Valkey 9.1.2, the connection and
// pubsub cases: CLIENT UNBLOCK, CLIENT KILL ID and tracking REDIRECT send
// a captured client ID) and the two builds' committed goldens of the same
// files lists the same cases as the page of the goldens alone: no case
// whose commands differ only in a captured value (the page says how many
// it left out), and the goldens are not compared with the runs of their
// own builds (a note each).
func TestReportRunsNoFalseDifferences(t *testing.T) {
	dir := t.TempDir()
	builds := []string{"redis-7.0.15", "valkey-9.1.2"}
	var runs, goldens []page.Input
	for _, build := range builds {
		srv := servers.ForTest(t, build)
		out := filepath.Join(dir, build+".json")
		code, stdout, errs := respcheck(t, "run", "--addr", srv.Addr(), "--allow-destructive", "--format", "json", "-o", out, "--run", "^(connection|pubsub)/")
		if code != exitOK && code != exitFindings {
			t.Fatalf("run %s: exit %d\n%s%s", build, code, stdout, errs)
		}
		gdir := filepath.Join(dir, "golden", build)
		if err := os.MkdirAll(gdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"_server.golden", "connection.golden", "pubsub.golden"} {
			data, err := os.ReadFile(filepath.Join("../../testdata/golden", build, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gdir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{out, gdir} {
			in, err := page.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if p == out {
				runs = append(runs, in)
			} else {
				goldens = append(goldens, in)
			}
		}
	}
	listed := func(p *page.Page) []string {
		var ids []string
		for _, d := range p.Diffs {
			for _, proto := range d.Protos {
				ids = append(ids, fmt.Sprintf("%s/%s RESP%d", d.File, d.Case, proto))
			}
		}
		slices.Sort(ids)
		return ids
	}
	both := page.Build(append(append([]page.Input{}, runs...), goldens...))
	alone := page.Build(goldens)
	if got, want := listed(both), listed(alone); !slices.Equal(got, want) {
		t.Errorf("runs and goldens list %d differing cases, the goldens alone %d:\n%s\nwant\n%s",
			len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(alone.Diffs) == 0 {
		t.Error("the goldens of Redis 7.0.15 and Valkey 9.1.2 list no difference in connection and pubsub")
	}
	notes := strings.Join(both.DiffNotes, "\n")
	for _, want := range []string{
		"redis 7.0.15 golden is the same build as redis 7.0.15 run (redis 7.0.15): not compared",
		"valkey 9.1.2 golden is the same build as valkey 9.1.2 run (valkey 9.1.2): not compared",
		"whose commands differ only in what a run chooses",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("the page's notes lack %q:\n%s", want, notes)
		}
	}
	for _, d := range both.Diffs {
		if strings.Contains(d.Servers, "redis 7.0.15") {
			t.Errorf("%s/%s: a build compared with itself: differs on %s", d.File, d.Case, d.Servers)
		}
	}
}
