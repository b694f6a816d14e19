package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// TestBusyBlockReplies: a busy block on Redis 8.6.3 answers what the
// bundled suite's busy-script cases expect: BUSY to PING and a data
// command, the BUSY text naming the other kill to the kill that does not
// fit, OK to the kill, the killed script's error to the marker; a block
// cut before its kill is killed by the Exec; and the threshold is set
// back, the library deleted, the connection usable after.
func TestBusyBlockReplies(t *testing.T) {
	_, cfg := grammarOf(t, "redis-8.6.3")
	ex, closeEx := ConnExec(cfg, 10*time.Second)
	defer closeEx()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	busy := "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"
	fbusy := "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n"
	for _, proto := range []int{2, 3} {
		seq := [][]string{
			{"GET", KeyPrefix + "str"},
			{"EVAL", busyScript, "0"}, {"PING"}, {"GET", KeyPrefix + "str"}, {"FUNCTION", "KILL"}, {"SCRIPT", "KILL"},
			{"ECHO", "after"},
			{"FCALL", busyFunction, "0"}, {"SCRIPT", "KILL"}, {"FUNCTION", "KILL"},
			// cut before its kill: the block goes on to the end
			{"EVAL", busyScript, "0"}, {"PING"}, {"GET", KeyPrefix + "str"},
		}
		out, err := ex(ctx, proto, seq)
		if err != nil {
			t.Fatalf("RESP%d: %v", proto, err)
		}
		want := []string{"$5\r\nhello\r\n",
			"-ERR Script killed by user with SCRIPT KILL...", "=" + busy, "=" + busy, "=" + busy, "=+OK\r\n",
			"=$5\r\nafter\r\n",
			"-ERR Script killed by user with SCRIPT KILL...", "=" + fbusy, "=+OK\r\n",
			"-ERR Script killed by user with SCRIPT KILL...", "=" + busy, "=" + busy}
		want[0] = "=" + want[0]
		for i, w := range want {
			got := string(out[i])
			ok := strings.HasPrefix(got, w)
			if exact, found := strings.CutPrefix(w, "="); found {
				ok = got == exact
			}
			if !ok {
				t.Errorf("RESP%d: %q answered %q, want %q", proto, seq[i][0], got, w)
			}
		}
		after := [][]string{{"CONFIG", "GET", "lua-time-limit"}, {"FUNCTION", "LIST", "LIBRARYNAME", busyFunction}, {"GET", KeyPrefix + "str"}}
		if out, err = ex(ctx, proto, after); err != nil {
			t.Fatal(err)
		}
		threshold := map[int]string{2: "*2\r\n", 3: "%1\r\n"}[proto] + "$14\r\nlua-time-limit\r\n$4\r\n5000\r\n"
		if string(out[0]) != threshold || string(out[1]) != "*0\r\n" || string(out[2]) != "$5\r\nhello\r\n" {
			t.Errorf("RESP%d: after the blocks, %q answered %q", proto, after, out)
		}
	}
}

// TestBusyBlocksFindTheSuitesDifferences: with busy blocks, Redis 8.6.3
// against Valkey 9.1.2 finds the differences the bundled suite declares
// for busy scripts: PING (BUSY's text), SCRIPT and FUNCTION (the kill
// that does not fit).
func TestBusyBlocksFindTheSuitesDifferences(t *testing.T) {
	opts := throwawayTargets(t, "redis-8.6.3", "valkey-9.1.2")
	opts.Grammar = slices.DeleteFunc(opts.Grammar, func(c Command) bool { return c.Group != sessionGroup })
	opts.Seed, opts.Sequences, opts.Length, opts.Busy = 3, 60, 3, 0.5
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range rep.Findings {
		found[f.Command] = true
		t.Logf("%s\n  %q", f.Signature, f.Seq)
	}
	for _, want := range []string{"PING", "SCRIPT", "FUNCTION"} {
		if !found[want] {
			t.Errorf("no difference found in %s", want)
		}
	}
}

// TestBusyBlockEdges: what the shrinker or a block drawn without its
// kill leaves (found by a review): the commands after a block without its
// kill run as any others (each answered BUSY would be a finding of its
// own); a MULTI left open before a block does not queue the block's
// commands and the part's sentinel (a timeout, and a live server taken
// for lost); busyCleanup kills a script left running and sets the
// threshold back.
func TestBusyBlockEdges(t *testing.T) {
	_, cfg := grammarOf(t, "redis-8.6.3")
	ex, closeEx := ConnExec(cfg, 3*time.Second)
	defer closeEx()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seq := [][]string{{"EVAL", busyScript, "0"}, {"PING"}, {"SET", KeyPrefix + "new", "v"}, {"GET", KeyPrefix + "new"}}
	out, err := ex(ctx, 3, seq)
	if err != nil || string(out[2]) != "+OK\r\n" || string(out[3]) != "$1\r\nv\r\n" {
		t.Errorf("after a block without its kill: %v %q", err, out)
	}
	seq = [][]string{{"MULTI"}, {"GET", KeyPrefix + "str"}, {"EVAL", busyScript, "0"}, {"PING"}, {"SCRIPT", "KILL"}, {"GET", KeyPrefix + "str"}}
	out, err = ex(ctx, 2, seq)
	if err != nil || !strings.HasPrefix(string(out[3]), "-BUSY") || string(out[4]) != "+OK\r\n" || string(out[5]) != "$5\r\nhello\r\n" {
		t.Errorf("a MULTI left open before a block: %v %q", err, out)
	}

	// A script left running with the threshold lowered, as a block that
	// failed halfway leaves them.
	cn, err := cfg.Dial(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	if _, err := roundTrip(cn, 3*time.Second, []string{"CONFIG", "SET", "lua-time-limit", busyThreshold}); err != nil {
		t.Fatal(err)
	}
	cn.NC.Write(resp.AppendCommandString(nil, "EVAL", busyScript, "0"))
	time.Sleep(50 * time.Millisecond)
	busyCleanup(ctx, cfg, "5000", 3*time.Second)
	out, err = ex(ctx, 2, [][]string{{"PING"}, {"CONFIG", "GET", "lua-time-limit"}})
	if err != nil || string(out[0]) != "+PONG\r\n" || !strings.HasSuffix(string(out[1]), "$4\r\n5000\r\n") {
		t.Errorf("after busyCleanup: %v %q", err, out)
	}
}

// TestBusyDrawsItsOwnStream: a seed draws the same sequences with busy
// blocks on or off, but for the blocks themselves.
func TestBusyDrawsItsOwnStream(t *testing.T) {
	g, _ := grammarOf(t, "redis-8.6.3")
	off, on := NewGenerator(g, 42), NewGenerator(g, 42)
	on.Busy = 0.2
	blocks := 0
	for range 200 {
		want := off.Sequence(10)
		var got [][]string
		s := on.Sequence(10)
		for i := 0; i < len(s); {
			if busyKill(s[i]) != "" {
				// The block as drawn: its marker, up to its kill.
				end := i + 1
				for end < len(s) && inBlock(s[end]) && !isKill(s[end-1], busyKill(s[i])) {
					end++
				}
				i, blocks = end, blocks+1
				continue
			}
			got = append(got, s[i])
			i++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("with busy blocks the sequence is\n%q\nwithout\n%q", got, want)
		}
	}
	if blocks < 20 {
		t.Errorf("%d busy blocks in 200 sequences at 0.2", blocks)
	}
}
