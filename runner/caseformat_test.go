package runner_test

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// runFormat runs the inline case file src, loaded with opts, against a
// throwaway server of build, and fails the test for every result that is
// neither a pass nor a skip.
func runFormat(t *testing.T, build, src string, opts cases.Options) *runner.Report {
	t.Helper()
	f, err := cases.LoadWith("inline.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	rep := run(t, servers.ForTest(t, build).Addr(), []*cases.File{f}, runner.Options{})
	if rep.Summary.Passed == 0 {
		t.Errorf("nothing passed: %+v", rep.Summary)
	}
	for _, r := range rep.Results {
		if r.Status != runner.Pass && r.Status != runner.Skip {
			t.Errorf("%s [RESP%d]: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	return rep
}

func TestVariablesOnAServer(t *testing.T) {
	t.Setenv("RESPCHECK_TEST_OWNER", "ann")
	runFormat(t, "redis-8.6.3", `
suite: variables
cases:
  - name: var and env in sends and replies
    steps:
      - send: [SET, "{key}", "{var:host}:{env:RESPCHECK_TEST_OWNER}"]
        reply: "+OK\r\n"
      - send: [GET, "{key}"]
        reply: "${len:{var:host}:{env:RESPCHECK_TEST_OWNER}}\r\n{var:host}:{env:RESPCHECK_TEST_OWNER}\r\n"
      - send: [GET, "{key}"]
        value: "db-1:ann"
`, cases.Options{Vars: map[string]string{"host": "db-1"}})
}

func TestVerbatimFormatAndText(t *testing.T) {
	const src = `
suite: verbatim
cases:
  - name: format and text apart
    requires: {proto: 3, debug: true}
    steps:
      - send: [DEBUG, PROTOCOL, verbatim]
        value: {verbatim: {format: txt, text: "This is a verbatim\nstring"}}
      - send: [DEBUG, PROTOCOL, verbatim]
        value: {verbatim: {text: "This is a verbatim\nstring"}}
      - send: [DEBUG, PROTOCOL, verbatim]
        value: {verbatim: {format: txt}}
      - send: [INFO, server]
        value: {verbatim: {format: txt, match: '^# Server\r\n'}}
`
	runFormat(t, "redis-8.6.3", src, cases.Options{})
	f, err := cases.Load("inline.yaml", []byte(`
suite: verbatim
cases:
  - name: wrong format
    requires: {proto: 3}
    steps:
      - send: [INFO, server]
        value: {verbatim: {format: mkd, match: '^# Server'}}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, servers.ForTest(t, "valkey-9.1.2").Addr(), []*cases.File{f}, runner.Options{Protos: []int{3}})
	if r := result(t, rep, "wrong format", 3); r.Status != runner.Fail || !strings.Contains(r.Reason, `want format "mkd", got "txt"`) {
		t.Errorf("wrong format: %s %q", r.Status, r.Reason)
	}
}
