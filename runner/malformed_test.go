package runner_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/golden/replay"
)

// pushInExec is DEBUG PROTOCOL push queued in MULTI: Redis 7.0.15 writes
// the push frame inside EXEC's array, before the element of the command
// that caused it; Redis 7.2 and later write it after the array.
const pushInExec = `suite: nested
cases:
  - name: a push caused inside MULTI
    requires: {debug: true, proto: 3}
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [DEBUG, PROTOCOL, push], reply: "+QUEUED\r\n"}
      - {send: [ECHO, x], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*2\r\n$40\r\nSome real reply following the push reply\r\n$1\r\nx\r\n"}
      - {push: true, reply: ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"}
      - {send: [ECHO, after], reply: "$5\r\nafter\r\n"}
`

// TestNestedPushIsAServerFinding: the push frame Redis 7.0.15 nests in
// EXEC's array is not read as an element (a mismatch against what the
// case expects) but reported as the server's malformed frame, at its
// offset in the reply, with the reply's bytes; the same case passes on
// Redis 8.6.3, which writes the push after the array.
func TestNestedPushIsAServerFinding(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", pushInExec, runner.Options{})
	r := result(t, rep, "a push caused inside MULTI", 3)
	want := "push frame inside an aggregate at offset 4 (element 1 of an array at offset 0;"
	if r.Status != runner.Error || !r.Malformed || !strings.Contains(r.Reason, want) || !strings.HasPrefix(r.Reason, "inline.yaml:9:9: ") {
		t.Fatalf("redis-7.0.15: %s malformed=%v %q; want a malformed-frame error at 9:9 saying %q", r.Status, r.Malformed, r.Reason, want)
	}
	if got := string(r.Steps[len(r.Steps)-1].Reply); !strings.HasPrefix(got, "*2\r\n>2\r\n$16\r\nserver-cpu-usage") {
		t.Errorf("the step keeps %q, want EXEC's reply with the push inside", got)
	}
	if err := rep.Fault(); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("Fault() = %v, want the malformed frame (exit 3)", err)
	}
	rep = runInline(t, "redis-8.6.3", pushInExec, runner.Options{})
	if r := result(t, rep, "a push caused inside MULTI", 3); r.Status != runner.Pass {
		t.Errorf("redis-8.6.3: %s %q, want a pass", r.Status, r.Reason)
	}
}

// TestSubscribeInsideMultiIsAServerFinding: every pinned build answers a
// SUBSCRIBE queued in MULTI with its confirmation push as an element of
// EXEC's array.
func TestSubscribeInsideMultiIsAServerFinding(t *testing.T) {
	src := `suite: nested
cases:
  - name: SUBSCRIBE inside MULTI
    requires: {proto: 3}
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [SUBSCRIBE, "{key:ch}"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*1\r\n>3\r\n$9\r\nsubscribe\r\n$16\r\n{key:ch}\r\n:1\r\n"}
`
	rep := runInline(t, "valkey-9.1.2", src, runner.Options{})
	r := result(t, rep, "SUBSCRIBE inside MULTI", 3)
	if r.Status != runner.Error || !r.Malformed || !strings.Contains(r.Reason, "push frame inside an aggregate at offset 4 (element 1 of an array") {
		t.Errorf("%s malformed=%v %q; want the nested push as a malformed frame", r.Status, r.Malformed, r.Reason)
	}
}

// TestUnendingStreamedArrayIsAServerFinding: a streamed array that never
// gets its "." end marker (no real server sends one: the replay server
// serves it) is, once the step's deadline passes, a malformed frame that
// says what it lacks, with the bytes that came.
func TestUnendingStreamedArrayIsAServerFinding(t *testing.T) {
	ph := golden.Placeholder
	blob := func(s string) *golden.Blob { b := golden.NewBlob([]byte(s)); return &b }
	steps := []*golden.Step{{Index: 0, Action: "send", Conn: "default",
		Sent:  blob(string(resp.AppendCommandString(nil, "LRANGE", ph+"key", "0", "-1"))),
		Reply: blob("*?\r\n$1\r\na\r\n")}}
	d := &golden.Dir{Path: "lie", Server: golden.Server{Family: "redis", Version: "8.6.3",
		Hello2: []byte("*6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n8.6.3\r\n$5\r\nproto\r\n:2\r\n"),
		Hello3: []byte("%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n8.6.3\r\n$5\r\nproto\r\n:3\r\n")},
		Files: map[string]*golden.File{"lie": {Path: "inline.yaml", Cases: []*golden.Case{
			{Name: "c", Proto: 2, Status: "pass", Prefix: "rc:{01234567}:", Steps: steps}}}}}
	s, err := replay.New(d, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the replay server did not stop")
		}
	})
	src := "suite: lie\ncases:\n  - name: c\n    steps:\n      - {send: [LRANGE, \"{key}\", 0, -1], reply: \"*0\\r\\n\"}\n"
	rep := run(t, ln.Addr().String(), load(t, src), runner.Options{Protos: []int{2}, StepTimeout: 500 * time.Millisecond, Shared: true, RunID: "lie"})
	r := result(t, rep, "c", 2)
	want := `the server's frame is malformed: it stopped after 11 bytes until the deadline passed (offsets count from the frame's first byte): resp: wrong length at offset 0 (streamed array has 1 value and no "." end marker)`
	if r.Status != runner.Error || !r.Malformed || !strings.Contains(r.Reason, want) {
		t.Fatalf("%s malformed=%v %q; want %q", r.Status, r.Malformed, r.Reason, want)
	}
	if !strings.Contains(r.Reason, "timeout") {
		t.Errorf("the reason %q does not name the deadline", r.Reason)
	}
	if got := string(r.Steps[0].Reply); got != "*?\r\n$1\r\na\r\n" {
		t.Errorf("the step keeps %q, want the bytes that came", got)
	}
}
