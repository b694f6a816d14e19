package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestSilentStepSkipsTheCase runs a case whose send expects no reply
// (CLIENT REPLY OFF, then a SET the server does not answer) through the Go
// libraries: a skip that names the step, never a hang blamed on the
// library (every library was judged H before); a case beside it still
// runs and is judged.
func TestSilentStepSkipsTheCase(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("silent.yaml", []byte(`suite: silent
cases:
  - name: CLIENT REPLY OFF silences the connection
    steps:
      - {send: [CLIENT, REPLY, "OFF"], expect: no reply within 100ms}
      - {send: [SET, "{key}", v], expect: no reply within 100ms}
  - name: a reply
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver, redigoDriver}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		silent := strings.HasPrefix(res.Case.Name, "CLIENT REPLY OFF")
		switch {
		case silent && (res.Verdict != Skip || !strings.Contains(res.Reason, "silent.yaml:5:") || !strings.Contains(res.Reason, "expects no reply")):
			t.Errorf("%s: %s %q, want a skip naming silent.yaml:5", res.Client, res.Verdict, res.Reason)
		case !silent && (res.Verdict == Skip || res.Verdict.Finding()):
			t.Errorf("%s %s: %s %q", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
	}
}

// TestClosedStepDoesNotSkipTheCase runs a case whose last send expects
// the connection closed (CLIENT KILL ID of the case's own "victim"
// connection, then a PING on it) through the Go libraries: a library
// call on a closed connection returns at once (EOF, or a reconnection),
// it does not wait as a call after CLIENT REPLY OFF does, so the case is
// run and its other steps are judged (they were, before such cases were
// skipped whole).
func TestClosedStepDoesNotSkipTheCase(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("closed.yaml", []byte(`suite: closed
cases:
  - name: CLIENT KILL ID closes the victim
    steps:
      - {conn: victim, send: [CLIENT, ID], capture: vid}
      - {send: [CLIENT, KILL, ID, "{cap:vid}"], reply: ":1\r\n"}
      - {conn: victim, send: [PING], expect: closed}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver, redigoDriver}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict == Skip || res.Verdict.Finding() {
			t.Errorf("%s: %s %q, want the case judged; steps:%s", res.Client, res.Verdict, res.Reason, stepsText(res.Steps))
			continue
		}
		if len(res.Steps) < 2 || res.Steps[1].Verdict == Skip {
			t.Errorf("%s: CLIENT KILL ID was not judged: %+v", res.Client, res.Steps)
		}
	}
}

// stepsText is a failure message's account of steps: each step's line,
// command, verdict, notes and what the library gave.
func stepsText(steps []StepView) string {
	var b strings.Builder
	for _, sv := range steps {
		fmt.Fprintf(&b, "\n  line %d %s: %s %v native %v canary %q", sv.Step.Pos.Line, resp.EscapeCommand(sv.Args), sv.Verdict, sv.Notes, sv.Native, sv.Canary)
	}
	return b.String()
}
