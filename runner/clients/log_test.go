package clients

import (
	"fmt"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// logReport logs each result and its steps (with allSteps, the matching
// ones too) for a test's log. The report writers are in runner/report,
// which imports this package, so its tests cannot use them.
func logReport(t *testing.T, rep *Report, allSteps bool) {
	t.Helper()
	var b strings.Builder
	for _, res := range rep.Results {
		fmt.Fprintf(&b, "%s %s [%s] %s\n", res.Verdict, res.Case.FullName(), res.Client, res.Reason)
		for _, sv := range res.Steps {
			if allSteps || sv.Verdict > Match {
				fmt.Fprintf(&b, "  %s %s: %s, received %q, decoded %v %q\n", sv.Step.Pos, resp.EscapeCommand(sv.Args), sv.Verdict, sv.Reply, sv.Native, sv.Notes)
			}
		}
	}
	t.Log("\n" + b.String())
}
