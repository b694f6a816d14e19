package runner_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestStepKnown: a step's known difference, on redis-8.6.3 in both
// protocols. A GET of a missing key written as RESP2's "$-1" with a known
// difference in resp3 is known in RESP3 (the other steps pass) and passes
// in RESP2; a later step that fails still fails the case; a known step
// that passes is a failure naming the known difference; a case-level
// known difference with a protocol term is known in that protocol only.
func TestStepKnown(t *testing.T) {
	rep := runInline(t, "redis-8.6.3", `suite: step known
cases:
  - name: known in RESP3 only
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - send: [GET, "{key:missing}"]
        reply: "$-1\r\n"
        known: [{server: resp3, reason: RESP3 sends a null}]
      - {send: [GET, "{key}"], reply: "$1\r\nv\r\n"}
  - name: a later step still fails
    steps:
      - send: [GET, "{key:missing}"]
        reply: "$-1\r\n"
        known: [{server: resp3, reason: RESP3 sends a null}]
      - {send: [PING], reply: "+PING\r\n"}
  - name: the known step passes
    steps:
      - send: [PING]
        reply: "+PONG\r\n"
        known: [{server: "redis resp2", reason: imagined}]
  - name: case known in RESP2 only
    known: [{server: "redis>=8 resp2", reason: RESP2 sends a nil blob}]
    steps:
      - {send: [GET, "{key:missing}"], reply: "_\r\n"}
`, runner.Options{Protos: []int{2, 3}})
	for _, tc := range []struct {
		name   string
		proto  int
		status runner.Status
		reason string
	}{
		{"known in RESP3 only", 2, runner.Pass, ""},
		{"known in RESP3 only", 3, runner.KnownDiff, "RESP3 sends a null"},
		{"a later step still fails", 2, runner.Fail, "inline.yaml:15:31: reply differs"},
		{"a later step still fails", 3, runner.Fail, "inline.yaml:15:31: reply differs"},
		{"the known step passes", 2, runner.Fail, "inline.yaml:20:17: known difference no longer reproduces on redis 8.6.3: imagined"},
		{"the known step passes", 3, runner.Pass, ""},
		{"case known in RESP2 only", 2, runner.KnownDiff, "RESP2 sends a nil blob"},
		{"case known in RESP2 only", 3, runner.Pass, ""},
	} {
		r := result(t, rep, tc.name, tc.proto)
		if r.Status != tc.status || !strings.HasPrefix(r.Reason, tc.reason) {
			t.Errorf("%s RESP%d: %s %q, want %s %q", tc.name, tc.proto, r.Status, r.Reason, tc.status, tc.reason)
		}
	}
	if r := result(t, rep, "known in RESP3 only", 3); r.Failure == nil || r.Failure.Step.Index != 1 || len(r.Steps) != 3 {
		t.Errorf("known step: failure %+v after %d steps; want step 2's, and all 3 steps run", r.Failure, len(r.Steps))
	}
}

// TestNoPush: no_push on redis-8.6.3 in RESP3. A PUBLISH to a channel the
// connection subscribes to, answered before the subscriber's PING is sent,
// puts the message before the PONG: the PING step fails showing the push.
// A PING with no message pending, and one after a push step read the
// message, pass; so does a no reply within step with nothing pushed. With
// CLIENT TRACKING, another connection's SET puts the invalidation before
// the tracking connection's next reply, while the connection's own SET
// gets its +OK first and the invalidation after it (Redis 7.2+ defers a
// command's pushes after its reply, redis#12326).
func TestNoPush(t *testing.T) {
	rep := runInline(t, "redis-8.6.3", `suite: no push
requires: {proto: 3}
cases:
  - name: a message before the reply
    steps:
      - {conn: s, send: [SUBSCRIBE, "{key:ch}"], value: {push: [subscribe, "{key:ch}", 1]}}
      - {conn: p, send: [PUBLISH, "{key:ch}", hi], reply: ":1\r\n"}
      - {conn: s, send: [PING], no_push: true, reply: "+PONG\r\n"}
  - name: no message before the reply
    steps:
      - {conn: s, send: [SUBSCRIBE, "{key:ch}"], value: {push: [subscribe, "{key:ch}", 1]}}
      - {conn: s, send: [PING], no_push: true, reply: "+PONG\r\n"}
      - {conn: p, send: [PUBLISH, "{key:ch}", hi], reply: ":1\r\n"}
      - {conn: s, push: {push: [message, "{key:ch}", hi]}}
      - {conn: s, send: [PING], no_push: true, reply: "+PONG\r\n"}
      - {conn: s, raw: "*2\r\n$4\r\nECHO\r\n", no_push: true, expect: no reply within 20ms}
      - {conn: s, raw: "$1\r\nx\r\n", reply: "$1\r\nx\r\n"}
  - name: a message while waiting for nothing
    steps:
      - {conn: s, send: [SUBSCRIBE, "{key:ch}"], value: {push: [subscribe, "{key:ch}", 1]}}
      - {conn: p, send: [PUBLISH, "{key:ch}", hi], reply: ":1\r\n"}
      - {conn: s, raw: "*2\r\n$4\r\nECHO\r\n", no_push: true, expect: no reply within 20ms}
      - {conn: s, raw: "$1\r\nx\r\n", reply: "$1\r\nx\r\n"}
  - name: an invalidation before the reply
    steps:
      - {conn: a, send: [CLIENT, TRACKING, "on"], reply: "+OK\r\n"}
      - {conn: a, send: [GET, "{key}"], reply: "_\r\n"}
      - {conn: b, send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {conn: a, send: [PING], no_push: true, reply: "+PONG\r\n"}
  - name: an invalidation after its own write's reply
    steps:
      - {conn: a, send: [CLIENT, TRACKING, "on"], reply: "+OK\r\n"}
      - {conn: a, send: [GET, "{key}"], reply: "_\r\n"}
      - {conn: a, send: [SET, "{key}", v], no_push: true, reply: "+OK\r\n"}
      - {conn: a, push: {push: [invalidate, {array: ["{key}"]}]}}
`, runner.Options{Protos: []int{3}})
	if r := result(t, rep, "an invalidation before the reply", 3); r.Status != runner.Fail ||
		!strings.Contains(r.Reason, "inline.yaml:29:9: a push frame arrived before the reply") ||
		!strings.HasPrefix(string(r.Failure.Actual), ">2\r\n$10\r\ninvalidate\r\n") {
		t.Errorf("invalidation before the reply: %s %q", r.Status, r.Reason)
	}
	if r := result(t, rep, "an invalidation after its own write's reply", 3); r.Status != runner.Pass {
		t.Errorf("invalidation after its own reply: %s %q", r.Status, r.Reason)
	}
	msg := ">3\r\n$7\r\nmessage\r\n$16\r\n"
	if r := result(t, rep, "a message before the reply", 3); r.Status != runner.Fail || r.Failure == nil ||
		!strings.Contains(r.Reason, "inline.yaml:8:9: a push frame arrived before the reply (no_push; 1 in all)") ||
		!strings.HasPrefix(string(r.Failure.Actual), msg) {
		t.Errorf("message before the reply: %s %q, failure %+v", r.Status, r.Reason, r.Failure)
	}
	if r := result(t, rep, "no message before the reply", 3); r.Status != runner.Pass {
		t.Errorf("no message: %s %q", r.Status, r.Reason)
	}
	if r := result(t, rep, "a message while waiting for nothing", 3); r.Status != runner.Fail ||
		!strings.Contains(r.Reason, "inline.yaml:22:9: a push frame arrived while the step waited (no_push; 1 in all)") {
		t.Errorf("message during silence: %s %q", r.Status, r.Reason)
	}
}

// crashCase is a case that crashes valkey-8.0.1 (a segfault in Lua's
// unpack with a huge range, which Redis 7.0.15 and 8.6.3 and Valkey 9.1.2
// answer with an error) with a known crash for valkey<9 (known here:
// 8.0.1), and a case after it.
func crashCase(t *testing.T) string {
	b, err := os.ReadFile("../testdata/servers/repro/known-crash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKnownCrash: on a throwaway valkey-8.0.1 whose run can restart it
// (Options.Respawn), the case that crashes it is known (the reason, and
// the crash), the server is started again and the later case passes; the
// run has no failure and no error. Without Respawn (a server the run did
// not start) the case is skipped, not sent, and the server stays up.
func TestKnownCrash(t *testing.T) {
	files := load(t, crashCase(t))
	var mu sync.Mutex
	respawns := 0
	respawn := func(int) (string, string, error) {
		mu.Lock()
		defer mu.Unlock()
		respawns++
		return servers.ForTest(t, "valkey-8.0.1").Addr(), "the server died", nil
	}
	rep := run(t, servers.ForTest(t, "valkey-8.0.1").Addr(), files, runner.Options{Protos: []int{2}, Jobs: 2, Respawn: respawn})
	crash := result(t, rep, "EVAL unpack of a huge range is an error", 2)
	if crash.Status != runner.KnownDiff || !strings.HasPrefix(crash.Reason, "Valkey 8.0.1 and 8.1.1 segfault in Lua's unpack (known crash: the server at ") {
		t.Errorf("crashing case: %s %q", crash.Status, crash.Reason)
	}
	if r := result(t, rep, "after", 2); r.Status != runner.Pass {
		t.Errorf("after: %s %q", r.Status, r.Reason)
	}
	if respawns != 1 || len(rep.Restarts) != 1 || rep.Summary.Failed+rep.Summary.Errors != 0 || rep.Summary.Known != 1 {
		t.Errorf("%d respawns, restarts %q, summary %+v; want one restart, one known, no failure", respawns, rep.Restarts, rep.Summary)
	}

	srv := servers.ForTest(t, "valkey-8.0.1")
	rep = run(t, srv.Addr(), files, runner.Options{Protos: []int{2, 3}})
	for _, p := range []int{2, 3} {
		r := result(t, rep, "EVAL unpack of a huge range is an error", p)
		if r.Status != runner.Skip || !strings.Contains(r.Reason, "inline.yaml:9:9: known to crash valkey 8.0.1, and this run cannot start the server again") || len(r.Steps) != 0 {
			t.Errorf("RESP%d without Respawn: %s %q, %d steps", p, r.Status, r.Reason, len(r.Steps))
		}
		if r := result(t, rep, "after", p); r.Status != runner.Pass {
			t.Errorf("after, RESP%d: %s %q", p, r.Status, r.Reason)
		}
	}
	if srv.Exited() || rep.ServerLost != nil {
		t.Errorf("the server died (lost: %v)", rep.ServerLost)
	}
}

// TestKnownCrashDidNotHappen: a known crash on a server that survives the
// case (redis-8.6.3 answers the unpack with an error) is a failure that
// says so, even though the case's expectation passed.
func TestKnownCrashDidNotHappen(t *testing.T) {
	src := strings.Replace(crashCase(t), `"valkey<9"`, "redis", 1)
	rep := runInline(t, "redis-8.6.3", src, runner.Options{Protos: []int{2}, Respawn: func(int) (string, string, error) {
		t.Error("Respawn called: the server did not die")
		return "", "", nil
	}})
	r := result(t, rep, "EVAL unpack of a huge range is an error", 2)
	if r.Status != runner.Fail || !strings.Contains(r.Reason, "inline.yaml:9:9: known crash did not happen: redis 8.6.3 survived the case (pass)") {
		t.Errorf("%s %q", r.Status, r.Reason)
	}
}

// TestKnownCrashOneProtocolSkippedInBoth: a known crash declared for one
// protocol ("valkey<9 resp3") is skipped in both by a run that cannot
// start the server again: Valkey 8.0.1's Lua unpack crash happens in
// RESP2 as well, and the RESP2 run would have killed the server.
func TestKnownCrashOneProtocolSkippedInBoth(t *testing.T) {
	files := load(t, strings.Replace(crashCase(t), `"valkey<9"`, `"valkey<9 resp3"`, 1))
	srv := servers.ForTest(t, "valkey-8.0.1")
	rep := run(t, srv.Addr(), files, runner.Options{Protos: []int{2, 3}})
	for _, p := range []int{2, 3} {
		if r := result(t, rep, "EVAL unpack of a huge range is an error", p); r.Status != runner.Skip || len(r.Steps) != 0 {
			t.Errorf("RESP%d: %s %q, %d steps; want a skip", p, r.Status, r.Reason, len(r.Steps))
		}
	}
	if srv.Exited() || rep.ServerLost != nil {
		t.Errorf("the server died (lost: %v)", rep.ServerLost)
	}
}
