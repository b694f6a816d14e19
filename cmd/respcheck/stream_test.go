package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/report"
	rschema "github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestStreamedLinesAndFailFast: on a non-terminal stdout, -v shows one
// line per case as it ends (go test -v style) and the summary once; a
// failure is shown once, not again at the end; --fail-fast stops at the
// first failure (with one job, nothing else runs meanwhile), counts the rest as not run (not skipped) and exits 1.
func TestStreamedLinesAndFailFast(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "ff.yaml", `suite: ff
cases:
  - {name: first, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - {name: fails, exclusive: true, steps: [{send: [PING], reply: "+WRONG\r\n"}]}
  - {name: third, exclusive: true, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - {name: fourth, exclusive: true, steps: [{send: [PING], reply: "+PONG\r\n"}]}
`)
	code, out, errs := respcheck(t, "run", "--server", "redis-7.0.15", "--proto", "2", "-v", f)
	if code != exitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(out, "FAIL  ff/fails [RESP2]"); n != 1 {
		t.Errorf("the failure is shown %d times, want once:\n%s", n, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(out, "pass  ff/first [RESP2]\n") || !strings.Contains(lines[len(lines)-1], "3 passed, 1 failed, 0 skipped") {
		t.Errorf("want a line per case and the summary last:\n%s", out)
	}

	code, out, errs = respcheck(t, "run", "--server", "redis-7.0.15", "--proto", "2", "--fail-fast", "--jobs", "1", "--servers", "1", f)
	if code != exitFindings {
		t.Fatalf("--fail-fast: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "1 passed, 1 failed, 0 skipped, 2 not run") || !strings.Contains(out, "not run: stopped at the first failure (--fail-fast)") {
		t.Errorf("--fail-fast output:\n%s", out)
	}
}

// TestStreamInFileOrder: with --jobs 4, a first case that takes 300 ms
// ends after the fast cases behind it, yet the streamed -v lines list the
// cases in file order, each case's RESP2 and RESP3 lines together, the
// failure's block in its place; the summary is last (before, the lines came
// in completion order: the slow case's after the others).
func TestStreamInFileOrder(t *testing.T) {
	if _, err := servers.Find("redis-7.0.15"); err != nil && !servers.InCI() {
		t.Skip(err)
	}
	f := writeFile(t, "order.yaml", `suite: order
cases:
  - {name: slow, steps: [{sleep: 300ms}, {send: [PING], reply: "+PONG\r\n"}]}
  - {name: b, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - {name: c, steps: [{send: [PING], reply: "+WRONG\r\n"}]}
  - {name: d, steps: [{send: [PING], reply: "+PONG\r\n"}]}
  - {name: e, steps: [{send: [PING], reply: "+PONG\r\n"}]}
`)
	code, out, errs := respcheck(t, "run", "--server", "redis-7.0.15", "--servers", "1", "--jobs", "4", "-v", f)
	if code != exitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var titles []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, " order/"); i >= 0 && (strings.HasPrefix(l, "pass ") || strings.HasPrefix(l, "FAIL ")) {
			titles = append(titles, strings.TrimSpace(l[i:]))
		}
	}
	var want []string
	for _, c := range []string{"slow", "b", "c", "d", "e"} {
		want = append(want, "order/"+c+" [RESP2]", "order/"+c+" [RESP3]")
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("the results in this order:\n%s\nwant file order:\n%s\noutput:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"), out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[len(lines)-1], "8 passed, 2 failed, 0 skipped") {
		t.Errorf("want the summary last:\n%s", out)
	}
}

// TestUnknownServerIsAUsageError: a build name respcheck does not know is
// the user's mistake (exit 2) naming the installed builds, not a server
// fault (exit 3).
func TestUnknownServerIsAUsageError(t *testing.T) {
	code, _, errs := respcheck(t, "run", "--server", "keydb-6.3")
	if code != exitUsage || !strings.Contains(errs, "installed:") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}

// TestJSONLines: --format jsonl writes a "result" line per case and
// protocol (streamed on stdout as each finishes) and a "summary" line
// last, to stdout and through -o alike.
func TestJSONLines(t *testing.T) {
	f := writeFile(t, "jl.yaml", `suite: jl
cases:
  - name: passes
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: fails
    steps: [{send: [PING], reply: "+PING\r\n"}]
`)
	check := func(what, out string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 5 {
			t.Fatalf("%s: %d lines, want 4 results and a summary:\n%s", what, len(lines), out)
		}
		statuses := map[string]int{}
		for i, l := range lines {
			var ev report.Event
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("%s: line %d is not JSON: %v\n%s", what, i+1, err, l)
			}
			switch {
			case i < 4 && ev.Event == "result" && ev.Result != nil:
				statuses[ev.Result.Status.String()]++
			case i == 4 && ev.Event == "summary" && ev.Summary != nil && ev.Summary.Passed == 2 && ev.Summary.Failed == 2:
			default:
				t.Errorf("%s: line %d: %s", what, i+1, l)
			}
		}
		if statuses["pass"] != 2 || statuses["fail"] != 2 {
			t.Errorf("%s: statuses %v", what, statuses)
		}
	}
	code, out, errs := respcheck(t, "run", "--server", "miniredis", "--format", "jsonl", f)
	if code != exitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	check("stdout", out)
	file := filepath.Join(t.TempDir(), "r.jsonl")
	if code, out, errs := respcheck(t, "run", "--server", "miniredis", "-o", file, f); code != exitFindings {
		t.Fatalf("-o: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	check("-o r.jsonl", string(data))
	// With --golden, the golden lines go to stderr: stdout stays JSON lines.
	gd := filepath.Join(t.TempDir(), "g")
	if code, out, errs := respcheck(t, "record", "--server", "miniredis", "--out", gd, f); code != exitFindings && code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = respcheck(t, "run", "--server", "miniredis", "--format", "jsonl", "--golden", gd, f)
	if code != exitFindings || !strings.Contains(errs, "golden ") {
		t.Fatalf("--golden: exit %d\n%s%s", code, out, errs)
	}
	check("stdout with --golden", out)
}

// TestShards: run --shard 1/3, 2/3 and 3/3 run disjoint parts of the
// selected cases whose union is the whole selection (each case in both
// protocols in one part), their JSON reports say which part, and report
// makes them one column; a shard outside 1..n is exit 2.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]string{}
	var reports []string
	for i := 1; i <= 3; i++ {
		out := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		shard := fmt.Sprintf("%d/3", i)
		if code, stdout, errs := respcheck(t, "run", "--server", "miniredis", "--shard", shard, "--run", "^errors/", "-o", out); code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s%s", shard, code, stdout, errs)
		}
		var rep report.JSONReport
		data, err := os.ReadFile(out)
		if err == nil {
			err = json.Unmarshal(data, &rep)
		}
		if err == nil {
			err = rschema.Check("run", data) // "shard" is in run.schema.json
		}
		if err != nil || rep.Shard != shard || len(rep.Results) == 0 {
			t.Fatalf("shard %s: %v, shard %q, %d results", shard, err, rep.Shard, len(rep.Results))
		}
		for _, r := range rep.Results {
			if o, ok := seen[r.Case]; ok && o != shard {
				t.Errorf("%s in shards %s and %s", r.Case, o, shard)
			}
			seen[r.Case] = shard
		}
		reports = append(reports, out)
	}
	code, out, _ := respcheck(t, "list", "--run", "^errors/")
	if n := strings.Count(out, "\n"); code != exitOK || n != len(seen) {
		t.Errorf("the shards ran %d cases, list lists %d (exit %d):\n%s", len(seen), n, code, out)
	}
	page := filepath.Join(dir, "p.html")
	if code, stdout, errs := respcheck(t, append([]string{"report", "-o", page}, reports...)...); code != exitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, errs)
	}
	data, _ := os.ReadFile(page)
	if n := strings.Count(string(data), `<th scope="col" class="srv" data-s="`); n < 1 || !strings.Contains(string(data), "run, shards 1/3, 2/3, 3/3") {
		t.Errorf("the page has %d server headings and no merged column", n)
	}
	if code, _, errs := respcheck(t, "run", "--server", "miniredis", "--shard", "0/3"); code != exitUsage || !strings.Contains(errs, "--shard") {
		t.Errorf("--shard 0/3: exit %d %s", code, errs)
	}
}
