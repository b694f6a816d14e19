package runner_test

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestSharedGuardRefusesBypasses runs, against a shared server holding
// other keys, cases that reached those keys before the guard read partial
// raw bytes and script calls: raw bytes that end inside a command (the
// server ran the whole commands before it and joined the rest with the
// next step's bytes), a script that takes a key from ARGV, names one
// literally for a command not on a list, or reaches redis.call by another
// name, an EVALSHA of a script the case did not send and FCALL; an inline
// line whose words the server splits otherwise than at every space (a
// vertical tab inside a word); SORT patterns and a second SCAN MATCH of a
// literal_keys case; DEBUG DIGEST-VALUE of a literal key; PSUBSCRIBE *
// and SLOWLOG GET, which show other clients' messages and commands;
// CONFIG GET of masterauth and ACL LIST (secrets), CLIENT TRACKING BCAST
// without a prefix (every key any client changes), CLUSTER
// GETKEYSINSLOT (other keys in the case's slot), FUNCTION LIST of every
// library (their code) and PUBSUB CHANNELS of every channel; a streamed
// command (over 1 MiB) whose key over 1 KiB is outside the namespace;
// a gate probe whose script deletes another client's key. Each is
// refused and the data is intact (a probe's DEL foo runs, moved into the
// probe's namespace); a split command, a script over KEYS,
// a SCRIPT LOAD then EVALSHA and DEBUG DIGEST-VALUE in the namespace still
// pass.
func TestSharedGuardRefusesBypasses(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c, files, digest := bypassFixture(t, srv.Addr())
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if r.Case.Name == "allowed, in the namespace" || strings.HasSuffix(r.Case.Name, "moved into its namespace") {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
		for _, st := range r.Steps {
			if strings.Contains(string(st.Reply), "their-secret") {
				t.Errorf("%s: the reply holds masterauth: %q", r.Case.Name, st.Reply)
			}
		}
	}
	if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
		t.Errorf("the data changed: DEBUG DIGEST %s before, %s after", digest, after)
	}
}

// bypassFixture writes other clients' data on the server at addr (keys,
// masterauth, a loaded script, a function library) and returns a
// connection to it, the bypass cases, and the data's DEBUG DIGEST.
func bypassFixture(t *testing.T, addr string) (*rawClient, []*cases.File, string) {
	c := dialRaw(t, addr)
	for _, k := range []string{"foo", "list", "h", "ARGV1"} {
		c.do(t, "SET", k, "theirs")
	}
	c.do(t, "SET", strings.Repeat("k", 2000), "theirs")
	c.do(t, "CONFIG", "SET", "masterauth", "their-secret")
	sha := string(c.do(t, "SCRIPT", "LOAD", "return redis.call('DEL', 'foo')").Str)
	c.do(t, "FUNCTION", "LOAD", "#!lua name=theirs\nredis.register_function('wipe', function() return redis.call('DEL', 'list') end)")
	digest := string(c.do(t, "DEBUG", "DIGEST").Str)
	files := load(t, `
suite: bypasses
cases:
  - name: raw DEL then a partial command
    steps: [{raw: "*2\r\n$3\r\nDEL\r\n$3\r\nfoo\r\n*1\r\n$4\r\nPI", any: true}]
  - name: raw DEL split over two steps
    steps:
      - {raw: "*2\r\n$3\r\nDEL\r\n$4\r\nli", expect: no reply within 20ms}
      - {raw: "st\r\n", any: true}
  - name: a send after a partial inline line
    steps:
      - {raw: "DEL fo", expect: no reply within 20ms}
      - {send: [PING], any: true}
  - name: Lua key from ARGV
    steps: [{send: [EVAL, "return redis.call('DEL', ARGV[1])", "0", foo], any: true}]
  - name: Lua literal key of an unlisted command
    steps: [{send: [EVAL, "return redis.call('GETEX', 'h')", "0"], any: true}]
  - name: Lua redis.call under another name
    steps: [{send: [EVAL, "local c = redis.call return c('DEL', 'ARGV1')", "0"], any: true}]
  - name: Lua through _G
    steps: [{send: [EVAL, "return _G['red'..'is'].call('DEL', 'foo')", "0"], any: true}]
  - name: Lua KEYS changed
    steps: [{send: [EVAL, "KEYS[1] = 'foo' return redis.call('DEL', KEYS[1])", "1", "{key}"], any: true}]
  - name: EVALSHA of a script the case did not send
    steps: [{send: [EVALSHA, "`+sha+`", "0"], any: true}]
  - name: FCALL of a function the run did not load
    steps: [{send: [FCALL, wipe, "0"], any: true}]
  - name: inline MSET with a vertical tab inside a word
    literal_keys: true
    steps: [{raw: "MSET {key:a}{hex:0b}x {key:b} foo {key:c}{hex:0b}bar\r\n", any: true}]
  - name: SORT GET pattern outside the namespace
    literal_keys: true
    steps: [{send: [RPUSH, "{key}", "1"]}, {send: [SORT, "{key}", BY, nosort, GET, "fo*"], any: true}]
  - name: SCAN whose last MATCH is outside the namespace
    literal_keys: true
    steps: [{send: [SCAN, "0", MATCH, "{key}*", MATCH, "f*", COUNT, "1000"], any: true}]
  - name: DEBUG DIGEST-VALUE of a key that is not the run's
    literal_keys: true
    steps: [{send: [DEBUG, DIGEST-VALUE, foo], any: true}]
  - name: PSUBSCRIBE to every channel
    literal_keys: true # else "*" is moved into the namespace
    steps: [{send: [PSUBSCRIBE, "*"], any: true}]
  - name: SLOWLOG GET
    steps: [{send: [SLOWLOG, GET, "1"], any: true}]
  - name: CONFIG GET of a pattern matching masterauth
    steps: [{send: [CONFIG, GET, "*auth*"], any: true}]
  - name: ACL LIST
    steps: [{send: [ACL, LIST], any: true}]
  - name: CLIENT TRACKING BCAST without a prefix
    steps: [{send: [CLIENT, TRACKING, "on", BCAST], any: true}]
  - name: CLUSTER GETKEYSINSLOT
    steps: [{send: [CLUSTER, GETKEYSINSLOT, "0", "10"], any: true}]
  - name: FUNCTION LIST of every library
    steps: [{send: [FUNCTION, LIST, WITHCODE], any: true}]
  - name: PUBSUB CHANNELS of every channel
    steps: [{send: [PUBSUB, CHANNELS], any: true}]
  - name: a streamed SET of a literal key over 1 KiB
    steps: [{send: [SET, "{gen:repeat:2000:k}", "{gen:random:2MiB}"], any: true}]
  - name: a gate probe that deletes a key that is not the run's, moved into its namespace
    requires: {probes: [[DEL, foo]]}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: a gate probe whose script deletes a key from ARGV
    requires: {probes: [[EVAL, "return redis.call('DEL', ARGV[1])", "0", list]]}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: allowed, in the namespace
    requires: {probes: [[SET, "{key:probe}", v, GET]]}
    steps:
      - {raw: "*3\r\n$3\r\nSET\r\n$15\r\n{key:a}", expect: no reply within 20ms}
      - {raw: "\r\n$1\r\nv\r\n", reply: "+OK\r\n"}
      - {send: [EVAL, "for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1]) end return redis.call('GET', KEYS[1])", "2", "{key:a}", "{key:b}", w], reply: "$1\r\nw\r\n"}
      - {send: [SCRIPT, LOAD, "return redis.call('GET', KEYS[1])"], capture: sha}
      - {send: [EVALSHA, "{cap:sha}", "1", "{key:b}"], reply: "$1\r\nw\r\n"}
      - {send: [DEBUG, DIGEST-VALUE, foo], reply: "*1\r\n+{gen:repeat:40:0}\r\n"}
      - {send: [SLOWLOG, GET, "0"], reply: "*0\r\n"}
      - {send: [CONFIG, GET, maxmemory-samples], value: {resp2: {array: [maxmemory-samples, "5"]}, resp3: {map: [[maxmemory-samples, "5"]]}}}
      - {send: [CLIENT, TRACKING, "on", BCAST, PREFIX, "{key}"], reply: "+OK\r\n"}
      - {send: [FUNCTION, LIST, LIBRARYNAME, "rc_fn_{id}"], reply: "*0\r\n"}
      - {send: [PUBSUB, CHANNELS, "{key:ch}*"], reply: "*0\r\n"}
      - {send: [SET, "{key}{gen:repeat:2000:k}", "{gen:random:2MiB}"], reply: "+OK\r\n"}
`)
	return c, files, digest
}
