package runner_test

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// literalCorpus is a suite written as one ported from elsewhere: keys
// named literally, replies that echo them (KEYS, SCAN, BLPOP, XREAD,
// EVAL), channels and patterns named literally, raw bytes, and one case that keeps its names (literal_keys).
const literalCorpus = `
suite: ported with literal keys
cases:
  - name: SET GET DEL
    steps:
      - {send: [SET, foo, bar], reply: "+OK\r\n"}
      - {send: [GET, foo], reply: "$3\r\nbar\r\n"}
      - {send: [OBJECT, ENCODING, foo], reply: "$6\r\nembstr\r\n"}
      - {send: [DEL, foo], reply: ":1\r\n"}
      - {send: [GET, foo], reply: {resp2: "$-1\r\n", resp3: "_\r\n"}}
  - name: channels and patterns
    steps:
      - {conn: sub, send: [SUBSCRIBE, news], reply: {resp2: "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n", resp3: ">3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"}}
      - {conn: psub, send: [PSUBSCRIBE, "n*"], reply: {resp2: "*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n", resp3: ">3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n"}}
      - {send: [PUBSUB, NUMSUB, news], value: {array: [news, 1]}}
      - {send: [PUBLISH, news, hi], reply: ":2\r\n"}
      - {conn: sub, push: true, reply: {resp2: "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n", resp3: ">3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n"}}
      - {conn: psub, push: true, reply: {resp2: "*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n", resp3: ">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n"}}
  - name: a message whose payload is its channel's name
    steps:
      - {conn: sub, send: [SUBSCRIBE, news], value: {resp2: {array: [subscribe, news, 1]}, resp3: {push: [subscribe, news, 1]}}}
      - {conn: pub, send: [PUBLISH, news, news], reply: ":1\r\n"}
      - {conn: sub, push: true, value: {resp2: {array: [message, news, news]}, resp3: {push: [message, news, news]}}}
  - name: a popped value equal to a channel published to
    steps:
      - {send: [PUBLISH, jobs, x], reply: ":0\r\n"}
      - {send: [RPUSH, q, jobs], reply: ":1\r\n"}
      - {send: [BLPOP, q, "1"], value: {array: [q, jobs]}}
  - name: a read names what its async send's reply names
    steps:
      - {send: [SET, "user:1", v], reply: "+OK\r\n"}
      - {send: [SADD, members, "user:1"], reply: ":1\r\n"}
      - {send: [SMEMBERS, members], async: true}
      - {send: [KEYS, "user:*"], async: true}
      - {read: true, value: {resp2: {array: ["user:1"]}, resp3: {set: ["user:1"]}}}
      - {read: true, value: {array: ["user:1"]}}
  - name: an EXEC's replies read as their commands'
    steps:
      - {send: [SET, "user:1", v], reply: "+OK\r\n"}
      - {send: [SADD, index, "user:1"], reply: ":1\r\n"}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [SMEMBERS, index], reply: "+QUEUED\r\n"}
      - {send: [KEYS, "user:*"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], value: {resp2: {array: [{array: ["user:1"]}, {array: ["user:1"]}]}, resp3: {array: [{set: ["user:1"]}, {array: ["user:1"]}]}}}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [SMEMBERS, index], reply: "+QUEUED\r\n"}
      - {send: [KEYS, "user:*"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: {resp2: "*2\r\n*1\r\n$6\r\nuser:1\r\n*1\r\n$6\r\nuser:1\r\n", resp3: "*2\r\n~1\r\n$6\r\nuser:1\r\n*1\r\n$6\r\nuser:1\r\n"}}
  - name: a value equal to its key stays a value
    steps:
      - {send: [SET, foo, foo], reply: "+OK\r\n"}
      - {send: [GET, foo], reply: "$3\r\nfoo\r\n"}
      - {send: [APPEND, foo, "!"], reply: ":4\r\n"}
  - name: KEYS and SCAN MATCH answer the literal names
    steps:
      - {send: [MSET, a, "1", b, "2", other, "3"], reply: "+OK\r\n"}
      - {send: [KEYS, "*"], value: {array_unordered: [a, b, other]}}
      - {send: [KEYS, a], reply: "*1\r\n$1\r\na\r\n"}
      - {send: [SCAN, "0", MATCH, "[ab]", COUNT, "1000"], value: {array: ["0", {array_unordered: [a, b]}]}}
      - {send: [SCAN, "0", COUNT, "1000"], value: {array: ["0", {array_unordered: [a, b, other]}]}}
      - {send: [MGET, a, b, nothing], value: {array: ["1", "2", {nil: any}]}}
  - name: BLPOP names the key it popped from
    steps:
      - {conn: w, async: true, send: [BLPOP, queue, "5"]}
      - {conn: p, send: [RPUSH, queue, job], reply: ":1\r\n"}
      - {conn: w, read: true, value: {array: [queue, job]}}
  - name: LMOVE between literal lists
    steps:
      - {send: [RPUSH, src, x, y], reply: ":2\r\n"}
      - {send: [LMOVE, src, dst, LEFT, RIGHT], reply: "$1\r\nx\r\n"}
      - {send: [LRANGE, dst, "0", "-1"], value: {array: [x]}}
  - name: XREAD names its stream
    steps:
      - {send: [XADD, events, "1-1", f, v], reply: "$3\r\n1-1\r\n"}
      - send: [XREAD, STREAMS, events, "0"]
        value:
          resp2: {array: [{array: [events, {array: [{array: ["1-1", {array: [f, v]}]}]}]}]}
          resp3: {map: [[events, {array: [{array: ["1-1", {array: [f, v]}]}]}]]}
  - name: EVAL with KEYS
    steps:
      - {send: [EVAL, "redis.call('SET', KEYS[1], ARGV[1]) return KEYS[1]", "1", counter, "5"], reply: "$7\r\ncounter\r\n"}
      - {send: [GET, counter], reply: "$1\r\n5\r\n"}
  - name: a key named like the numkeys before it
    steps:
      - {send: [EVAL, "redis.call('SET', KEYS[1], 'v') return redis.call('GET', KEYS[1])", "1", "1"], reply: "$1\r\nv\r\n"}
      - {send: [GET, "1"], reply: "$1\r\nv\r\n"}
  - name: raw commands with literal keys
    steps:
      - {raw: "*3\r\n$3\r\nSET\r\n$3\r\nraw\r\n$1\r\n1\r\n", reply: "+OK\r\n"}
      - {raw: "GET raw\r\n", reply: "$1\r\n1\r\n"}
      - {raw: "EXISTS raw\r\nDEL raw\r\n", replies: [{reply: ":1\r\n"}, {reply: ":1\r\n"}]}
  - name: literal names as written
    literal_keys: true
    steps:
      - {send: [SET, rc-literal, v], reply: "+OK\r\n"}
      - {send: [GET, rc-literal], reply: "$1\r\nv\r\n"}
`

// theirs are keys of the shared server's own data, named as the corpus
// names its keys.
var theirs = []string{"1", "foo", "a", "b", "other", "queue", "src", "dst", "events", "counter", "raw", "nothing"}

// TestLiteralKeysShared runs the corpus twice at once, with the default
// jobs, against one shared server whose own data uses the same names: the
// literal keys are moved into each case's namespace, so every case passes
// but the literal_keys one (which the guard refuses, saying why), the
// server's data is intact and no key is left.
func TestLiteralKeysShared(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c := dialRaw(t, srv.Addr())
	for _, k := range theirs {
		c.do(t, "SET", k, "theirs")
	}
	digest := string(c.do(t, "DEBUG", "DIGEST").Str)
	// A subscriber of the server's own to the corpus's channels, by
	// name and by pattern: the runs' messages stay in their namespaces.
	theirSub := dialRaw(t, srv.Addr())
	theirSub.send("SUBSCRIBE", "news")
	theirSub.send("PSUBSCRIBE", "n*")
	theirSub.flushRead(t, 2)
	var wg sync.WaitGroup
	reps := make([]*runner.Report, 2)
	for i := range reps {
		wg.Go(func() {
			reps[i] = run(t, srv.Addr(), load(t, literalCorpus), runner.Options{Shared: true, RunID: runner.NewRunID()})
		})
	}
	wg.Wait()
	for _, rep := range reps {
		for _, r := range rep.Results {
			if r.Case.Name == "literal names as written" {
				if r.Status != runner.Skip || !strings.Contains(r.Reason, "literal_keys: true") {
					t.Errorf("%s [RESP%d]: %s (%s), want a skip that names literal_keys", r.Case.Name, r.Proto, r.Status, r.Reason)
				}
				continue
			}
			if r.Status != runner.Pass {
				t.Errorf("%s [RESP%d]: %s: %s", r.Case.Name, r.Proto, r.Status, r.Reason)
			}
		}
		if len(rep.KeysLeft) > 0 {
			t.Errorf("keys left: %v", rep.KeysLeft)
		}
	}
	theirSub.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if v, err := theirSub.r.Read(); err == nil {
		t.Errorf("the server's own subscriber got %s", resp.Escape(v.Raw))
	}
	if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
		t.Errorf("the server's data changed: DEBUG DIGEST %s before, %s after", digest, after)
	}
	if n := c.do(t, "DBSIZE").Int; n != int64(len(theirs)) {
		t.Errorf("DBSIZE %d after the runs, want the %d keys of the server's own", n, len(theirs))
	}
}

// TestProbeLiteralKeysAreNamespaced: a gate's probe that names a key of
// the shared server's own data literally (found by a fresh-user trial:
// SET foo overwrote the user's foo) writes under a namespace of its own
// and is cleaned up; the case runs (the probe answered OK) and the
// server's data is unchanged.
func TestProbeLiteralKeysAreNamespaced(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c := dialRaw(t, srv.Addr())
	c.do(t, "SET", "foo", "theirs")
	src := "suite: probe\ncases:\n  - name: gated\n    requires: {probes: [[SET, foo, probe-was-here]]}\n" +
		"    steps: [{send: [PING], reply: \"+PONG\\r\\n\"}]\n"
	rep := run(t, srv.Addr(), load(t, src), runner.Options{Shared: true, RunID: runner.NewRunID()})
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s [RESP%d]: %s (%s)", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	if v := string(c.do(t, "GET", "foo").Str); v != "theirs" {
		t.Errorf("GET foo = %q after the run, want the server's own value", v)
	}
	if n := c.do(t, "DBSIZE").Int; n != 1 {
		t.Errorf("DBSIZE %d after the run, want 1 (the probe's key deleted)", n)
	}
}

// TestLiteralKeysThrowaway runs the corpus on a server of its own (not
// shared) and on a cluster: every case passes, the literal_keys case
// included (a cluster shared: skipped), and its literal key is deleted
// after it; no key exists under a literal name.
func TestLiteralKeysThrowaway(t *testing.T) {
	srv := servers.ForTest(t, "valkey-9.1.2")
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	for _, tc := range []struct {
		name   string
		addr   string
		shared bool
	}{{"standalone", srv.Addr(), false}, {"cluster", cl.Nodes[0].Addr(), false}, {"cluster shared", cl.Nodes[0].Addr(), true}} {
		rep := run(t, tc.addr, load(t, literalCorpus), runner.Options{RunID: runner.NewRunID(), Shared: tc.shared})
		for _, r := range rep.Results {
			want := runner.Pass
			if tc.shared && r.Case.Name == "literal names as written" {
				want = runner.Skip
			}
			if r.Status != want {
				t.Errorf("%s: %s [RESP%d]: %s (%s), want %s", tc.name, r.Case.Name, r.Proto, r.Status, r.Reason, want)
			}
		}
	}
	for _, n := range append([]*servers.Server{srv}, cl.Nodes...) {
		for _, k := range dialRaw(t, n.Addr()).do(t, "KEYS", "*").Elems {
			if !strings.HasPrefix(string(k.Str), "rc:{") {
				t.Errorf("%s: key %q is not in a case's namespace", n.Addr(), k.Str)
			}
		}
	}
}

// TestSharedWithoutGetkeys: on a shared server whose user may not run
// COMMAND GETKEYS (an ACL without it), a command with movable keys that
// its key specifications cannot answer (SORT ... STORE: an incomplete
// spec) cannot be namespaced: the guard refuses it, in a step, in a raw
// command split across steps and in a gate's probe (a literal name would
// go out as written, into the server's own keys: reviewers' repros); with
// --allow-destructive it goes out as written, and the case's keys, which
// the server would not name, are found by a scan of its namespace, so
// none is left. One the specs answer (ZUNIONSTORE's key count) needs no
// GETKEYS: its literal destination is moved into the namespace. The run's
// ACL user has the user's command rules, -command|getkeys included.
func TestSharedWithoutGetkeys(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c := dialRaw(t, srv.Addr())
	c.do(t, "SET", "d", "theirs")
	c.do(t, "ACL", "SETUSER", "nogetkeys", "on", ">pw", "~*", "&*", "+@all", "-command|getkeys")
	files := load(t, `suite: getkeys
cases:
  - name: a literal destination
    steps:
      - {send: [ZADD, "{key:s}", "1", m], reply: ":1\r\n"}
      - {send: [SORT, "{key:s}", ALPHA, STORE, d], reply: ":1\r\n"}
  - name: a namespaced destination
    steps:
      - {send: [ZADD, "{key:s}", "1", m], reply: ":1\r\n"}
      - {send: [SORT, "{key:s}", ALPHA, STORE, "{key:d}"], reply: ":1\r\n"}
  - name: split raw
    steps:
      - {raw: "*5\r\n$4\r\nSORT\r\n$1\r\nd\r\n", expect: no reply within 20ms}
      - {raw: "$5\r\nALPHA\r\n$5\r\nSTORE\r\n$1\r\na\r\n", any: true}
  - name: a probe
    requires: {probes: [[SORT, d, ALPHA, STORE, a]]}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: key specs answer
    steps:
      - {send: [ZADD, "{key:s}", "1", m], reply: ":1\r\n"}
      - {send: [ZUNIONSTORE, d, "1", "{key:s}"], reply: ":1\r\n"}
      - {send: [ZSCORE, d, m], value: {double: "1", within: 0}}
`)
	opts := runner.Options{Shared: true, Username: "nogetkeys", Password: "pw", RunID: runner.NewRunID()}
	for _, r := range run(t, srv.Addr(), files, opts).Results {
		if r.Case.Name == "key specs answer" {
			if r.Status != runner.Pass {
				t.Errorf("%s [RESP%d]: %s (%s), want a pass", r.Case.Name, r.Proto, r.Status, r.Reason)
			}
			continue
		}
		if r.Status != runner.Skip || !strings.Contains(r.Reason, "+command|getkeys") {
			t.Errorf("%s [RESP%d]: %s (%s), want refused: its keys cannot be namespaced", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	opts.AllowDestructive, opts.Run = true, regexp.MustCompile("namespaced")
	rep := run(t, srv.Addr(), files, opts)
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("--allow-destructive: %s [RESP%d]: %s: %s", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	if got := string(c.do(t, "GET", "d").Str); got != "theirs" {
		t.Errorf("the server's key d: %q after the runs, want theirs", got)
	}
	if n := c.do(t, "DBSIZE").Int; n != 1 {
		t.Errorf("DBSIZE %d after the runs, want 1 (the server's own key): %v left", n, rep.KeysLeft)
	}
}

// TestExecAfterRefusedCommands: a MULTI or WATCH sent inside a
// transaction is refused without ending it on Redis (no reply of EXEC's),
// so the EXEC's replies still read as their queued commands' (KEYS's
// reply, which names keys, was expected as written after them; found by a
// review, 2026-12-07).
func TestExecAfterRefusedCommands(t *testing.T) {
	const src = `suite: t
cases:
  - name: a nested MULTI
    steps:
      - {send: [SET, "user:1", v], reply: "+OK\r\n"}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [KEYS, "user:*"], reply: "+QUEUED\r\n"}
      - {send: [MULTI], error_code: ERR}
      - {send: [EXEC], value: {array: [{array: ["user:1"]}]}}
  - name: WATCH inside MULTI
    steps:
      - {send: [SET, "user:1", v], reply: "+OK\r\n"}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [WATCH, x], error_code: ERR}
      - {send: [KEYS, "user:*"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], value: {array: [{array: ["user:1"]}]}}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{})
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s [RESP%d]: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
}
