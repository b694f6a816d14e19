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
