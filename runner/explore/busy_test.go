package explore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
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
