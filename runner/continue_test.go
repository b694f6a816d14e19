package runner_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/report"
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
		if !strings.Contains(out, "inline.yaml:7:") || !strings.Contains(out, "inline.yaml:9:") {
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
		if r.Case == "goes on" && (r.Failure == nil || len(r.MoreFailures) != 1 || !strings.HasPrefix(r.MoreFailures[0].Pos, "inline.yaml:9:")) {
			t.Errorf("JSON: failure %+v, more %+v; want the INCR step in more_failures", r.Failure, r.MoreFailures)
		}
	}
}
