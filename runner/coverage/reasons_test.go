package coverage

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/golden"
)

// TestReasons: an entry the bundled suite leaves out on purpose carries
// its reason in the report (and the human output lists it); an entry
// simply not covered yet, or one a case sends, carries none.
func TestReasons(t *testing.T) {
	if reason("SHUTDOWN") == "" || reason("CLUSTER MEET") == "" || reason("CLUSTER INFO") != "" || reason("GET") != "" {
		t.Errorf("reason: SHUTDOWN %q, CLUSTER MEET %q, CLUSTER INFO %q, GET %q",
			reason("SHUTDOWN"), reason("CLUSTER MEET"), reason("CLUSTER INFO"), reason("GET"))
	}
	docs := []Command{{Name: "SHUTDOWN", Group: "server"}, {Name: "GET", Group: "string"}, {Name: "CLUSTER", Container: true},
		{Name: "CLUSTER INFO", Group: "cluster"}}
	rep := MeasureGolden("redis 8.6.3", docs, userGolden("GET"))
	for _, r := range rep.Rows {
		if want := r.Name == "SHUTDOWN"; (r.Reason != "") != want {
			t.Errorf("%s: reason %q", r.Name, r.Reason)
		}
	}
	var b bytes.Buffer
	if err := WriteHuman(&b, rep, false); err != nil || !strings.Contains(b.String(), "not sent on purpose:\n  SHUTDOWN: stops the server") {
		t.Errorf("human: %v\n%s", err, b.String())
	}
}

// userGolden is a golden directory of one case that sends cmd.
func userGolden(cmd string) *golden.Dir {
	st := &golden.Step{Sent: &golden.Blob{Data: []byte("*1\r\n$" + strconv.Itoa(len(cmd)) + "\r\n" + cmd + "\r\n")}}
	f := &golden.File{Path: "a.yaml", Cases: []*golden.Case{{Name: "c", Proto: 2, Steps: []*golden.Step{st}}}}
	return &golden.Dir{Files: map[string]*golden.File{"a": f}}
}
