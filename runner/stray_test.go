package runner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner"
)

// strayCases end in every connection state the end-of-case sentinel must
// survive. Each passes: nothing was sent that the case did not read.
const strayCases = `suite: stray
cases:
  - name: plain
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
  - name: RESP2 or RESP3 subscribed
    steps:
      - send: [SUBSCRIBE, "{key:ch}"]
        value: {resp2: {array: [subscribe, "{key:ch}", 1]}, resp3: {push: [subscribe, "{key:ch}", 1]}}
  - name: inside MULTI
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [INCR, "{key}"], reply: "+QUEUED\r\n"}
  - name: after QUIT
    steps:
      - {send: [QUIT], reply: "+OK\r\n"}
  - name: after RESET
    steps:
      - {send: [SUBSCRIBE, "{key:ch}"], value: {resp2: {array: [subscribe, "{key:ch}", 1]}, resp3: {push: [subscribe, "{key:ch}", 1]}}}
      - {send: [RESET], reply: "+RESET\r\n"}
  - name: a raw command left incomplete
    steps:
      - {raw: "PING\r\n*2\r\n$4\r\nECHO\r\n$5\r\nab", reply: "+PONG\r\n"}
  - name: MONITOR while another connection is checked
    exclusive: true # MONITOR sees every other case's commands
    steps:
      - {conn: other, send: [PING], reply: "+PONG\r\n"}
      - {send: [MONITOR], reply: "+OK\r\n"}
  - name: an invalidation push after the last reply
    requires: {proto: 3}
    steps:
      - {send: [CLIENT, TRACKING, "on"], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "_\r\n"}
      - {conn: writer, send: [SET, "{key}", v], reply: "+OK\r\n"}
`

// TestStrayCheckPassesInEveryConnectionState: the end-of-case check neither
// fails nor hangs whatever state a case leaves its connections in. The step
// timeout is longer than the test's: a sentinel that is never answered
// hangs the test until go test ends it, instead of passing after a deadline.
func TestStrayCheckPassesInEveryConnectionState(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", strayCases, runner.Options{StepTimeout: time.Hour})
	for _, r := range rep.Results {
		if r.Status != runner.Pass && r.Status != runner.Skip {
			t.Errorf("%s RESP%d: %s %s (%+v)", r.Case.Name, r.Proto, r.Status, r.Reason, r.Failure)
		}
	}
}

// TestStrayRepliesAreFound: a reply after the last step fails the case,
// whether it is a second reply to one command (Redis 8.6.3's SET ... IFDEQ
// with a malformed digest and GET on an existing key answers the old value,
// then an error), an array nobody read on a RESP2 subscribed connection, a
// reply to an async send never read, or two stray frames of which the first
// is an error (both were taken for the two sentinels' refusals).
func TestStrayRepliesAreFound(t *testing.T) {
	src := `suite: stray
cases:
  - name: two replies to one command
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [SET, "{key}", c, IFDEQ, zz, GET], reply: "$1\r\nv\r\n"}
  - name: a message nobody read
    steps:
      - conn: sub
        send: [SUBSCRIBE, "{key:ch}"]
        value: {resp2: {array: [subscribe, "{key:ch}", 1]}, resp3: {push: [subscribe, "{key:ch}", 1]}}
      - {conn: pub, send: [PUBLISH, "{key:ch}", hello], reply: ":1\r\n"}
    requires: {proto: 2}
  - name: a raw write of two commands read once
    steps:
      - {raw: "PING\r\nPING\r\n", reply: "+PONG\r\n"}
  - name: two stray errors
    steps:
      - {raw: "GET\r\nGET\r\nGET\r\n", reply: "-ERR wrong number of arguments for 'get' command\r\n"}
  - name: a stray error, then a stray reply
    steps:
      - {raw: "GET\r\nGET\r\nPING\r\n", reply: "-ERR wrong number of arguments for 'get' command\r\n"}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{})
	for _, r := range rep.Results {
		if r.Status == runner.Skip {
			continue
		}
		if r.Status != runner.Fail || !strings.Contains(r.Reason, "after the last step") {
			t.Errorf("%s RESP%d: %s %q, want a failure for a reply after the last step", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	if f := result(t, rep, "two replies to one command", 3).Failure; f == nil || !strings.Contains(string(f.Actual), "16 hexadecimal") {
		t.Errorf("the stray reply shown is %v, want the error that followed the value", f)
	}
}

// TestStrayCheckRefusedSentinels: a connection that ends the case as a user
// who may not run PING refuses both sentinels (NOPERM twice), which is no
// stray; a stray error before those refusals still fails the case.
func TestStrayCheckRefusedSentinels(t *testing.T) {
	src := `suite: stray
cases:
  - name: refused
    steps:
      - {send: [ACL, SETUSER, "rc-noping-{id}", "on", nopass, "~*", "+@all", "-ping"], reply: "+OK\r\n"}
      - {send: [AUTH, "rc-noping-{id}", x], reply: "+OK\r\n"}
  - name: a stray error, then refused
    steps:
      - {send: [ACL, SETUSER, "rc-noping-{id}", "on", nopass, "~*", "+@all", "-ping"], reply: "+OK\r\n"}
      - {raw: "AUTH rc-noping-{id} x\r\nGET\r\n", reply: "+OK\r\n"}
`
	rep := runInline(t, "redis-8.6.3", src, runner.Options{})
	for _, proto := range []int{2, 3} {
		if r := result(t, rep, "refused", proto); r.Status != runner.Pass {
			t.Errorf("refused RESP%d: %s %q (%+v), want a pass", proto, r.Status, r.Reason, r.Failure)
		}
		r := result(t, rep, "a stray error, then refused", proto)
		if r.Status != runner.Fail || !strings.Contains(r.Reason, "after the last step") {
			t.Errorf("a stray error, then refused RESP%d: %s %q, want a failure for a reply after the last step", proto, r.Status, r.Reason)
		}
	}
}
