package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
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

// JUnit writes JUnit XML: one testsuite per case file, one testcase per case
// and protocol ("case name [RESP2]"); fail is <failure>, error is <error>,
// skip is <skipped>; a known difference passes with its reason in
// system-out.
func JUnit(w io.Writer, rep *runner.Report) error {
	out := junitSuites{Name: "respcheck " + rep.Server.Family + " " + rep.Server.Version,
		Time: secs(rep.Duration.Seconds())}
	index := map[string]int{}
	for _, res := range rep.Results {
		file := res.Case.File.Path
		i, ok := index[file]
		if !ok {
			i = len(out.Suites)
			index[file] = i
			out.Suites = append(out.Suites, junitSuite{Name: file})
		}
		s := &out.Suites[i]
		jc := junitCase{Name: fmt.Sprintf("%s [RESP%d]", res.Case.Name, res.Proto), Classname: file,
			File: res.Case.Pos.File, Line: res.Case.Pos.Line, Time: secs(res.Duration.Seconds())}
		switch res.Status {
		case runner.Fail:
			jc.Failure = &junitMessage{Message: res.Reason, Type: "mismatch", Body: failureText(res)}
			s.Failures++
		case runner.Error:
			jc.Error = &junitMessage{Message: res.Reason, Type: "error"}
			s.Errors++
		case runner.Skip:
			jc.Skipped = &junitMessage{Message: res.Reason}
			s.Skipped++
		case runner.KnownDiff:
			jc.SystemOut = "known difference: " + res.Reason
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	durations := map[string]float64{}
	for _, res := range rep.Results {
		durations[res.Case.File.Path] += res.Duration.Seconds()
	}
	for i := range out.Suites {
		out.Suites[i].Time = secs(durations[out.Suites[i].Name])
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
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

func failureText(res *runner.Result) string {
	f := res.Failure
	if f == nil {
		return res.Reason
	}
	s := fmt.Sprintf("%s: %s\nwant: %s\n", f.Step.Pos, f.Message, f.Expected)
	if cli := CLI(f.ExpectedBytes); cli != "" {
		s += indent("      ", cli) + "\n"
	}
	s += fmt.Sprintf(" got: %s\n", resp.Escape(f.Actual))
	if cli := CLI(f.Actual); cli != "" {
		s += indent("      ", cli) + "\n"
	}
	return s
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }
