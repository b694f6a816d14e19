package clients

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// nestedPushCase: Redis 7.0.15 writes the push of DEBUG PROTOCOL push
// queued in MULTI inside EXEC's array (before the element of the command
// that caused it), so "x", ECHO's element, comes as a frame of its own.
const nestedPushCase = `suite: nested
cases:
  - name: a push inside EXEC's array
    requires: {debug: true, proto: 3}
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [DEBUG, PROTOCOL, push], reply: "+QUEUED\r\n"}
      - {send: [ECHO, x], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*2\r\n$40\r\nSome real reply following the push reply\r\n$1\r\nx\r\n"}
      - {send: [ECHO, after], reply: "$5\r\nafter\r\n"}
`

// TestNestedPushIsNotJudged: on the real build that nests the push, the
// EXEC step (or the queued commands' steps, for a transaction API) and
// every step after it on the connection are "not judged: the server's
// frame is malformed", with the push's offset, for every library: never a
// match, whichever way the library read the frame (before, a library that
// took the push for element 1, as respcheck's reading did, was a match).
func TestNestedPushIsNotJudged(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f, err := cases.Load("nested.yaml", []byte(nestedPushCase))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "go-redis", "rueidis", "redigo", "redis-py-6.4.0", "ioredis-6.0.0", "hiredis")
	ds = slices.DeleteFunc(ds, func(d Driver) bool { return IsCluster(d) || strings.HasSuffix(d.Library(), "/pubsub") })
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2,
		Protos: []int{3}, StepTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, res := range rep.Results {
		if res.Verdict == Skip {
			continue
		}
		if res.Verdict != Error {
			t.Errorf("%s: %s, want error (the server's malformed frame)", res.Client, res.Verdict)
		}
		for _, sv := range res.Steps {
			line := sv.Step.Pos.Line
			if line < 9 || sv.Verdict == Skip {
				continue
			}
			note := strings.Join(sv.Notes, "; ")
			if sv.Verdict != Error || !strings.Contains(note, "not judged: the server's frame is malformed: resp: push frame inside an aggregate at offset 4") {
				t.Errorf("%s line %d: %s %q, want not judged for the malformed frame", res.Client, line, sv.Verdict, note)
			}
			judged++
		}
	}
	if judged == 0 {
		t.Fatal("no library sent EXEC")
	}
}

// subscribeInMultiCase: every build writes SUBSCRIBE's confirmation, a
// push in RESP3, inside EXEC's array when SUBSCRIBE is queued in MULTI.
const subscribeInMultiCase = `suite: nested
cases:
  - name: SUBSCRIBE queued in MULTI
    requires: {proto: 3}
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [SUBSCRIBE, "{key:ch}"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], any: true}
`

// TestHangOnNestedPushIsNotJudged: a library that never returns after the
// server nested a push in EXEC's array (redis-py 6.4.0 waits for more, on
// its own and in its transaction pipeline) is not judged either, like a
// library that returned a value: an error naming the malformed frame, not
// a hang blamed on the library.
func TestHangOnNestedPushIsNotJudged(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("nested.yaml", []byte(subscribeInMultiCase))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "redis-py-6.4.0")
	ds = slices.DeleteFunc(ds, func(d Driver) bool { return IsCluster(d) || strings.HasSuffix(d.Library(), "/pubsub") })
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2,
		Protos: []int{3}, StepTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, res := range rep.Results {
		if res.Verdict == Skip {
			continue
		}
		judged++
		if res.Verdict != Error {
			t.Errorf("%s: %s, want error (the server's malformed frame)", res.Client, res.Verdict)
		}
		for _, sv := range res.Steps {
			if note := strings.Join(sv.Notes, "; "); sv.Verdict == Hang || sv.Verdict == Error && !strings.Contains(note, notJudgedMalformed+"resp: push frame inside an aggregate") {
				t.Errorf("%s line %d: %s %q, want not judged for the malformed frame", res.Client, sv.Step.Pos.Line, sv.Verdict, note)
			}
		}
	}
	if judged == 0 {
		t.Fatal("no library ran the case")
	}
}
