package explore

import (
	"bytes"
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
// (MULTI blocks, and what the shrinker or a mutation may leave: a block
// without its EXEC, a DISCARD with an argument, a WATCH, a valid client
// name) leave each connection in database 0, in its protocol, outside a
// transaction, watching nothing, without a name or flags (closers): what
// the next sequence is compared on, whichever target reconnected.
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
		switch i % 4 {
		case 0:
			// a block cut before its EXEC, as the shrinker may
			seq = append(seq, []string{"MULTI"}, []string{"PING"})
		case 1:
			// a WATCH and a valid name left by the shrinker or a mutation
			seq = append(seq, []string{"WATCH", KeyPrefix + "str"}, []string{"CLIENT", "SETNAME", "notanumber"})
		case 2:
			// a DISCARD with an argument: an error that leaves the block open
			seq = append(seq, []string{"MULTI"}, []string{"DISCARD", KeyPrefix + "new"})
		}
		if _, err := ex(ctx, proto, seq); err != nil {
			t.Fatalf("sequence %d: %v\n%q", i, err, seq)
		}
		out, err := ex(ctx, proto, [][]string{{"CLIENT", "INFO"}})
		if err != nil {
			t.Fatal(err)
		}
		info := string(out[0])
		if !strings.Contains(info, " db=0 ") || !strings.Contains(info, fmt.Sprintf(" resp=%d ", proto)) || !strings.Contains(info, " multi=-1 ") ||
			!strings.Contains(info, " watch=0 ") || !strings.Contains(info, " name= ") || !strings.Contains(info, " flags=N ") {
			t.Fatalf("after sequence %d the connection changed: %s\n%q", i, info, seq)
		}
	}
}

// TestNoisyCommandInATransaction: an EXEC whose queued command answers at
// random (HRANDFIELD, tipped nondeterministic_output) is not a difference,
// and is not learned as noise either (the review found 10 false EXEC
// differences in 30 tries of three Redis 8.6.3 servers).
func TestNoisyCommandInATransaction(t *testing.T) {
	// side answers a sequence as a server would, HRANDFIELD with a value
	// of its own each time.
	side := func(name string) Exec {
		n := 0
		return func(_ context.Context, _ int, seq [][]string) ([][]byte, error) {
			var out [][]byte
			var queued [][]byte
			in := false
			for _, args := range seq {
				var r []byte
				switch strings.ToUpper(args[0]) {
				case "MULTI":
					in, queued, r = true, nil, []byte("+OK\r\n")
				case "EXEC", "DISCARD":
					if !in {
						r = []byte("-ERR " + args[0] + " without MULTI\r\n")
						break
					}
					in = false
					r = []byte("+OK\r\n")
					if strings.EqualFold(args[0], "EXEC") {
						r = fmt.Appendf(nil, "*%d\r\n%s", len(queued), bytes.Join(queued, nil))
					}
				default:
					n++
					r = []byte("+PONG\r\n")
					if strings.EqualFold(args[0], "HRANDFIELD") {
						r = fmt.Appendf(nil, "+%s%d\r\n", name, n)
					}
					if in {
						queued, r = append(queued, r), []byte("+QUEUED\r\n")
					}
				}
				out = append(out, r)
			}
			return out, nil
		}
	}
	g := []Command{
		{Name: "HRANDFIELD", Group: "hash", Args: []arg{{Name: "key", Type: "key"}}, Tips: map[string]bool{"nondeterministic_output": true}},
		{Name: "MULTI", Group: sessionGroup},
	}
	rep, err := Run(context.Background(), Options{A: side("a"), A2: side("b"), B: side("c"), Grammar: g, Seed: 1, Sequences: 50, Length: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Errorf("a finding: %s\n%q", f.Signature, f.Seq)
	}
	if slices.Contains(rep.Noise, "EXEC") {
		t.Errorf("EXEC learned as noise: %v", rep.Noise)
	}
}

// TestFieldNoise: a map whose one field differs between A and A2 is noise
// in that field only, and still compared in the others; an array whose
// one element differs is noise whole (HPEXPIRETIME's times: a false
// difference of one build against itself when an array's elements were
// taken for fields); canon keeps nesting apart ([[a b] c] is not
// [[a] b c]) and orders sets.
func TestFieldNoise(t *testing.T) {
	m := func(id, v string) []byte {
		return []byte("%3\r\n$2\r\nid\r\n:" + id + "\r\n$1\r\nv\r\n$1\r\n" + v + "\r\n$1\r\nw\r\n:0\r\n")
	}
	fs, ok := noisyFields(m("1", "a"), m("2", "a"), false)
	if !ok || len(fs) != 1 || !sameBut(m("1", "a"), m("7", "a"), map[string]bool{fs[0]: true}, false) || sameBut(m("1", "a"), m("7", "b"), map[string]bool{fs[0]: true}, false) {
		t.Errorf("map: noisy %q ok %v; want the id field only, the other compared", fs, ok)
	}
	if _, ok := noisyFields([]byte("*3\r\n:1\r\n:2\r\n:3\r\n"), []byte("*3\r\n:1\r\n:2\r\n:4\r\n"), false); ok {
		t.Errorf("an array's differing element was taken for a noisy field")
	}
	if sameBut([]byte("*2\r\n*2\r\n+a\r\n+b\r\n+c\r\n"), []byte("*3\r\n*1\r\n+a\r\n+b\r\n+c\r\n"), nil, false) {
		t.Errorf("canon: [[a b] c] equal to [[a] b c]")
	}
	if !sameBut([]byte("*2\r\n~2\r\n+a\r\n+b\r\n+c\r\n"), []byte("*2\r\n~2\r\n+b\r\n+a\r\n+c\r\n"), nil, false) {
		t.Errorf("canon: a nested set's order compared")
	}
}
