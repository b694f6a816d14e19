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

func TestLooseValuesOnAServer(t *testing.T) {
	runFormat(t, "valkey-8.0.1", `
suite: loose
cases:
  - name: a string whatever its kind
    steps:
      - send: [SET, "{key}", OK]
        value: {string: OK}
      - send: [GET, "{key}"]
        value: {string: OK}
      - send: [CLIENT, INFO]
        value: {match: 'resp='}
  - name: any nil
    steps:
      - send: [GET, "{key:missing}"]
        value: {nil: any}
      - send: [BLPOP, "{key:none}", "0.01"]
        value: {nil: any}
  - name: numbers within a tolerance
    steps:
      - send: [ZADD, "{key:z}", "0.1", m]
      - send: [ZINCRBY, "{key:z}", "0.2", m]
        value: {double: "0.3", within: 1e-9}
      - send: [ZSCORE, "{key:z}", m]
        value: {double: "0.3", within: "0.001%"}
      - send: [INCRBYFLOAT, "{key:f}", "2.5"]
        value: {double: "2.5", within: 0}
      - send: [ZCARD, "{key:z}"]
        value: {double: "1.01", within: "1%"}
  - name: one of several expectations
    steps:
      - send: [RPUSH, "{key:l}", a]
      - send: [GET, "{key:l}"]
        one_of: [{value: a}, {error_code: WRONGTYPE}]
      - send: [LPOP, "{key:l}"]
        one_of: [{reply: "$1\r\na\r\n"}, {value: {array: [a]}}]
`, cases.Options{})
	f, err := cases.Load("inline.yaml", []byte(`
suite: loose
cases:
  - name: outside the tolerance
    steps:
      - send: [INCRBYFLOAT, "{key}", "2.5"]
        value: {double: "2.4", within: "1%"}
  - name: none of them
    steps:
      - send: [PING]
        one_of: [{value: {string: PING}}, {error_code: ERR}]
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, servers.ForTest(t, "redis-8.6.3").Addr(), []*cases.File{f}, runner.Options{Protos: []int{3}})
	for name, want := range map[string]string{
		"outside the tolerance": `want a number within 1% of 2.4, got blob string "2.5"`,
		"none of them":          `none of 2 expectations matches (the last: want an error, got simple string)`,
	} {
		if r := result(t, rep, name, 3); r.Status != runner.Fail || !strings.Contains(r.Reason, want) {
			t.Errorf("%s: %s %q, want a failure saying %q", name, r.Status, r.Reason, want)
		}
	}
}

// TestSinceAcrossFamilies: since: compares INFO's redis_version, which
// Valkey 8.0.1 and 9.1.2 report as 7.2.4.
func TestSinceAcrossFamilies(t *testing.T) {
	f, err := cases.Load("inline.yaml", []byte(`
suite: since
cases:
  - name: since 6.2
    requires: {since: "6.2"}
    steps:
      - send: [GETDEL, "{key}"]
        value: {nil: any}
  - name: since 7.4
    requires: {since: "7.4"}
    steps:
      - send: [HEXPIRE, "{key}", "10", FIELDS, "1", f]
  - name: redis_version in a selector
    steps:
      - send: [PING]
        reply: {"redis_version>=7.2": "+PONG\r\n"}
`))
	if err != nil {
		t.Fatal(err)
	}
	for build, want7_4 := range map[string]string{
		"valkey-8.0.1": "requires redis_version>=7.4 (server is valkey 8.0.1, redis_version 7.2.4)",
		"redis-7.0.15": "requires redis_version>=7.4 (server is redis 7.0.15, redis_version 7.0.15)",
		"redis-8.6.3":  "",
	} {
		rep := run(t, servers.ForTest(t, build).Addr(), []*cases.File{f}, runner.Options{Protos: []int{2}})
		if r := result(t, rep, "since 6.2", 2); r.Status != runner.Pass {
			t.Errorf("%s: since 6.2: %s %s", build, r.Status, r.Reason)
		}
		r := result(t, rep, "since 7.4", 2)
		if want7_4 == "" && r.Status != runner.Pass || want7_4 != "" && (r.Status != runner.Skip || r.Reason != want7_4) {
			t.Errorf("%s: since 7.4: %s %q, want %q", build, r.Status, r.Reason, want7_4)
		}
		sel := result(t, rep, "redis_version in a selector", 2)
		if wantPass := build != "redis-7.0.15"; (sel.Status == runner.Pass) != wantPass {
			t.Errorf("%s: redis_version>=7.2 selector: %s %s", build, sel.Status, sel.Reason)
		}
	}
}

// TestSilentRepliesOnAServer: no reply, a close by the server, several
// replies to one write, and a later step on a closed connection's name
// opening a new one.
func TestSilentRepliesOnAServer(t *testing.T) {
	runFormat(t, "redis-7.0.15", `
suite: silent
cases:
  - name: an empty line gets nothing, a protocol error closes
    steps:
      - raw: "\r\n"
        expect: no reply within 50ms
      - raw: "PING\r\nECHO two\r\n*1\r\n$x\r\n"
        replies: [{reply: "+PONG\r\n"}, {value: two}, {error: "ERR Protocol error: invalid bulk length"}, closed]
      - send: [PING]
        reply: "+PONG\r\n"
  - name: a list of variants with a silent one
    steps:
      - raw: "*-5\r\n"
        expect: [{when: redis, expect: no reply within 50ms}, {error_code: ERR}]
`, cases.Options{})
	f, err := cases.Load("inline.yaml", []byte(`
suite: silent
cases:
  - name: still open
    steps:
      - send: [PING]
        async: true
      - read: true
        reply: "+PONG\r\n"
      - raw: "\r\n"
        expect: closed within 100ms
  - name: a reply where none was expected
    steps:
      - raw: "PING\r\n"
        expect: no reply within 1s
  - name: the second reply differs
    steps:
      - raw: "PING\r\nPING\r\n"
        replies: [{reply: "+PONG\r\n"}, {reply: "+PING\r\n"}]
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, servers.ForTest(t, "valkey-9.1.2").Addr(), []*cases.File{f}, runner.Options{Protos: []int{2}})
	for name, want := range map[string]string{
		"still open":                      "the connection is still open after 100ms",
		"a reply where none was expected": "want no reply within 1s, got simple string",
		"the second reply differs":        "reply 2 of 2: reply differs at byte 2",
	} {
		if r := result(t, rep, name, 2); r.Status != runner.Fail || !strings.Contains(r.Reason, want) {
			t.Errorf("%s: %s %q, want a failure saying %q", name, r.Status, r.Reason, want)
		}
	}
}
