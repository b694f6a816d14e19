package capture_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/internal/testrelay"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestPausesNeverExceedTheCapture: frames are timed when read and
// numbered when recorded; with --keys-before's lookups (behind an
// upstream 4 ms away) a pipeline's later commands are recorded after
// another connection's later command, so times go back in recording
// order. The case file's pauses must not count that gap twice: they add
// up to no more than the capture took (found by a review: 377 ms of sleep
// for a 296 ms capture).
func TestPausesNeverExceedTheCapture(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	up := testrelay.Start(t, srv.Addr(), testrelay.Options{ReplyDelay: 4 * time.Millisecond})
	rec, err := clients.NewRecorderWith(context.Background(), target.Config{Addr: up, Timeout: 10 * time.Second}, "127.0.0.1:0", clients.RecorderOptions{KeysBefore: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a, err := net.Dial("tcp", rec.Addr())
	if err != nil {
		t.Fatal(err)
	}
	b, err := net.Dial("tcp", rec.Addr())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []net.Conn{a, b} {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		defer c.Close()
	}
	ar, br := resp.NewReader(a), resp.NewReader(b)
	a.Write(resp.AppendCommandString(nil, "SET", "warm", "v")) // COMMAND INFO read once
	ar.Read()
	w := bufio.NewWriter(a)
	for i := range 60 {
		w.Write(resp.AppendCommandString(nil, "SET", fmt.Sprintf("rk%d", i), "v"))
	}
	w.Flush()
	time.Sleep(90 * time.Millisecond)
	b.Write(resp.AppendCommandString(nil, "SET", "bk", "v"))
	br.Read()
	for range 60 {
		ar.Read()
	}
	a.Write(resp.AppendCommandString(nil, "SET", "last", "v"))
	ar.Read()
	elapsed := time.Since(start)
	time.Sleep(50 * time.Millisecond)
	rec.Close()
	ex, _ := rec.Exchanges()
	sort.SliceStable(ex, func(i, j int) bool { return ex[i].SentAt < ex[j].SentAt })
	back := time.Duration(0)
	for i := 1; i < len(ex); i++ {
		if d := ex[i-1].SentTime.Sub(ex[i].SentTime); d > back {
			back = d
		}
	}
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "c"})
	var slept time.Duration
	for _, m := range regexp.MustCompile(`sleep: (\S+)`).FindAllSubmatch(src, -1) {
		d, _ := time.ParseDuration(string(m[1]))
		slept += d
	}
	t.Logf("capture took %s; SentTime goes back by up to %s in SentAt order; the case file sleeps %s in all", elapsed, back, slept)
	if slept > elapsed {
		t.Errorf("the replay would sleep %s, longer than the whole capture (%s)", slept, elapsed)
	}
}

// TestKeysConnectionIsNamed: the connection on which --keys-before reads
// the keys is one more client of the upstream; the application's CLIENT
// LIST through the proxy names it (a fresh user saw an unnamed
// connection sending OBJECT ENCODING).
func TestKeysConnectionIsNamed(t *testing.T) {
	rec := keysRecorder(t, servers.ForTest(t, "redis-8.6.3").Addr())
	defer rec.Close()
	c := dialProxy(t, rec)
	defer c.Close()
	r := resp.NewReader(c)
	var list resp.Value
	var err error
	for _, args := range [][]string{{"GET", "k"}, {"CLIENT", "LIST"}} {
		c.Write(resp.AppendCommandString(nil, args...))
		if list, err = r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(list.Str), "name="+clients.KeysClientName+" ") {
		t.Errorf("CLIENT LIST does not name the keys' connection %s:\n%s", clients.KeysClientName, list.Str)
	}
}

// TestUnorderedWithoutAnUpstream: when the upstream cannot be asked (gone
// when the capture ends), respcheck's own list of the commands whose
// replies have no order decides (a review found every reply left in its
// captured order).
func TestUnorderedWithoutAnUpstream(t *testing.T) {
	ex := func(args ...string) clients.Exchange {
		var a [][]byte
		for _, s := range args {
			a = append(a, []byte(s))
		}
		return clients.Exchange{Args: a, Replies: [][]byte{[]byte("*0\r\n")}}
	}
	got, err := capture.Unordered(context.Background(), nil, []clients.Exchange{ex("smembers", "s"), ex("LRANGE", "l", "0", "-1"), ex("HGETALL", "h"), ex("KEYS", "*")})
	if err != nil || !maps.Equal(got, map[int]bool{0: true, 2: true, 3: true}) {
		t.Errorf("%v %v, want SMEMBERS, HGETALL and KEYS (0, 2, 3)", got, err)
	}
}

// TestTTLCountsDown: a TTL's positive reply is expected within the time
// from the capture's start to the command plus 2 s, since the replay
// reaches it sooner or later than the application did (a fresh user's
// replay through 2 ms of latency got :3599 for a captured :3600); -1 and
// -2 stay exact.
func TestTTLCountsDown(t *testing.T) {
	start := time.Now()
	ex := func(at time.Duration, reply string, args ...string) clients.Exchange {
		var a [][]byte
		for _, s := range args {
			a = append(a, []byte(s))
		}
		seq := uint64(2*at/time.Millisecond) + 1
		return clients.Exchange{Conn: 1, Args: a, Replies: [][]byte{[]byte(reply)}, SentAt: seq, RepliedAt: seq + 1, SentTime: start.Add(at)}
	}
	// The key is given 2 s less than the TTL the application read (a key
	// found before and read earlier, a slower link): the replay answers
	// 3597 where 3599 was captured, 40 ms in (no pause).
	src := capture.CaseFile([]clients.Exchange{ex(0, "+OK\r\n", "SET", "k", "v", "EX", "3597"), ex(40*time.Millisecond, ":3599\r\n", "TTL", "k"),
		ex(80*time.Millisecond, ":-2\r\n", "TTL", "nosuch")}, capture.Options{Suite: "s", Case: "c"})
	for _, want := range []string{`value: {double: "3599", within: 2}`, `reply: ":-2\r\n"`} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the file lacks %s:\n%s", want, src)
		}
	}
	f, err := cases.Load("ttl.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if res := replay(t, f, "redis-8.6.3"); res.Status != runner.Pass {
		t.Errorf("replay: %s %s %+v\n%s", res.Status, res.Reason, res.Failure, src)
	}
}
