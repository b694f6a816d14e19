package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

const goldenCase = `suite: golden round trip
cases:
  - name: SET then GET
    steps:
      - send: [SET, "{key}", original]
      - send: [GET, "{key}"]
      - send: [CLIENT, ID]
        volatile: true
`

func TestRecordRunGoldenUpdateAndDiff(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	cf := writeFile(t, "rt.yaml", goldenCase)
	dir := filepath.Join(t.TempDir(), "golden")
	code, out, errs := respcheck(t, "record", "--addr", srv.Addr(), "--out", dir, cf)
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "rt.golden")) {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	// The same server, another run id: everything matches.
	code, out, errs = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, cf)
	if code != 0 || !strings.Contains(out, "4 steps compared byte for byte, 2 volatile") {
		t.Fatalf("run --golden: exit %d\n%s%s", code, out, errs)
	}
	// One changed byte is a failure with its offset and the way to accept it.
	gp := filepath.Join(dir, "rt.golden")
	data, _ := os.ReadFile(gp)
	changed := strings.Replace(string(data), `reply "$8\r\noriginal\r\n"`, `reply "$8\r\norigiNal\r\n"`, 1)
	if changed == string(data) {
		t.Fatalf("no GET reply in the golden:\n%s", data)
	}
	os.WriteFile(gp, []byte(changed), 0o644)
	saved := filepath.Join(t.TempDir(), "changed")
	os.MkdirAll(saved, 0o755)
	os.WriteFile(filepath.Join(saved, "rt.golden"), []byte(changed), 0o644)
	code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, cf)
	if code != 1 || !strings.Contains(out, "reply differs from the golden at byte 9") ||
		!strings.Contains(out, "respcheck run --golden "+dir+" --update") {
		t.Fatalf("changed golden: exit %d\n%s", code, out)
	}
	// --update accepts it, once.
	code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, "--update", cf)
	if code != 0 || !strings.Contains(out, "golden: updated "+gp) {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	if code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, "--update", cf); code != 0 || !strings.Contains(out, "golden: 0 files updated") {
		t.Fatalf("second --update: exit %d\n%s", code, out)
	}
	// diff: identical is 0, the changed copy is 1 with the step shown.
	if code, out, _ = respcheck(t, "diff", dir, dir); code != 0 {
		t.Errorf("diff of a directory with itself: exit %d\n%s", code, out)
	}
	code, out, _ = respcheck(t, "diff", dir, saved)
	if code != 1 || !strings.Contains(out, `step 1 (line 6) reply: GET rc:{________}:key`) || !strings.Contains(out, `"origiNal"`) {
		t.Errorf("diff: exit %d\n%s", code, out)
	}
	// A changed case file makes the golden stale: exit 2, not a failure.
	cf2 := writeFile(t, "rt.yaml", goldenCase+"      - send: [PING]\n")
	code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, cf2)
	if code != 2 || !strings.Contains(out, "stale golden "+gp) || !strings.Contains(out, "2 passed") {
		t.Errorf("stale golden: exit %d\n%s", code, out)
	}
	// It names the command that records the directory again, on the
	// target it was recorded on (--addr, not a --server it never named),
	// from the case file it was recorded from, not the repository's
	// script.
	if want := "; to record " + dir + " again: respcheck record --addr " + srv.Addr() + " --out " + dir + " " + cf + "\n"; !strings.Contains(out, want) ||
		strings.Contains(out, "record-goldens") {
		t.Errorf("stale golden: no %q in\n%s", want, out)
	}
	if data, _ := os.ReadFile(gp); !strings.Contains(string(data), "\n#   respcheck record --addr "+srv.Addr()+" --out DIR "+cf+"\n") {
		t.Errorf("golden header:\n%.400s", data)
	}
}

const twoCases = `suite: two cases
cases:
  - name: one
    steps:
      - send: [SET, "{key}", v]
      - send: [GET, "{key}"]
  - name: two
    steps:
      - send: [INCR, "{key}"]
`

// TestGoldenChurnAndStaleCases: recording again on a server that has
// served other connections since (another run id, other HELLO ids)
// rewrites nothing; editing one case leaves only that case uncompared
// (the other is compared byte for byte), and the message names it.
func TestGoldenChurnAndStaleCases(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	cf := writeFile(t, "two.yaml", twoCases)
	dir := filepath.Join(t.TempDir(), "golden")
	if code, out, errs := respcheck(t, "record", "--addr", srv.Addr(), "--out", dir, cf); code != 0 {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "_server.golden"))
	if !strings.Contains(string(first), "target \"--addr "+srv.Addr()+"\"") {
		t.Errorf("_server.golden has no target line:\n%s", first)
	}
	code, out, errs := respcheck(t, "record", "--addr", srv.Addr(), "--out", dir, cf)
	if code != 0 || !strings.Contains(out, "0 of 2 golden files written") {
		t.Fatalf("second record: exit %d\n%s%s", code, out, errs)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "_server.golden")); string(again) != string(first) {
		t.Errorf("_server.golden changed:\n%s\n---\n%s", first, again)
	}
	// Recording one case keeps the other's recordings (record used to
	// write the file with the selected cases only).
	code, out, errs = respcheck(t, "record", "--addr", srv.Addr(), "--out", dir, "--run", "/one$", "--proto", "2", cf)
	data, _ := os.ReadFile(filepath.Join(dir, "two.golden"))
	if code != 0 || !strings.Contains(out, "0 of 2 golden files written") || strings.Count(string(data), "\ncase ") != 4 {
		t.Fatalf("record --run: exit %d\n%s%s\n%s", code, out, errs, data)
	}
	edited := writeFile(t, "two.yaml", strings.Replace(twoCases, "[INCR, \"{key}\"]", "[INCRBY, \"{key}\", 2]", 1))
	code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, edited)
	if code != 2 || !strings.Contains(out, "4 steps compared byte for byte") ||
		!strings.Contains(out, `not compared: 1 of 2 cases: "two" (changed since it was recorded)`) {
		t.Errorf("one case edited: exit %d\n%s", code, out)
	}
	// --update against another build writes nothing: one directory, one
	// build.
	other := servers.ForTest(t, "valkey-9.1.2")
	before, _ := os.ReadFile(filepath.Join(dir, "two.golden"))
	code, _, errs = respcheck(t, "run", "--addr", other.Addr(), "--golden", dir, "--update", cf)
	after, _ := os.ReadFile(filepath.Join(dir, "two.golden"))
	if code != 2 || !strings.Contains(errs, "holds the recordings of redis 7.0.15, the target is valkey 9.1.2: nothing written") || string(after) != string(before) {
		t.Errorf("--update on another build: exit %d %s", code, errs)
	}
	added := writeFile(t, "two.yaml", twoCases+"  - name: three\n    steps:\n      - send: [PING]\n")
	code, out, _ = respcheck(t, "run", "--addr", srv.Addr(), "--golden", dir, added)
	if code != 2 || !strings.Contains(out, "6 steps compared byte for byte") || !strings.Contains(out, `"three" (not recorded)`) {
		t.Errorf("one case added: exit %d\n%s", code, out)
	}
}

func TestServeUsage(t *testing.T) {
	if code, _, errs := respcheck(t, "serve"); code != 2 || !strings.Contains(errs, "--golden") {
		t.Errorf("serve without --golden: exit %d %s", code, errs)
	}
	if code, _, errs := respcheck(t, "serve", "--golden", ".", "--split", "x"); code != 2 || !strings.Contains(errs, "--split") {
		t.Errorf("bad --split: exit %d %s", code, errs)
	}
}

// TestDiffCommittedGoldens: respcheck diff of redis-7.0.15 and redis-8.6.3
// leads with the counts and the steps whose replies changed, lists the
// feature-gated cases compactly and without INFO dumps; -v shows all;
// --format json has every change; exit 0 identical, 1 different, 2 usage.
func TestDiffCommittedGoldens(t *testing.T) {
	a, b := "../../testdata/golden/redis-7.0.15", "../../testdata/golden/redis-8.6.3"
	code, out, errs := respcheck(t, "diff", a, b)
	lines := strings.Split(out, "\n")
	if code != 1 || !strings.HasPrefix(out, "A = redis-7.0.15 ("+a+"), B = redis-8.6.3 ("+b+"): ") || len(lines) > 600 ||
		!strings.Contains(out, "changed  status  only in A  only in B\n") || !strings.Contains(out, " steps whose bytes differ:\n") ||
		!strings.Contains(out, ` "DIGEST of a missing key is nil" [RESP2 RESP3]: skip → pass`) || strings.Contains(out, "cmdstat_") {
		t.Errorf("diff: exit %d, %d lines\n%s%s", code, len(lines), out, errs)
	}
	code, verbose, _ := respcheck(t, "diff", "-v", a, b)
	if code != 1 || !strings.Contains(verbose, "cmdstat_") || len(verbose) < 4*len(out) {
		t.Errorf("diff -v: exit %d, %d bytes", code, len(verbose))
	}

	code, js, errs := respcheck(t, "diff", "--format", "json", a, b)
	var doc struct {
		A, B  struct{ Name, Path string }
		Total struct {
			Changed, Status int
			OnlyB           int `json:"only_in_b"`
		}
		Changes []struct{ File, Case, What, Command, A, B string }
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != 1 {
		t.Fatalf("diff --format json: exit %d, %v\n%.300s%s", code, err, js, errs)
	}
	digest := 0
	for _, c := range doc.Changes {
		if c.File == "digest" && c.What == "only in B" && strings.Contains(c.Command, "DIGEST") {
			digest++
		}
	}
	if doc.A.Name != "redis-7.0.15" || doc.B.Path != b || doc.Total.Changed == 0 || doc.Total.OnlyB < 100 || digest == 0 ||
		!strings.Contains(js, "cmdstat_") {
		t.Errorf("diff --format json: %+v, %d changes, %d DIGEST steps only in B", doc.Total, len(doc.Changes), digest)
	}

	if code, out, _ := respcheck(t, "diff", a, a); code != 0 || out != "redis-7.0.15 and redis-7.0.15: identical recordings\n" &&
		out != a+" and "+a+": identical recordings\n" {
		t.Errorf("diff of a directory with itself: exit %d %q", code, out)
	}
	if code, out, _ := respcheck(t, "diff", "--format", "json", a, a); code != 0 || !strings.Contains(out, `"changes": []`) {
		t.Errorf("diff --format json of a directory with itself: exit %d\n%s", code, out)
	}
	if code, _, errs := respcheck(t, "diff", "--format", "yaml", a, b); code != 2 || !strings.Contains(errs, "--format") {
		t.Errorf("diff --format yaml: exit %d %s", code, errs)
	}
	if code, _, errs := respcheck(t, "diff", a, filepath.Join(t.TempDir(), "none")); code != 2 || errs == "" {
		t.Errorf("diff of a missing directory: exit %d %s", code, errs)
	}
}

// TestGoldenDiffShowsTheLiveBytes: a golden difference reports the reply
// the server sent, not bytes of a later read (the checker's bytes were a
// slice of the reader's buffer, overwritten by the next step's reply).
func TestGoldenDiffShowsTheLiveBytes(t *testing.T) {
	f := writeFile(t, "unknown.yaml", `suite: unknown
cases:
  - name: an unknown command, then a cleanup step
    steps:
      - {send: [FOO], error_match: "^ERR unknown command"}
    cleanup:
      - send: [PING]
`)
	dir := t.TempDir()
	if code, out, errs := respcheck(t, "record", "--server", "redis-8.6.3", "--proto", "2", "--out", dir, f); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	srv := servers.ForTest(t, "valkey-9.1.2")
	code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--proto", "2", "--golden", dir, f)
	if code != exitFindings || !strings.Contains(out, `got: "-ERR unknown command 'FOO', with args beginning with: \r\n"`) {
		t.Errorf("exit %d, want %d showing valkey's own reply:\n%s%s", code, exitFindings, out, errs)
	}
}
