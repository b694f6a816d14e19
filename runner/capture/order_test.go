package capture_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// step is one exchange of a hand-made capture: conn sends args at
// sequence number sent, its reply comes at replied.
type step struct {
	conn          int
	sent, replied uint64
	reply         string
	args          []string
}

func exchanges(steps ...step) []clients.Exchange {
	var out []clients.Exchange
	for _, s := range steps {
		var a [][]byte
		for _, x := range s.args {
			a = append(a, []byte(x))
		}
		out = append(out, clients.Exchange{Conn: s.conn, Args: a, Replies: [][]byte{[]byte(s.reply)}, SentAt: s.sent, RepliedAt: s.replied})
	}
	return out
}

// asyncSteps returns the commands (their names) the file sends async.
func asyncSteps(src []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`send: \["([A-Za-z]+)"[^\n]*\n\s+async: true`).FindAllSubmatch(src, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestOvertakenCommandKeepsItsPlace: a command another connection's
// command overtook before its reply is sent and read at once unless it
// may have waited for that command, so the replay runs it first, as the
// captured server did. Sent async, an LPUSH raced the LRANGE that had
// read its element, and a replay of an application's capture on its own
// build failed at random. A BLPOP that an LPUSH woke, and a SET held by a CLIENT PAUSE
// that another connection's CLIENT UNPAUSE ended, stay async: read at
// once, they would wait for the command after them.
func TestOvertakenCommandKeepsItsPlace(t *testing.T) {
	ex := exchanges(
		// c1's LPUSH ran first (the LRANGE read x); the server wrote
		// c2's reply first (replies of one event loop turn).
		step{1, 1, 4, ":1\r\n", []string{"LPUSH", "q", "x"}},
		step{2, 2, 3, "*1\r\n$1\r\nx\r\n", []string{"LRANGE", "q", "0", "-1"}},
		step{3, 5, 8, "*2\r\n$1\r\nb\r\n$1\r\ny\r\n", []string{"BLPOP", "b", "0"}},
		step{4, 6, 7, ":1\r\n", []string{"LPUSH", "b", "y"}},
		step{4, 9, 10, "+OK\r\n", []string{"CLIENT", "PAUSE", "3000", "WRITE"}},
		step{1, 11, 14, "+OK\r\n", []string{"SET", "k", "v"}},
		step{4, 12, 13, "+OK\r\n", []string{"CLIENT", "UNPAUSE"}},
		// A pause that ends by its timeout: the INCR it held, overtaken by
		// another connection's GET, stays async too.
		step{4, 15, 16, "+OK\r\n", []string{"CLIENT", "PAUSE", "100", "WRITE"}},
		step{1, 17, 20, ":1\r\n", []string{"INCR", "n"}},
		step{2, 18, 19, "$-1\r\n", []string{"GET", "n"}},
	)
	t0 := time.Now()
	for i, at := range map[int]time.Duration{7: 0, 8: 10 * time.Millisecond, 9: 20 * time.Millisecond} {
		ex[i].SentTime = t0.Add(at)
	}
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "order"})
	if got := asyncSteps(src); strings.Join(got, " ") != "BLPOP SET INCR" {
		t.Errorf("async steps %v, want BLPOP, SET and INCR only:\n%s", got, src)
	}
	if n := strings.Count(string(src), "sleep: 2ms # the server takes the async command"); n != 3 {
		t.Errorf("%d settling sleeps, want one after each async send:\n%s", n, src)
	}
	f, err := cases.Load("order.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	// Sent async, the LPUSH raced the LRANGE: a replay of an
	// application's capture failed so at random, but on loopback the
	// race is rare (none lost in 1,500 replays beside three busy loops):
	// the file's steps above are the test, these replays check they run.
	for i := range 10 {
		rep, err := runner.Run(t.Context(), []*cases.File{f}, runner.Options{Addr: srv.Addr(), Protos: []int{2}, RunID: runner.NewRunID()})
		if err != nil {
			t.Fatal(err)
		}
		if res := rep.Results[0]; res.Status != runner.Pass {
			t.Fatalf("replay %d: %s %s %+v\n%s", i+1, res.Status, res.Reason, res.Failure, src)
		}
	}
}

// TestBlockingAskedOfTheUpstream: the commands COMMAND INFO flags
// blocking on Redis 8.6.3 (BLPOP, XREAD, WAIT, ...) are Blocking's; where
// the upstream cannot be asked it names none, and CaseFile's own list
// still sends an overtaken BLPOP async.
func TestBlockingAskedOfTheUpstream(t *testing.T) {
	ex := exchanges(step{1, 1, 2, "*0\r\n", []string{"blpop", "q", "1"}}, step{1, 3, 4, ":0\r\n", []string{"LPUSH", "q", "x"}},
		step{1, 5, 6, "*0\r\n", []string{"XREAD", "STREAMS", "s", "0"}}, step{1, 7, 8, ":0\r\n", []string{"WAIT", "0", "0"}},
		step{1, 9, 10, "+OK\r\n", []string{"CLIENT", "PAUSE", "10"}})
	tg, err := target.Open(t.Context(), target.Config{Addr: servers.ForTest(t, "redis-8.6.3").Addr()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := capture.Blocking(t.Context(), tg, ex)
	if err != nil || !maps.Equal(got, map[int]bool{0: true, 2: true, 3: true}) {
		t.Errorf("Blocking %v %v, want BLPOP, XREAD and WAIT (0, 2, 3)", got, err)
	}
	if got, err := capture.Blocking(t.Context(), nil, ex); err != nil || len(got) != 0 {
		t.Errorf("Blocking without an upstream %v %v, want none", got, err)
	}
	src := capture.CaseFile(exchanges(step{1, 1, 4, "*-1\r\n", []string{"BLPOP", "q", "1"}}, step{2, 2, 3, ":0\r\n", []string{"DEL", "q"}}), capture.Options{Suite: "s", Case: "c"})
	if got := asyncSteps(src); strings.Join(got, " ") != "BLPOP" {
		t.Errorf("async steps %v, want BLPOP:\n%s", got, src)
	}
}

// TestProxyForwardsInTheOrderItRecords: a pipeline's commands go on to
// the server before the proxy reads the keys of the commands after them
// (--keys-before), so the server runs them in the order the proxy
// recorded them, the order a replay sends them in. Held back while the
// proxy read 300 new keys, a pipeline's INCR reached the server after
// another connection's INCR sent 2 ms later, and the replay got the other
// counts (found by a review, 2026-12-07).
func TestProxyForwardsInTheOrderItRecords(t *testing.T) {
	rec := keysRecorder(t, servers.ForTest(t, "redis-8.6.3").Addr())
	a, b := dialProxy(t, rec), dialProxy(t, rec)
	pipeline := resp.AppendCommandString(nil, "INCR", "n")
	for i := range 300 {
		pipeline = resp.AppendCommandString(pipeline, "SET", fmt.Sprintf("fresh%d", i), "v")
	}
	a.Write(pipeline)
	time.Sleep(2 * time.Millisecond)
	b.Write(resp.AppendCommandString(nil, "INCR", "n"))
	for c, n := range map[net.Conn]int{a: 301, b: 1} {
		r := resp.NewReader(c)
		for range n {
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
	}
	time.Sleep(50 * time.Millisecond)
	rec.Close()
	ex, _ := rec.Exchanges()
	var incrs []clients.Exchange
	for _, e := range ex {
		if len(e.Args) > 0 && string(e.Args[0]) == "INCR" {
			incrs = append(incrs, e)
		}
	}
	slices.SortFunc(incrs, func(x, y clients.Exchange) int { return int(x.SentAt) - int(y.SentAt) })
	if len(incrs) != 2 || string(incrs[0].Replies[0]) != ":1\r\n" {
		for _, e := range incrs {
			t.Logf("c%d sent at %d: INCR -> %q", e.Conn, e.SentAt, e.Replies)
		}
		t.Fatal("the INCR recorded first was not the server's first")
	}
}

// TestBlockingThatDidNotWait: a BLPOP that found its element at once,
// overtaken by another connection's LPUSH (the proxy read BLPOP's keys
// first), is sent async, and the replay waits a moment before the LPUSH:
// sent back to back, the LPUSH ran first in 8 of 10 replays of 20 such
// rounds on the capture's own build (found by a review, 2026-12-07).
func TestBlockingThatDidNotWait(t *testing.T) {
	var steps []step
	for i := range 20 {
		q, seq := fmt.Sprintf("q%d", i), uint64(10*i)
		// RPUSH, another connection's GET, BLPOP, LPUSH: as the review's
		// application sent them
		steps = append(steps,
			step{1, seq + 1, seq + 2, ":1\r\n", []string{"RPUSH", q, "first"}},
			step{2, seq + 3, seq + 4, "$-1\r\n", []string{"GET", "x"}},
			step{1, seq + 5, seq + 8, fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$5\r\nfirst\r\n", len(q), q), []string{"BLPOP", "fresh" + q, q, "0"}},
			step{2, seq + 6, seq + 7, ":1\r\n", []string{"LPUSH", q, "second"}})
	}
	src := capture.CaseFile(exchanges(steps...), capture.Options{Suite: "s", Case: "blpop"})
	f, err := cases.Load("blpop.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	for i := range 3 {
		rep, err := runner.Run(t.Context(), []*cases.File{f}, runner.Options{Addr: srv.Addr(), Protos: []int{2}, RunID: runner.NewRunID()})
		if err != nil {
			t.Fatal(err)
		}
		if res := rep.Results[0]; res.Status != runner.Pass {
			t.Fatalf("replay %d: %s %s %+v", i+1, res.Status, res.Reason, res.Failure)
		}
	}
}

// TestBlockingWaitsItsOwnTime: a blocking command whose own timeout is
// longer than the replay's step deadline (5 s) says so in its step: a
// BLPOP ... 7 that nothing woke ended the replay as a lost server (found
// by a review, 2026-12-07), and the time it waited is no pause after it
// (a sleep of 5 s followed it). Shorter ones keep the default deadline.
func TestBlockingWaitsItsOwnTime(t *testing.T) {
	ex := exchanges(
		step{1, 1, 2, "*-1\r\n", []string{"BLPOP", "q", "7"}},
		step{1, 3, 4, "*-1\r\n", []string{"BLPOP", "q", "0.5"}},
		step{1, 5, 6, "*-1\r\n", []string{"XREAD", "BLOCK", "6500", "STREAMS", "s", "$"}},
		step{1, 7, 8, "*-1\r\n", []string{"BZMPOP", "4.5", "1", "z", "MIN"}},
		step{1, 9, 10, "+OK\r\n", []string{"SET", "x", "1"}},
	)
	// The first BLPOP waited its 7 s, and the SET came 10 ms after its
	// reply: the replay waits for the BLPOP too, and sleeps nothing more.
	t0 := time.Now()
	ex[0].SentTime, ex[0].RepliedTime = t0, t0.Add(7*time.Second)
	ex[4].SentTime = t0.Add(7*time.Second + 10*time.Millisecond)
	src := string(capture.CaseFile(ex, capture.Options{Suite: "s", Case: "c"}))
	if strings.Contains(src, "sleep:") {
		t.Errorf("a sleep after the BLPOP's own wait:\n%s", src)
	}
	for _, want := range []string{"timeout: 9s #", "timeout: 8.5s #", "timeout: 6.5s #"} {
		if !strings.Contains(src, want) {
			t.Errorf("the file lacks %s:\n%s", want, src)
		}
	}
	if n := strings.Count(src, "timeout:"); n != 3 {
		t.Errorf("%d steps with a timeout, want 3:\n%s", n, src)
	}
	if _, err := cases.Load("c.yaml", []byte(src)); err != nil {
		t.Errorf("%v\n%s", err, src)
	}
}

// TestLearningThatRunsOutSaysSo: noise learning cut short by its context
// (a Ctrl-C's 3 s) returns an error, not "nothing differed": the steps
// the twin did not run are skips (a review's capture said "0 captured
// replies differed" and kept replies that differ on every replay).
func TestLearningThatRunsOutSaysSo(t *testing.T) {
	ex := exchanges(step{1, 1, 2, "*-1\r\n", []string{"BLPOP", "q", "2"}}, step{1, 3, 4, ":5\r\n", []string{"INCRBY", "n", "5"}})
	srv := servers.ForTest(t, "redis-8.6.3")
	twin := func(context.Context) (runner.Options, func(), error) {
		return runner.Options{Addr: srv.Addr()}, func() {}, nil
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, n, err := capture.LearnNoise(ctx, ex, capture.Options{Suite: "s", Case: "c"}, twin, 3); err == nil {
		t.Errorf("learned %d, no error, after its context ended", n)
	}
}
