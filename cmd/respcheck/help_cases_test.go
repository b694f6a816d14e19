package main

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
)

// TestHelpCases: "respcheck help cases" prints the case format's manual
// (cases.Manual) as it is, and "respcheck help" lists the topic.
func TestHelpCases(t *testing.T) {
	code, out, errs := respcheck(t, "help", "cases")
	if code != 0 || out != cases.Manual {
		t.Errorf("help cases: exit %d, %d bytes (want the %d of cases.Manual) %s", code, len(out), len(cases.Manual), errs)
	}
	_, out, _ = respcheck(t, "help")
	if !strings.Contains(out, "Additional help topics:\n  respcheck cases ") {
		t.Errorf("help does not list the cases topic:\n%s", out)
	}
}
