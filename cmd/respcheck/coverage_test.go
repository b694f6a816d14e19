package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/coverage"
)

// TestCoverageCommand measures the bundled suite against a throwaway
// Valkey 9.1.2: JSON output with every entry, and --fail-under deciding
// the exit status.
func TestCoverageCommand(t *testing.T) {
	code, out, errs := respcheck(t, "coverage", "--server", "valkey-9.1.2", "--format", "json", "--fail-under", "100")
	if code != 1 || !strings.Contains(errs, "under --fail-under 100") {
		t.Fatalf("--fail-under 100: exit %d\n%s", code, errs)
	}
	var rep coverage.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("JSON: %v\n%.300s", err, out)
	}
	if rep.Server != "valkey 9.1.2" || rep.Counted < 300 || rep.Covered < 50 || rep.Cases < 200 {
		t.Errorf("report: %s, %d of %d, %d cases", rep.Server, rep.Covered, rep.Counted, rep.Cases)
	}
	code, out, errs = respcheck(t, "coverage", "--server", "valkey-9.1.2", "--fail-under", "1")
	if code != 0 || !strings.HasPrefix(out, "coverage of valkey 9.1.2 by ") {
		t.Errorf("--fail-under 1: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs = respcheck(t, "coverage", "--fail-under", "101"); code != 2 {
		t.Errorf("--fail-under 101: exit %d %s", code, errs)
	}
}

// TestCoverageOfGoldens measures the committed goldens of Redis 8.6.3
// against a throwaway server of the build they were recorded from (the
// default with --golden): commands the recordings sent count (GET), those
// of cases recorded as skipped do not (the cluster cases on a standalone
// server), and a pipelined raw write counts each of its commands; the
// reply-schema branches are counted when the build's schemas are
// installed, else the report says why.
func TestCoverageOfGoldens(t *testing.T) {
	code, out, errs := respcheck(t, "coverage", "--golden", "../../testdata/golden/redis-8.6.3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var rep coverage.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("JSON: %v\n%.300s", err, out)
	}
	rows := map[string]coverage.Row{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	if rep.Server != "redis 8.6.3" || rows["GET"].Cases == 0 || len(rows["GET"].Protos) != 2 {
		t.Errorf("report of %s: GET %+v", rep.Server, rows["GET"])
	}
	if b := rep.Branches; b == nil || (b.Missing == "" && b.Total == 0) || (b.Missing != "" && !strings.Contains(b.Missing, "install-schemas.sh")) {
		t.Errorf("schema_branches: %+v", b)
	}
	if code, out, errs := respcheck(t, "coverage", "-v", "--golden", "../../testdata/golden/redis-8.6.3"); code != 0 || !strings.Contains(out, "\nreply-schema branches") {
		t.Errorf("-v: exit %d, no reply-schema branches line\n%s%s", code, out, errs)
	}
	if r := rows["CLUSTER SHARDS"]; r.Covered() {
		t.Errorf("CLUSTER SHARDS counted from cases recorded as skipped: %+v", r)
	}
	if code, _, errs = respcheck(t, "coverage", "--golden", "../../testdata/golden/redis-8.6.3", "x.yaml"); code != 2 || !strings.Contains(errs, "not both") {
		t.Errorf("--golden with files: exit %d %s", code, errs)
	}
}
