package runner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/report/schema"
)

// TestContinueOnFailure: a continue_on_failure case runs every step after
// one fails (the later SET still writes, the GET reads it), keeps each
// failure in order (Failure, then More), runs its cleanup, and the human,
// JSON, TAP and JUnit reports name every failing step; the same case
// without it ends at its first failure, as before.
func TestContinueOnFailure(t *testing.T) {
	const src = `suite: t
cases:
  - name: goes on
    continue_on_failure: true
    steps:
      - {send: [SET, k, v1], reply: "+OK\r\n"}
      - {send: [GET, k], reply: "$2\r\nno\r\n"}
      - {send: [SET, k, v2], reply: "+OK\r\n"}
      - {send: [INCR, k], reply: ":1\r\n"}
      - {send: [GET, k], reply: "$2\r\nv2\r\n"}
    cleanup:
      - {send: [DEL, k], reply: ":1\r\n"}
  - name: stops
    steps:
      - {send: [SET, k, v1], reply: "+OK\r\n"}
      - {send: [GET, k], reply: "$2\r\nno\r\n"}
      - {send: [SET, k, v2], reply: "+OK\r\n"}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Protos: []int{2}})
	goes := result(t, rep, "goes on", 2)
	if goes.Status != runner.Fail || goes.Failure == nil || len(goes.More) != 1 || len(goes.Steps) != 6 {
		t.Fatalf("goes on: %s %q, %d more, %d steps run; want a failure, 1 more, 6 steps (5 and the cleanup)", goes.Status, goes.Reason, len(goes.More), len(goes.Steps))
	}
	if l1, l2 := goes.Failure.Step.Pos.Line, goes.More[0].Step.Pos.Line; l1 != 7 || l2 != 9 {
		t.Errorf("failures at lines %d and %d, want 7 (GET) and 9 (INCR)", l1, l2)
	}
	if got := string(goes.Steps[4].Reply); got != "$2\r\nv2\r\n" {
		t.Errorf("the last GET read %q: the steps after the failures did not run as written", got)
	}
	if got := string(goes.Steps[5].Reply); got != ":1\r\n" {
		t.Errorf("the cleanup's DEL read %q", got)
	}
	wantDiffs := []runner.Difference{
		{Command: "GET", Kind: "blob string, another value", Count: 1, First: goes.Failure.Where().String()},
		{Command: "INCR", Kind: "integer → simple error", Count: 1, First: goes.More[0].Where().String()},
	}
	if d := goes.Differences(); !slices.Equal(d, wantDiffs) {
		t.Errorf("differences %+v, want %+v", d, wantDiffs)
	}
	stops := result(t, rep, "stops", 2)
	if stops.Status != runner.Fail || len(stops.Steps) != 2 || stops.More != nil {
		t.Errorf("stops: %s, %d steps, %d more; want the case to end at its first failure", stops.Status, len(stops.Steps), len(stops.More))
	}

	var human, js, tap, junit bytes.Buffer
	for _, err := range []error{report.Human(&human, rep, report.HumanOptions{}), report.JSON(&js, rep), report.TAP(&tap, rep), report.JUnit(&junit, rep)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range map[string]string{"human": human.String(), "tap": tap.String(), "junit": junit.String()} {
		if !strings.Contains(out, "inline.yaml:7:") || !strings.Contains(out, "inline.yaml:9:") || name == "human" && !strings.Contains(out, "1× INCR: integer → simple error") {
			t.Errorf("the %s report does not name both failing steps (lines 7 and 9):\n%s", name, out)
		}
	}
	var doc struct {
		Results []report.JSONResult `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Results {
		if r.Case == "goes on" && (r.Failure == nil || len(r.MoreFailures) != 1 || !strings.HasPrefix(r.MoreFailures[0].Pos, "inline.yaml:9:") || !slices.Equal(r.Differences, wantDiffs)) {
			t.Errorf("JSON: failure %+v, more %+v; want the INCR step in more_failures", r.Failure, r.MoreFailures)
		}
	}
}

// TestContinueOnFailureManyFailures: the human report writes the first
// ten failures of a case that goes on, says how many more there are, and
// groups all of them; the JSON report keeps every one.
func TestContinueOnFailureManyFailures(t *testing.T) {
	var src strings.Builder
	src.WriteString("suite: t\ncases:\n  - name: many\n    continue_on_failure: true\n    steps:\n")
	for i := range 25 {
		if i%5 == 4 {
			fmt.Fprintf(&src, "      - {send: [ECHO, e%d], reply: \"$2\\r\\nno\\r\\n\"}\n", i)
			continue
		}
		fmt.Fprintf(&src, "      - {send: [SET, k, v%d, BADARG], reply: \"+OK\\r\\n\"}\n", i)
	}
	rep := runInline(t, "redis-8.6.3", src.String(), runner.Options{Protos: []int{2}})
	res := result(t, rep, "many", 2)
	if len(res.More) != 24 {
		t.Fatalf("%d more failures, want 24", len(res.More))
	}
	want := []runner.Difference{
		{Command: "SET", Kind: "simple string → simple error", Count: 20, First: res.Failure.Where().String()},
		{Command: "ECHO", Kind: "blob string, another value", Count: 5, First: res.More[3].Where().String()},
	}
	if d := res.Differences(); !slices.Equal(d, want) {
		t.Errorf("differences %+v, want %+v", d, want)
	}
	var human, js bytes.Buffer
	if err := report.Human(&human, rep, report.HumanOptions{}); err != nil {
		t.Fatal(err)
	}
	out := human.String()
	for _, w := range []string{"… 15 more failing steps", "25 failing steps, by command and kind:", "20× SET: simple string → simple error", "5× ECHO: blob string, another value"} {
		if !strings.Contains(out, w) {
			t.Errorf("the human report lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "want: "); n != 10 {
		t.Errorf("the human report writes %d failures out, want 10:\n%s", n, out)
	}
	if err := report.JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := schema.Check("run", js.Bytes()); err != nil {
		t.Errorf("the JSON report does not meet run.schema.json: %v", err)
	}
	if n := strings.Count(js.String(), `"message"`); n != 25 {
		t.Errorf("the JSON report holds %d failures, want 25", n)
	}
}

// TestContinueOnFailureEdges: in a continue_on_failure case the failures
// before a step that errs stay reported beside the error; a replies: step
// whose first reply differs still reads its others (the next step reads
// its own); replies over the 1 MiB kept are grouped by message, not as
// "invalid" (found by a review).
func TestContinueOnFailureEdges(t *testing.T) {
	big := 1_200_000
	src := fmt.Sprintf(`suite: t
cases:
  - name: errs
    continue_on_failure: true
    steps:
      - {send: [GET, k], reply: "$2\r\nno\r\n"}
      - {send: [INCR, k], reply: ":2\r\n"}
      - {send: [BLPOP, l, "0"], timeout: 300ms, reply: "*-1\r\n"}
  - name: replies
    continue_on_failure: true
    steps:
      - send: [SUBSCRIBE, a, b]
        replies: [{reply: "*3\r\n$9\r\nsubscribe\r\n$1\r\nX\r\n:1\r\n"}, {reply: "*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"}]
      - send: [UNSUBSCRIBE, a, b]
        replies: [{reply: "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n"}, {reply: "*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n"}]
      - {send: [PING], reply: "+PONG\r\n"}
  - name: long
    continue_on_failure: true
    steps:
      - {send: [SET, k, "%s"], reply: "+OK\r\n"}
      - {send: [GET, k], reply: "$%d\r\n%s\r\n"}
      - {send: [GET, k], reply: "$1\r\nx\r\n"}
`, strings.Repeat("a", big), big, strings.Repeat("b", big))
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Protos: []int{2}})
	errs := result(t, rep, "errs", 2)
	if errs.Status != runner.Error || errs.Failure == nil || errs.Failure.Step.Pos.Line != 6 || len(errs.More) != 1 || errs.More[0].Step.Pos.Line != 7 {
		t.Errorf("errs: %s %q, failure %v, %d more; want an error with the GET and INCR failures kept", errs.Status, errs.Reason, errs.Failure, len(errs.More))
	}
	replies := result(t, rep, "replies", 2)
	if replies.Status != runner.Fail || replies.Failure == nil || len(replies.More) != 0 {
		t.Errorf("replies: %s %q, %d more; want SUBSCRIBE's first reply alone to fail", replies.Status, replies.Reason, len(replies.More))
	}
	long := result(t, rep, "long", 2)
	d := long.Differences()
	if len(d) != 1 || d[0].Count != 2 || strings.Contains(d[0].Kind, "invalid") {
		t.Errorf("long: differences %+v, want the two GETs grouped as blob strings that differ", d)
	}
}

// goldenAt is a GoldenChecker whose golden differs at line N only.
type goldenAt int

func (g goldenAt) CheckStep(s runner.GoldenStep) *runner.Failure {
	if s.Step.Pos.Line == int(g) {
		return &runner.Failure{Offset: -1, Expected: "golden", Actual: []byte("x"), Message: "differs from the golden"}
	}
	return nil
}

// TestGoldenOnlyDoesNotCarryOver: a step that fails without being judged
// against its golden (a replies: step) after one whose golden alone
// differed is a failure of its own, reported (it was taken for a
// golden-only one and lost; found by a review).
func TestGoldenOnlyDoesNotCarryOver(t *testing.T) {
	const src = `suite: t
cases:
  - name: golden then replies
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
      - send: [SUBSCRIBE, a, b]
        replies: [{reply: "*3\r\n$9\r\nsubscribe\r\n$1\r\nX\r\n:1\r\n"}, {reply: "*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"}]
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Protos: []int{2}, Golden: goldenAt(5)})
	res := result(t, rep, "golden then replies", 2)
	if res.Status != runner.Fail || res.Failure == nil || res.Failure.Step.Pos.Line != 6 {
		t.Errorf("%s %q: want the SUBSCRIBE step's failure (line 6) reported", res.Status, res.Reason)
	}
}

// TestRefusalAfterAFailureIsAFailure: on a shared server, a step the
// guard refuses after steps whose replies differed leaves the case
// failed, with those failures and the refusal in its reason, not skipped
// (a replayed capture with a SUBSCRIBE was reported skipped, exit 0,
// with five replies that differed); refused with nothing failed before
// it, the case is skipped as before.
func TestRefusalAfterAFailureIsAFailure(t *testing.T) {
	const src = `suite: t
cases:
  - name: differs, then refused
    continue_on_failure: true
    literal_keys: true # else the channel is moved into the namespace
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$1\r\nx\r\n"}
      - {send: [STRLEN, "{key}"], reply: ":5\r\n"}
      - {send: [SUBSCRIBE, ch], reply: "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"}
  - name: refused alone
    continue_on_failure: true
    literal_keys: true
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [SUBSCRIBE, ch], reply: "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	r := result(t, rep, "differs, then refused", 2)
	if r.Status != runner.Fail || r.Failure == nil || r.Failure.Step.Pos.Line != 8 || len(r.More) != 1 || r.More[0].Step.Pos.Line != 9 ||
		!strings.Contains(r.Reason, "--allow-destructive runs it") {
		t.Errorf("differs, then refused: %s %q, failure %v, %d more; want a failure at the GET and the STRLEN, the refusal in its reason", r.Status, r.Reason, r.Failure, len(r.More))
	}
	if r := result(t, rep, "refused alone", 2); r.Status != runner.Skip || r.Failure != nil {
		t.Errorf("refused alone: %s %q, want a skip", r.Status, r.Reason)
	}
	if rep.Summary.Failed != 1 || rep.Summary.Skipped != 1 {
		t.Errorf("summary %+v, want 1 failed and 1 skipped", rep.Summary)
	}
}

// TestUnorderedFailuresGroup: failures of typed values in any order (a
// capture's SMEMBERS) are grouped by how they differ, not by the members
// they name: 30 differing sets were 30 groups (found by a review,
// 2026-12-07).
func TestUnorderedFailuresGroup(t *testing.T) {
	var src strings.Builder
	src.WriteString("suite: t\ncases:\n  - name: sets\n    continue_on_failure: true\n    steps:\n")
	for i := range 6 {
		fmt.Fprintf(&src, "      - {send: [SADD, \"{key:s%d}\", a%d, b%d]}\n", i, i, i)
		switch i % 3 {
		case 0: // another member
			fmt.Fprintf(&src, "      - {send: [SMEMBERS, \"{key:s%d}\"], value: {array_unordered: [{blob: x%d}, {blob: b%d}]}}\n", i, i, i)
		case 1: // one member fewer expected
			fmt.Fprintf(&src, "      - {send: [SMEMBERS, \"{key:s%d}\"], value: {array_unordered: [{blob: b%d}]}}\n", i, i)
		case 2: // in another order: passes
			fmt.Fprintf(&src, "      - {send: [SMEMBERS, \"{key:s%d}\"], value: {array_unordered: [{blob: b%d}, {blob: a%d}]}}\n", i, i, i)
		}
	}
	rep := runInline(t, "redis-8.6.3", src.String(), runner.Options{Protos: []int{2}})
	res := result(t, rep, "sets", 2)
	want := []runner.Difference{
		{Command: "SMEMBERS", Kind: "other elements", Count: 2, First: res.Failure.Where().String()},
		{Command: "SMEMBERS", Kind: "another number of elements", Count: 2, First: res.More[0].Where().String()},
	}
	if d := res.Differences(); !slices.Equal(d, want) {
		t.Errorf("differences %+v, want %+v", d, want)
	}
	if !strings.Contains(res.More[0].Message, `want 1 elements, got 2: only in the expectation: none; only in the reply: blob string "a1"`) {
		t.Errorf("the count's message does not name the member: %s", res.More[0].Message)
	}
}

// TestReadFailuresNameTheirCommand: a failing read step is grouped under
// the async command whose reply it read, not under "read" (a capture's
// replay on another server grouped every overtaken command's failure so;
// found by a review, 2026-12-07).
func TestReadFailuresNameTheirCommand(t *testing.T) {
	src := `suite: t
cases:
  - name: reads
    continue_on_failure: true
    steps:
      - {conn: a, send: [SET, "{key:k}", v], async: true}
      - {conn: a, send: [OBJECT, ENCODING, "{key:k}"], async: true}
      - {conn: b, send: [PING]}
      - {conn: a, read: true, reply: "+NO\r\n"}
      - {conn: a, read: true, reply: "+raw\r\n"}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Protos: []int{2}})
	res := result(t, rep, "reads", 2)
	var got []string
	for _, d := range res.Differences() {
		got = append(got, d.Command+": "+d.Kind)
	}
	if want := []string{"SET: simple string, another value", "OBJECT ENCODING: simple string → blob string"}; !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
}
