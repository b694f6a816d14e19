package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

// The JUnit XML shapes of both reports (JUnit and clientsJUnit). Errors is
// nil and Time empty where a report has no errors or timings (the clients
// report): those attributes are then left out rather than written as 0.

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Time   string       `xml:"time,attr,omitempty"`
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Time  string      `xml:"time,attr,omitempty"`
	Cases []junitCase `xml:"testcase"`
}

// junitCounts are the tallies of a suite, or of all suites.
type junitCounts struct {
	Tests    int  `xml:"tests,attr"`
	Failures int  `xml:"failures,attr"`
	Errors   *int `xml:"errors,attr,omitempty"`
	Skipped  int  `xml:"skipped,attr"`
}

func (c *junitCounts) add(o junitCounts) {
	c.Tests += o.Tests
	c.Failures += o.Failures
	c.Skipped += o.Skipped
	if o.Errors != nil {
		if c.Errors == nil {
			c.Errors = new(int)
		}
		*c.Errors += *o.Errors
	}
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// writeJUnit totals the suites into out and writes it as an indented XML
// document.
func writeJUnit(w io.Writer, out junitSuites) error {
	for _, s := range out.Suites {
		out.add(s.junitCounts)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// JUnit writes JUnit XML: one testsuite per case file, one testcase per case
// and protocol ("case name [RESP2]"); fail is <failure>, error is <error>,
// skip is <skipped>; a known difference passes with its reason in
// system-out.
func JUnit(w io.Writer, rep *runner.Report) error {
	out := junitSuites{Name: "respcheck " + rep.Server.Family + " " + rep.Server.Version,
		Time: secs(rep.Duration.Seconds())}
	out.Errors = new(int)
	index := map[string]int{}
	for _, res := range rep.Results {
		file := res.Case.File.Path
		i, ok := index[file]
		if !ok {
			i = len(out.Suites)
			index[file] = i
			out.Suites = append(out.Suites, junitSuite{Name: file, junitCounts: junitCounts{Errors: new(int)}})
		}
		out.Suites[i].addResult(res, file)
	}
	durations := map[string]float64{}
	for _, res := range rep.Results {
		durations[res.Case.File.Path] += res.Duration.Seconds()
	}
	for i := range out.Suites {
		out.Suites[i].Time = secs(durations[out.Suites[i].Name])
	}
	return writeJUnit(w, out)
}

// addResult adds res to s as a testcase of class classname ("case name
// [RESP2]"): fail is <failure>, error is <error> (s.Errors must be set),
// skip is <skipped>, a known difference passes with its reason in
// system-out.
func (s *junitSuite) addResult(res *runner.Result, classname string) {
	jc := junitCase{Name: fmt.Sprintf("%s [RESP%d]", res.Case.Name, res.Proto), Classname: classname,
		File: res.Case.Pos.File, Line: res.Case.Pos.Line, Time: secs(res.Duration.Seconds())}
	switch res.Status {
	case runner.Fail:
		jc.Failure = &junitMessage{Message: res.Reason, Type: "mismatch", Body: failureText(res)}
		s.Failures++
	case runner.Error:
		jc.Error = &junitMessage{Message: res.Reason, Type: "error"}
		(*s.Errors)++
	case runner.Skip:
		jc.Skipped = &junitMessage{Message: res.Reason}
		s.Skipped++
	case runner.KnownDiff:
		jc.SystemOut = "known difference: " + res.Reason
	}
	s.Tests++
	s.Cases = append(s.Cases, jc)
}

func failureText(res *runner.Result) string {
	if res.Failure == nil {
		return res.Reason
	}
	var b strings.Builder
	for _, f := range append([]*runner.Failure{res.Failure}, res.More...) {
		fmt.Fprintf(&b, "%s: %s\nwant: %s\n", f.Where(), f.Message, f.Expected)
		if cli := CLI(f.ExpectedBytes); cli != "" {
			b.WriteString(indent("      ", cli) + "\n")
		}
		fmt.Fprintf(&b, " got: %s\n", resp.Escape(f.Actual))
		if cli := CLI(f.Actual); cli != "" {
			b.WriteString(indent("      ", cli) + "\n")
		}
	}
	return b.String()
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }
