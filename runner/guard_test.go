package runner_test

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestSharedGuardRefusesEscapes runs cases that try to reach data that is
// not the run's against a shared server holding other keys: every one is
// refused before the offending step is sent, and the other data is intact.
// The cases that name keys literally say literal_keys: true (otherwise
// their keys would be moved into their namespace, TestLiteralKeysShared).
func TestSharedGuardRefusesEscapes(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c := dialRaw(t, srv.Addr())
	for i := 1; i <= 8; i++ {
		c.do(t, "SET", "user:"+string(rune('0'+i)), "theirs")
	}
	c.do(t, "SELECT", "3")
	c.do(t, "SET", "db3key", "theirs")
	c.do(t, "SELECT", "0")
	digest := string(c.do(t, "DEBUG", "DIGEST").Str)
	samples := c.do(t, "CONFIG", "GET", "maxmemory-samples").Elems[1].Str
	files := load(t, `
suite: escapes
cases:
  - name: raw RESP array DEL
    literal_keys: true
    steps: [{raw: "*2\r\n$3\r\nDEL\r\n$6\r\nuser:1\r\n", reply: ":1\r\n"}]
  - name: templated subcommand CONFIG SET
    steps: [{send: [CONFIG, "{hex:534554}", maxmemory-samples, "7"], reply: "+OK\r\n"}]
  - name: templated command name
    literal_keys: true
    steps: [{send: ["{hex:44454c}", "user:2"], reply: ":1\r\n"}]
  - name: SELECT then write elsewhere
    steps: [{send: [SELECT, "3"]}, {send: [SET, "{key}", leaked]}]
  - name: COPY to another database
    steps: [{send: [SET, "{key}", v]}, {send: [COPY, "{key}", "{key}", DB, "4"]}]
  - name: RENAME to a key that is not the run's
    literal_keys: true
    steps: [{send: [SET, "{key}", v]}, {send: [RENAME, "{key}", "user:3"]}]
  - name: Lua with a concatenated command name
    steps: [{send: [EVAL, "return redis.call('DE'..'L', 'user:4')", "0"]}]
  - name: Lua with a command from ARGV
    steps: [{send: [EVAL, "return redis.call(ARGV[1], ARGV[2])", "0", DEL, "user:5"]}]
  - name: Lua with a literal key
    steps: [{send: [EVAL, "return redis.call('SET', 'user:8', 'pwned')", "0"]}]
  - name: inline raw with a second command
    literal_keys: true
    steps: [{raw: "PING\r\nDEL user:6\r\n", reply: "+PONG\r\n"}]
  - name: SORT STORE into a key that is not the run's
    literal_keys: true
    steps: [{send: [RPUSH, "{key}", "1"]}, {send: [SORT, "{key}", STORE, "user:7"]}]
  - name: SCAN over every key
    literal_keys: true
    steps: [{send: [SCAN, "0", COUNT, "1000"], any: true}]
  - name: raw RESP array CONFIG SET
    steps: [{raw: "*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$17\r\nmaxmemory-samples\r\n$1\r\n9\r\n", reply: "+OK\r\n"}]
  - name: allowed, in the namespace
    steps:
      - {send: [SET, "{key:a}", v], reply: "+OK\r\n"}
      - {send: [RENAME, "{key:a}", "{key:b}"], reply: "+OK\r\n"}
      - {send: [EVAL, "return redis.call('GET', KEYS[1])", "1", "{key:b}"], reply: "$1\r\nv\r\n"}
      - {send: [SCAN, "0", MATCH, "{key}*", COUNT, "1000"], any: true}
      - {send: [PING], reply: "+PONG\r\n"}
`)
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if r.Case.Name == "allowed, in the namespace" {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		} else if want == runner.Skip && !strings.Contains(r.Reason, "--allow-destructive") {
			t.Errorf("%s: skip reason %q", r.Case.Name, r.Reason)
		} else if strings.HasPrefix(r.Case.Name, "RENAME") && !strings.Contains(r.Reason, "literal_keys: true") {
			t.Errorf("%s: skip reason %q does not say the case has literal_keys: true", r.Case.Name, r.Reason)
		}
	}
	if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
		t.Errorf("the data changed: DEBUG DIGEST %s before, %s after", digest, after)
	}
	if got := c.do(t, "CONFIG", "GET", "maxmemory-samples").Elems[1].Str; string(got) != string(samples) {
		t.Errorf("maxmemory-samples changed to %s", got)
	}
}
