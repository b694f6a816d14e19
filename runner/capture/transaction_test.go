package capture_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
	"github.com/respcheck/respcheck/runner/clients"
)

// TestExecOfAnUnorderedReply: an EXEC that ran SMEMBERS (redis-py's
// default pipeline is a transaction) expects that reply's members in any
// order and a queued TIME any reply, the other replies exactly: the
// members were captured in the order of Redis 7.0.15's hashtable and
// replay on Redis 8.6.3 (insertion order), where the EXEC's bytes differ.
func TestExecOfAnUnorderedReply(t *testing.T) {
	ex := exchanges(
		step{1, 1, 2, "+OK\r\n", []string{"MULTI"}},
		step{1, 3, 4, "+QUEUED\r\n", []string{"SADD", "s", "a", "b"}},
		step{1, 5, 6, "+QUEUED\r\n", []string{"SMEMBERS", "s"}},
		step{1, 7, 8, "+QUEUED\r\n", []string{"TIME"}},
		step{1, 9, 10, "+QUEUED\r\n", []string{"SCARD", "s"}},
		step{1, 11, 12, "*4\r\n:2\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n*2\r\n$10\r\n1765000000\r\n$1\r\n1\r\n:2\r\n", []string{"EXEC"}},
		// a transaction of exact replies stays bytes
		step{1, 13, 14, "+OK\r\n", []string{"MULTI"}},
		step{1, 15, 16, "+QUEUED\r\n", []string{"SCARD", "s"}},
		step{1, 17, 18, "*1\r\n:2\r\n", []string{"EXEC"}},
	)
	unordered, err := capture.Unordered(t.Context(), nil, ex)
	if err != nil {
		t.Fatal(err)
	}
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "exec", Unordered: unordered})
	for _, want := range []string{
		`value: {array: [{int: 2}, {array_unordered: [{blob: "b"}, {blob: "a"}]}, {any: true}, {int: 2}]} # the queued commands' replies, SMEMBERS in any order, TIME any reply`,
		`reply: "*1\r\n:2\r\n"`,
	} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the file lacks %s:\n%s", want, src)
		}
	}
	f, err := cases.Load("exec.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if res := replay(t, f, "redis-8.6.3"); res.Status != runner.Pass {
		t.Errorf("replay: %s %s %+v\n%s", res.Status, res.Reason, res.Failure, src)
	}
}

// TestExecOfATTL: a TTL queued in a transaction expects its seconds
// within the capture's time so far, as a TTL alone does (it was exact: a
// replay whose pauses are shorter read another count, and the twin
// turned the whole EXEC into any reply).
func TestExecOfATTL(t *testing.T) {
	ex := exchanges(
		step{1, 1, 2, "+OK\r\n", []string{"SET", "sess", "x", "EX", "100"}},
		step{1, 3, 4, "+OK\r\n", []string{"MULTI"}},
		step{1, 5, 6, "+QUEUED\r\n", []string{"TTL", "sess"}},
		step{1, 7, 8, "+QUEUED\r\n", []string{"GET", "sess"}},
		step{1, 9, 10, "*2\r\n:93\r\n$1\r\nx\r\n", []string{"EXEC"}},
	)
	start := time.Now()
	ex[0].SentTime, ex[4].SentTime = start, start.Add(7*time.Second)
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "exec"})
	if want := `value: {array: [{double: "93", within: 9}, {blob: "x"}]} # the queued commands' replies, TTL counting down`; !bytes.Contains(src, []byte(want)) {
		t.Errorf("the file lacks %s:\n%s", want, src)
	}
}

// TestUnsubscribeAllInAnyOrder: an UNSUBSCRIBE of every channel is
// confirmed channel by channel in the order of the server's hash table,
// which differs from one process to the next (a capture's replay failed
// 3 of 4 times): each confirmation expects its kind and count, any
// channel.
func TestUnsubscribeAllInAnyOrder(t *testing.T) {
	ex := []clients.Exchange{
		{Conn: 1, Args: [][]byte{[]byte("SUBSCRIBE"), []byte("jobs:done"), []byte("alerts")}, SentAt: 1, RepliedAt: 3,
			Replies: [][]byte{[]byte("*3\r\n$9\r\nsubscribe\r\n$9\r\njobs:done\r\n:1\r\n"), []byte("*3\r\n$9\r\nsubscribe\r\n$6\r\nalerts\r\n:2\r\n")}},
		{Conn: 1, Args: [][]byte{[]byte("UNSUBSCRIBE")}, SentAt: 4, RepliedAt: 6,
			Replies: [][]byte{[]byte("*3\r\n$11\r\nunsubscribe\r\n$9\r\njobs:done\r\n:1\r\n"), []byte("*3\r\n$11\r\nunsubscribe\r\n$6\r\nalerts\r\n:0\r\n")}},
	}
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "unsub"})
	if want := `replies: [{value: {array: ["unsubscribe", {type: blob string}, {int: 1}]}}, {value: {array: ["unsubscribe", {type: blob string}, {int: 0}]}}]`; !bytes.Contains(src, []byte(want)) {
		t.Errorf("the file lacks %s:\n%s", want, src)
	}
	f, err := cases.Load("unsub.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for range 4 { // a fresh server each: another hash seed
		if res := replay(t, f, "redis-8.6.3"); res.Status != runner.Pass {
			t.Fatalf("replay: %s %s %+v\n%s", res.Status, res.Reason, res.Failure, src)
		}
	}
}
