package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSessionCommandsFindTheSuitesDifferences: the session group alone,
// Redis 8.6.3 against Valkey 9.1.2, finds differences in commands whose
// replies the bundled suite declares per server for these two builds
// outside the data groups: HELLO's map (compared but for its connection
// id, noise learned per field), NOSCRIPT's text, script errors, unknown
// commands, a nested MULTI and a WATCH inside a transaction.
func TestSessionCommandsFindTheSuitesDifferences(t *testing.T) {
	opts := throwawayTargets(t, "redis-8.6.3", "valkey-9.1.2")
	opts.Grammar = slices.DeleteFunc(opts.Grammar, func(c Command) bool { return c.Group != sessionGroup })
	opts.Seed, opts.Sequences, opts.Length = 3, 300, 10
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
	for _, want := range []string{"HELLO", "EVALSHA", "EVALSHA_RO", "EVAL", "EVAL_RO", "MULTI", "WATCH", "COMMAND INFO"} {
		if !found[want] {
			t.Errorf("no difference found in %s", want)
		}
	}
	unknown := 0
	for name := range found {
		if slices.Contains(unknownNames, name) || strings.HasPrefix(name, "FFFF") {
			unknown++
		}
	}
	if unknown == 0 {
		t.Errorf("no difference found in an unknown command")
	}
}

// TestSessionCommandsKeepTheConnection: 200 sequences of session commands
// (MULTI blocks, and blocks shrunk without their EXEC included) leave each
// connection in database 0, in its protocol, outside a transaction: what
// the next sequence is compared on.
func TestSessionCommandsKeepTheConnection(t *testing.T) {
	g, cfg := grammarOf(t, "redis-8.6.3")
	g = slices.DeleteFunc(g, func(c Command) bool { return c.Group != sessionGroup })
	ex, closeEx := ConnExec(cfg, 10*time.Second)
	defer closeEx()
	gen := NewGenerator(g, 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 200 {
		proto := 2 + i%2
		seq := gen.Sequence(10)
		if i%3 == 0 {
			// a block cut before its EXEC, as the shrinker may
			seq = append(seq, []string{"MULTI"}, []string{"PING"})
		}
		if _, err := ex(ctx, proto, seq); err != nil {
			t.Fatalf("sequence %d: %v\n%q", i, err, seq)
		}
		out, err := ex(ctx, proto, [][]string{{"CLIENT", "INFO"}})
		if err != nil {
			t.Fatal(err)
		}
		info := string(out[0])
		if !strings.Contains(info, " db=0 ") || !strings.Contains(info, fmt.Sprintf(" resp=%d ", proto)) || !strings.Contains(info, " multi=-1 ") {
			t.Fatalf("after sequence %d the connection changed: %s\n%q", i, info, seq)
		}
	}
}
