package main

import (
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
}

func TestServeUsage(t *testing.T) {
	if code, _, errs := respcheck(t, "serve"); code != 2 || !strings.Contains(errs, "--golden") {
		t.Errorf("serve without --golden: exit %d %s", code, errs)
	}
	if code, _, errs := respcheck(t, "serve", "--golden", ".", "--split", "x"); code != 2 || !strings.Contains(errs, "--split") {
		t.Errorf("bad --split: exit %d %s", code, errs)
	}
}
