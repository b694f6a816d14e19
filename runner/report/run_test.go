package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/target"
)

// stringsYAML is the case file behind the hand-built reports: the
// positions the tests expect (suite/strings.yaml:13:9...) are its lines.
const stringsYAML = `suite: strings
cases:
  - name: passes
    steps:
      - send: [SET, k, v]
        reply: "+OK\r\n"
      - send: [GET, k]
        reply: "$1\r\nv\r\n"
  - name: fails
    steps:
      - send: [SET, k, v]
        reply: "+OK\r\n"
      - send: [ECHO, "a\x00b"]
        reply: "$3\r\nabc\r\n"
  - name: skips
    steps: [{send: [PING]}]
  - name: errors
    steps: [{send: [PING]}]
  - name: "known #1"
    steps: [{send: [PING]}]
`

func load(t *testing.T, path, src string) *cases.File {
	t.Helper()
	f, err := cases.Load(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// send is the result of a send step that got reply.
func send(s *cases.Step, reply string, args ...string) runner.StepResult {
	sr := runner.StepResult{Step: s, Conn: s.Conn, Reply: []byte(reply), ReplySize: len(reply), Duration: time.Millisecond}
	for _, a := range args {
		sr.Args = append(sr.Args, []byte(a))
	}
	return sr
}

// runReport is a run on one protocol of stringsYAML with one result of
// each status, and of a second file with one passing case.
func runReport(t *testing.T) *runner.Report {
	t.Helper()
	f := load(t, "suite/strings.yaml", stringsYAML)
	lists := load(t, "suite/lists.yaml", "suite: lists\ncases:\n  - name: LPUSH\n    steps: [{send: [LPUSH, l, a], reply: \":1\\r\\n\"}]\n")
	c := f.Cases
	fails := c[1].Steps[1]
	return &runner.Report{
		Server:  target.Server{Addr: "127.0.0.1:6379", Family: "redis", Version: "7.0.15"},
		Started: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), Duration: 1500 * time.Millisecond,
		Summary: runner.Summary{Passed: 2, Failed: 1, Skipped: 1, Errors: 1, Known: 1},
		DBSize:  [2]int64{-1, -1},
		Results: []*runner.Result{
			{Case: c[0], Proto: 2, Status: runner.Pass, Duration: 2 * time.Millisecond, Steps: []runner.StepResult{
				send(c[0].Steps[0], "+OK\r\n", "SET", "k", "v"), send(c[0].Steps[1], "$1\r\nv\r\n", "GET", "k")}},
			{Case: c[1], Proto: 2, Status: runner.Fail, Reason: "reply differs at byte 5", Duration: 3 * time.Millisecond,
				Failure: &runner.Failure{Step: fails, Expected: `"$3\r\nabc\r\n"`, ExpectedBytes: []byte("$3\r\nabc\r\n"),
					Actual: []byte("$3\r\na\x00b\r\n"), Offset: 5, Message: "reply differs at byte 5"},
				Steps: []runner.StepResult{send(c[1].Steps[0], "+OK\r\n", "SET", "k", "v"), send(fails, "$3\r\na\x00b\r\n", "ECHO", "a\x00b")}},
			{Case: c[2], Proto: 2, Status: runner.Skip, Reason: "requires server valkey\n(this is redis)"},
			{Case: c[3], Proto: 2, Status: runner.Error, Reason: "read: i/o timeout", Duration: 5 * time.Second},
			{Case: c[4], Proto: 2, Status: runner.KnownDiff, Reason: "valkey replies differently"},
			{Case: lists.Cases[0], Proto: 2, Status: runner.Pass, Steps: []runner.StepResult{send(lists.Cases[0].Steps[0], ":1\r\n", "LPUSH", "l", "a")}},
		},
	}
}

// contains checks that out holds each of subs.
func contains(t *testing.T, what, out string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(out, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, out)
		}
	}
}

func write(t *testing.T, f func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHuman(t *testing.T) {
	rep := runReport(t)
	const want = `FAIL  strings/fails [RESP2]
      suite/strings.yaml:13:9 > "ECHO" "a\x00b"
      suite/strings.yaml:13:9: reply differs at byte 5
      want: "$3\r\nabc\r\n"
            "abc"
       got: "$3\r\na\x00b\r\n"
                    ^ byte 5
            "a\x00b"
ERROR strings/errors [RESP2]
      read: i/o timeout
skipped: 1 × requires server valkey
redis 7.0.15 at 127.0.0.1:6379: 2 passed, 1 failed, 1 skipped, 1 error, 1 known difference (strings/known #1 [RESP2]) (1.50s)
`
	// Passing results and the failing case's passing first step are left
	// out; the failure is at its file:line:col, want and got escaped.
	if got := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{}) }); got != want {
		t.Errorf("human:\n%s\nwant:\n%s", got, want)
	}

	verbose := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{Verbose: true}) })
	contains(t, "verbose human", verbose,
		"pass  strings/passes [RESP2]\n",
		"skip  strings/skips [RESP2] (requires server valkey\n",
		"known strings/known #1 [RESP2] (known difference: valkey replies differently)\n",
		"FAIL  strings/fails [RESP2]\n      suite/strings.yaml:11:9 > \"SET\" \"k\" \"v\"\n        < \"+OK\\r\\n\"\n      suite/strings.yaml:13:9 > \"ECHO\"")

	color := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{Color: true}) })
	if !strings.HasPrefix(color, "\x1b[31mFAIL \x1b[0m strings/fails [RESP2]\n") || strings.Contains(want, "\x1b[") {
		t.Errorf("colour human:\n%q", color)
	}
}

// TestHumanCap: an escaped reply of more than 2,048 characters is cut
// there, saying how much was left out, when the first differing byte is
// unknown; else it is shown around that byte, a caret under it.
func TestHumanCap(t *testing.T) {
	big := "$5000\r\n" + strings.Repeat("x", 2990) + "y" + strings.Repeat("x", 2009) + "\r\n" // escaped: 5,015 characters
	for _, c := range []struct {
		offset     int
		got, caret string
	}{
		{-1, `"$5000\r\n` + strings.Repeat("x", 2048-len(`"$5000\r\n`)) + "…(2967 more characters)", ""},
		{5, `"$5000\r\n` + strings.Repeat("x", 69-7) + `" …(4940 more bytes)`, strings.Repeat(" ", 6) + "^ byte 5"},
		{2997, `…(2965 bytes) "` + strings.Repeat("x", 32) + "y" + strings.Repeat("x", 63) + `" …(1948 more bytes)`,
			strings.Repeat(" ", len("…(2965 bytes) ")-2+33) + "^ byte 2997"},
	} {
		rep := runReport(t)
		rep.Results[1].Failure.Actual = []byte(big)
		rep.Results[1].Failure.Offset = c.offset
		out := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{}) })
		lines := strings.Split(out, "\n")
		var got, caret string
		for i, l := range lines {
			if strings.HasPrefix(l, "       got: ") {
				got = strings.TrimPrefix(l, "       got: ")
				caret, _ = strings.CutPrefix(lines[i+1], "            ")
			}
		}
		if got != c.got {
			t.Errorf("offset %d: got line: %d characters %.40q...%q, want %q...%q", c.offset, len(got), got, got[max(0, len(got)-40):], c.got[:40], c.got[len(c.got)-40:])
		}
		if c.caret != "" && caret != c.caret {
			t.Errorf("offset %d: caret line %q, want %q", c.offset, caret, c.caret)
		}
	}
}

// TestHumanServerLost: results never run are one line, and the lost
// server is said.
func TestHumanServerLost(t *testing.T) {
	rep := runReport(t)
	rep.Results = rep.Results[:1]
	for range 3 {
		rep.Results = append(rep.Results, &runner.Result{Case: rep.Results[0].Case, Proto: 3, Status: runner.Error, NotRun: true, Reason: "not run: the server was lost"})
	}
	rep.ServerLost = errors.New("connection refused")
	out := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{}) })
	if !strings.HasPrefix(out, "3 results not run: the server was lost\nserver lost: connection refused\nredis 7.0.15") {
		t.Errorf("human:\n%s", out)
	}
}

// runJSON is JSONReport as it decodes: the statuses are text.
type runJSON struct {
	JSONReport
	Results []struct {
		JSONResult
		Status string `json:"status"`
	} `json:"results"`
}

// decodeStrict decodes the JSON document out into v, every field of out
// known to v.
func decodeStrict(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v\n%.2000s", err, out)
	}
}

func TestJSON(t *testing.T) {
	rep := runReport(t)
	big := strings.Repeat("y", 70<<10)
	rep.Results[5].Steps[0].Reply = []byte("$71680\r\n" + big + "\r\n")
	rep.Results[5].Steps[0].ReplySize = len(rep.Results[5].Steps[0].Reply)
	out := write(t, func(b *bytes.Buffer) error { return JSON(b, rep) })
	if err := schema.Check("run", []byte(out)); err != nil {
		t.Errorf("the run report does not match its schema: %v", err)
	}
	// The schema is a check: a status it does not know, or a byte field
	// that is neither a string nor {"base64": ...}, is refused.
	for _, bad := range []string{
		strings.Replace(out, `"status": "pass"`, `"status": "passed"`, 1),
		strings.Replace(out, `"reply": "+OK\r\n"`, `"reply": 5`, 1),
	} {
		if bad == out || schema.Check("run", []byte(bad)) == nil {
			t.Errorf("a broken report passes the schema (changed: %v)", bad != out)
		}
	}
	var got runJSON
	decodeStrict(t, out, &got)
	if got.Version != 1 || !reflect.DeepEqual(got.Server, rep.Server) || got.Summary != rep.Summary || got.DurationMS != 1500 ||
		!got.Started.Equal(rep.Started) || got.KeysRemoved != nil || got.DBSize != nil || got.ServerLost != "" {
		t.Errorf("header: %+v", got.JSONReport)
	}
	var statuses []string
	for _, r := range got.Results {
		statuses = append(statuses, r.Status)
	}
	if s := strings.Join(statuses, " "); s != "pass fail skip error known pass" {
		t.Errorf("statuses %s", s)
	}
	f := got.Results[1]
	if f.File != "suite/strings.yaml" || f.Case != "fails" || f.Pos != "suite/strings.yaml:9:11" || f.Proto != 2 || f.DurationMS != 3 ||
		f.Failure == nil || *f.Failure != (JSONFailure{Pos: "suite/strings.yaml:13:9", Message: "reply differs at byte 5", Expected: `"$3\r\nabc\r\n"`, Offset: 5}) {
		t.Errorf("failing result: %+v %+v", f.JSONResult, f.Failure)
	}
	if len(f.Steps) != 2 {
		t.Fatalf("failing result's steps: %+v", f.Steps)
	}
	s := f.Steps[1]
	if s.Pos != "suite/strings.yaml:13:9" || s.Conn != "default" || s.Action != "send" || len(s.Args) != 2 || string(s.Args[0]) != "ECHO" || string(s.Args[1]) != "a\x00b" ||
		string(s.Reply) != "$3\r\na\x00b\r\n" || s.ReplySize != 9 || !strings.Contains(string(s.Value), `"blob string"`) || s.ReplyTruncated {
		t.Errorf("failing step: %+v (value %s)", s, s.Value)
	}
	if !strings.Contains(out, `"status": "fail"`) {
		t.Error(`no "status": "fail" in the JSON`)
	}
	// A reply over 64 KiB keeps its start, its size and no value.
	l := got.Results[5].Steps[0]
	if !l.ReplyTruncated || l.Value != nil || l.ReplySize != 71690 || !strings.HasPrefix(string(l.Reply), "$71680\r\nyyy") || len(l.Reply) != 65536 {
		t.Errorf("big reply: truncated %v, size %d, %d characters, value %s", l.ReplyTruncated, l.ReplySize, len(l.Reply), l.Value)
	}

	// A shared run has its cleanup figures; a lost server its error.
	rep.DBSize, rep.KeysRemoved, rep.ServerLost = [2]int64{10, 12}, 7, errors.New("EOF")
	got = runJSON{}
	if err := json.Unmarshal([]byte(write(t, func(b *bytes.Buffer) error { return JSON(b, rep) })), &got); err != nil {
		t.Fatal(err)
	}
	if got.KeysRemoved == nil || *got.KeysRemoved != 7 || got.DBSize == nil || *got.DBSize != [2]int64{10, 12} || got.ServerLost != "EOF" {
		t.Errorf("shared run: keys removed %v, db size %v, server lost %q", got.KeysRemoved, got.DBSize, got.ServerLost)
	}
}

// xmlNode is any XML element, read without a schema of its own.
type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []xmlNode  `xml:",any"`
}

// attrs joins the values of the named attributes with "|", "-" standing
// for a missing one.
func (n *xmlNode) attrs(names ...string) string {
	var out []string
	for _, name := range names {
		v := "-"
		for _, a := range n.Attrs {
			if a.Name.Local == name {
				v = a.Value
			}
		}
		out = append(out, v)
	}
	return strings.Join(out, "|")
}

// kids returns the children called name.
func (n *xmlNode) kids(name string) []xmlNode {
	var out []xmlNode
	for _, k := range n.Kids {
		if k.XMLName.Local == name {
			out = append(out, k)
		}
	}
	return out
}

// kid returns the first child called name, or nil.
func (n *xmlNode) kid(name string) *xmlNode {
	if ks := n.kids(name); len(ks) > 0 {
		return &ks[0]
	}
	return nil
}

// counts are the attributes of <testsuites> and <testsuite>.
var counts = []string{"name", "tests", "failures", "errors", "skipped", "time"}

// readJUnit parses a JUnit document, checks the counts of <testsuites>
// (top, joined as by attrs) and the number of suites, and returns the
// suites.
func readJUnit(t *testing.T, out, top string, suites int) []xmlNode {
	t.Helper()
	if !strings.HasPrefix(out, xml.Header) {
		t.Errorf("no XML header: %.80q", out)
	}
	var d xmlNode
	if err := xml.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := d.attrs(counts...); d.XMLName.Local != "testsuites" || got != top {
		t.Errorf("<%s %s>, want <testsuites %s>", d.XMLName.Local, got, top)
	}
	ss := d.kids("testsuite")
	if len(ss) != suites {
		t.Fatalf("%d suites, want %d", len(ss), suites)
	}
	return ss
}

func TestJUnit(t *testing.T) {
	// One suite per file.
	suites := readJUnit(t, write(t, func(b *bytes.Buffer) error { return JUnit(b, runReport(t)) }),
		"respcheck redis 7.0.15|6|1|1|1|1.500", 2)
	if got := suites[0].attrs(counts...); got != "suite/strings.yaml|5|1|1|1|5.005" {
		t.Errorf("first suite %s", got)
	}
	if got := suites[1].attrs(counts...); got != "suite/lists.yaml|1|0|0|0|0.000" {
		t.Errorf("second suite %s", got)
	}
	cs := suites[0].kids("testcase")
	if len(cs) != 5 {
		t.Fatalf("%d cases", len(cs))
	}
	if got := cs[0].attrs("name", "classname", "file", "line", "time"); got != "passes [RESP2]|suite/strings.yaml|suite/strings.yaml|3|0.002" || len(cs[0].Kids) != 0 {
		t.Errorf("passing case %s %+v", got, cs[0].Kids)
	}
	wantBody := "suite/strings.yaml:13:9: reply differs at byte 5\nwant: \"$3\\r\\nabc\\r\\n\"\n      \"abc\"\n got: \"$3\\r\\na\\x00b\\r\\n\"\n      \"a\\x00b\"\n"
	if f := cs[1].kid("failure"); f == nil || f.attrs("message", "type") != "reply differs at byte 5|mismatch" || f.Text != wantBody {
		t.Errorf("failure %+v, want body %q", f, wantBody)
	}
	if sk := cs[2].kid("skipped"); sk == nil || sk.attrs("message", "type") != "requires server valkey\n(this is redis)|-" {
		t.Errorf("skipped %+v", sk)
	}
	if e := cs[3].kid("error"); e == nil || e.attrs("message", "type") != "read: i/o timeout|error" {
		t.Errorf("error %+v", e)
	}
	if so := cs[4].kid("system-out"); so == nil || so.Text != "known difference: valkey replies differently" || len(cs[4].Kids) != 1 {
		t.Errorf("known difference %+v", cs[4])
	}
	// Without results the counts are still there, errors too.
	empty := runReport(t)
	empty.Results, empty.Duration = nil, 0
	readJUnit(t, write(t, func(b *bytes.Buffer) error { return JUnit(b, empty) }), "respcheck redis 7.0.15|0|0|0|0|0.000", 0)
}

func TestTAP(t *testing.T) {
	const want = `TAP version 13
1..6
ok 1 - strings/passes [RESP2]
not ok 2 - strings/fails [RESP2]
  ---
  status: fail
  message: "reply differs at byte 5"
  at: "suite/strings.yaml:13:9"
  wanted: "\"$3\\r\\nabc\\r\\n\""
  found: "\"$3\\r\\na\\x00b\\r\\n\""
  ...
ok 3 - strings/skips [RESP2] # SKIP requires server valkey (this is redis)
not ok 4 - strings/errors [RESP2]
  ---
  status: error
  message: "read: i/o timeout"
  ...
not ok 5 - strings/known \#1 [RESP2] # TODO known difference: valkey replies differently
ok 6 - lists/LPUSH [RESP2]
`
	if got := write(t, func(b *bytes.Buffer) error { return TAP(b, runReport(t)) }); got != want {
		t.Errorf("tap:\n%s\nwant:\n%s", got, want)
	}
}

// TestJSONDecodes checks that the JSON reports decode into their own types
// (statuses, verdicts and directions from their names), as respcheck
// report reads them, and that an unknown name is an error.
func TestJSONDecodes(t *testing.T) {
	rep, crep := runReport(t), clientsReport(t)
	var got JSONReport
	decodeStrict(t, write(t, func(b *bytes.Buffer) error { return JSON(b, rep) }), &got)
	if len(got.Results) != len(rep.Results) {
		t.Fatalf("%d results, want %d", len(got.Results), len(rep.Results))
	}
	for i, r := range got.Results {
		if r.Status != rep.Results[i].Status {
			t.Errorf("result %d: status %v, want %v", i, r.Status, rep.Results[i].Status)
		}
	}
	var cgot ClientsJSONReport
	decodeStrict(t, write(t, func(b *bytes.Buffer) error { return ClientsJSON(b, crep) }), &cgot)
	if cgot.Worst != crep.Worst() || len(cgot.Results) != len(crep.Results) || cgot.Results[1].Verdict != crep.Results[1].Verdict ||
		len(cgot.Results[1].Wire) == 0 || cgot.Results[1].Wire[0].Frames[0].Dir != clients.ToServer {
		t.Errorf("clients report decoded as %+v", cgot)
	}
	var s runner.Status
	var v clients.Verdict
	var d clients.Dir
	if s.UnmarshalText([]byte("passed")) == nil || v.UnmarshalText([]byte("ok")) == nil || d.UnmarshalText([]byte("up")) == nil {
		t.Error("an unknown status, verdict or direction decoded")
	}
}

// TestHumanVeryVerbose: with VeryVerbose a passing case shows every step,
// the command sent and the reply's bytes; with Verbose alone, its line.
func TestHumanVeryVerbose(t *testing.T) {
	rep := runReport(t)
	vv := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{VeryVerbose: true}) })
	contains(t, "very verbose human", vv,
		"pass  strings/passes [RESP2]\n      suite/strings.yaml:",
		"> \"SET\" \"k\" \"v\"\n        < \"+OK\\r\\n\"\n",
		"> \"GET\" \"k\"\n        < \"$1\\r\\nv\\r\\n\"\n",
		"skip  strings/skips [RESP2]")
	v := write(t, func(b *bytes.Buffer) error { return Human(b, rep, HumanOptions{Verbose: true}) })
	if i := strings.Index(v, "pass  strings/passes [RESP2]\n"); i < 0 || strings.HasPrefix(v[i+len("pass  strings/passes [RESP2]\n"):], "      ") {
		t.Errorf("verbose shows a passing case's steps:\n%s", v)
	}
}
