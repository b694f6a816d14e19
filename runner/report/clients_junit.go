package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/respcheck/respcheck/runner/clients"
)

// casesSuite names the test suite of the cases' own check in a clients
// report's JUnit XML.
const casesSuite = "the cases, as run checks them"

// clientsJUnit writes a clients report as JUnit XML: one test suite per
// client, one test case per case; findings are failures (with the
// non-matching steps as in ClientsHuman), skips with a reason are skipped,
// and erased results pass with their steps in system-out. The cases' own
// check, when it ran, is the first suite (casesSuite), as run's JUnit
// writes its results. The clients' suites have no errors or time
// attributes: their results have neither.
func clientsJUnit(w io.Writer, rep *clients.Report) error {
	bySuite := map[string]*junitSuite{}
	var order []string
	for _, res := range rep.Results {
		s := bySuite[res.Client]
		if s == nil {
			s = &junitSuite{Name: res.Client}
			bySuite[res.Client] = s
			order = append(order, res.Client)
		}
		jc := junitCase{Name: res.Case.FullName(), Classname: res.Client}
		var b strings.Builder
		fmt.Fprintf(&b, "client: %s\n", rep.Client(res.Client).Label())
		for _, sv := range res.Steps {
			if sv.Verdict > clients.Match {
				clientsStep(&b, sv)
			}
		}
		switch {
		case res.Verdict.Finding():
			jc.Failure = &junitMessage{Message: res.Verdict.String(), Type: res.Verdict.String(), Body: b.String()}
			s.Failures++
		case res.Verdict == clients.Skip && res.Reason != "":
			jc.Skipped = &junitMessage{Message: res.Reason}
			s.Skipped++
		default:
			jc.SystemOut = b.String()
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	top := junitSuites{Name: "respcheck clients"}
	if rep.Cases != nil {
		// The cases' own check (clients.Report.Cases), first: one suite,
		// a testcase per case and protocol as run's JUnit has them (its
		// file the class).
		s := junitSuite{Name: casesSuite, junitCounts: junitCounts{Errors: new(int)}}
		for _, res := range rep.Cases.Results {
			s.addResult(res, res.Case.File.Path)
		}
		top.Suites = append(top.Suites, s)
	}
	for _, n := range order {
		top.Suites = append(top.Suites, *bySuite[n])
	}
	return writeJUnit(w, top)
}
