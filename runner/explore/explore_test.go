package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// grammarOf loads the grammar of a throwaway server of build and returns
// it with the server's address.
func grammarOf(t testing.TB, build string) ([]Command, target.Config) {
	t.Helper()
	srv := servers.ForTest(t, build)
	cfg := target.Config{Addr: srv.Addr(), Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cn, err := cfg.Dial(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	g, err := LoadGrammar(cn)
	if err != nil {
		t.Fatal(err)
	}
	return g, cfg
}

// TestGeneratorFollowsTheGrammar: on the grammars of Redis 8.6.3 and
// Valkey 9.1.2 (COMMAND DOCS), every command drawn without mutation has a
// shape its argument tree allows (inside EVAL for about a tenth of
// them), most mutated ones do not, and every group is drawn (none
// starves).
func TestGeneratorFollowsTheGrammar(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			g, _ := grammarOf(t, build)
			if len(g) < 150 {
				t.Fatalf("%d commands in the grammar, want the data groups' 150 or more", len(g))
			}
			for _, forbidden := range []float64{0, 1} {
				gen := NewGenerator(g, 1)
				gen.Forbidden = forbidden
				groups := map[string]int{}
				bad, scripted := 0, 0
				const n = 20000
				for range n {
					c, args := gen.draw()
					// A command run by a script: EVAL, the script, 0, then
					// the command as drawn.
					if inner, _, ok := unwrapEval(args); ok {
						scripted++
						args = inner
					}
					groups[c.Group]++
					if !c.Allows(args[len(c.Words()):]) {
						if bad++; forbidden == 0 && bad <= 5 {
							t.Errorf("%s: %q is not a shape its grammar allows", c.Name, args)
						}
					}
				}
				// A mutation that would name a key outside the keyspace is
				// drawn again (Command.Safe): fewer than half are left.
				if forbidden == 1 && bad < n*2/5 {
					t.Errorf("only %d of %d mutated commands break their grammar", bad, n)
				}
				if scripted < n/15 || scripted > n/7 {
					t.Errorf("%d of %d commands run by a script, want about a tenth (Scripted)", scripted, n)
				}
				for grp, k := range groups {
					if k < n/len(groups)/2 {
						t.Errorf("group %s drawn %d times of %d: starved", grp, k, n)
					}
				}
				if len(groups) < len(dataGroups)-1 {
					t.Errorf("groups drawn: %v, want the data groups %v", groups, dataGroups)
				}
			}
		})
	}
}

// TestAllows: the matcher itself, on SET's tree as Redis 8.6.3 gives it
// (condition and expiration oneofs, GET token).
func TestAllows(t *testing.T) {
	set := Command{Name: "SET", Args: []arg{
		{Name: "key", Type: "key"}, {Name: "value", Type: "string"},
		{Name: "condition", Type: "oneof", Optional: true, Args: []arg{{Type: "pure-token", Token: "NX"}, {Type: "pure-token", Token: "XX"}, {Name: "ifeq", Type: "string", Token: "IFEQ"}}},
		{Name: "get", Type: "pure-token", Token: "GET", Optional: true},
		{Name: "expiration", Type: "oneof", Optional: true, Args: []arg{{Type: "integer", Token: "EX"}, {Type: "pure-token", Token: "KEEPTTL"}}},
	}}
	mset := Command{Name: "MSET", Args: []arg{{Name: "data", Type: "block", Multiple: true, Args: []arg{{Type: "key"}, {Type: "string"}}}}}
	for _, c := range []struct {
		cmd  Command
		args string
		ok   bool
	}{
		{set, "k v", true}, {set, "k v NX GET EX 10", true}, {set, "k v IFEQ x KEEPTTL", true},
		{set, "k", false}, {set, "k v EX", false}, {set, "k v GET NX", false}, {set, "k v NX XX", false},
		{mset, "a 1 b 2", true}, {mset, "a 1 b", false}, {mset, "", false},
	} {
		if got := c.cmd.Allows(strings.Fields(c.args)); got != c.ok {
			t.Errorf("%s %s: Allows %v, want %v", c.cmd.Name, c.args, got, c.ok)
		}
	}
}

// fakeExec answers each command with reply(args), and reply(args) twice
// for a command named TWICE.
func fakeExec(reply func([]string) string) Exec {
	return func(_ context.Context, _ int, seq [][]string) ([][]byte, error) {
		var out [][]byte
		for _, args := range seq {
			out = append(out, []byte(reply(args)))
			if args[0] == "TWICE" {
				out = append(out, []byte(reply(args)))
			}
		}
		if len(out) != len(seq) {
			return out, &desyncError{Commands: len(seq), Replies: out}
		}
		return out, nil
	}
}

// TestShrinkPlanted: a difference planted in one command (PLANT) is
// shrunk to that command alone, its arguments dropped; one that needs a
// command before it (ARM, then PLANT) to those two; a reply count off
// (TWICE) to that command; and a command whose reply differs between A
// and A2 (RANDOM) is learned as noise, never reported, even when it
// differed from B before (LATE).
func TestShrinkPlanted(t *testing.T) {
	grammar := []Command{
		{Name: "GET", Group: "string", Args: []arg{{Type: "key"}}},
		{Name: "SET", Group: "string", Args: []arg{{Type: "key"}, {Type: "string"}}},
		{Name: "PLANT", Group: "string", Args: []arg{{Type: "key"}, {Type: "string"}}},
		{Name: "ARM", Group: "hash", Args: []arg{{Type: "key"}}},
		{Name: "TWICE", Group: "list"},
		{Name: "RANDOM", Group: "set"},
		{Name: "LATE", Group: "zset"},
	}
	same := func(args []string) string { return "+" + args[0] + "\r\n" }
	n, late := 0, 0
	a2 := func(args []string) string {
		switch args[0] {
		case "RANDOM":
			n++
			return fmt.Sprintf(":%d\r\n", n)
		case "LATE":
			// Agrees with A at first: differs from B before it is
			// learned as noise.
			if late++; late > 40 {
				return ":1\r\n"
			}
		}
		return same(args)
	}
	b := func(armed bool) Exec {
		return func(ctx context.Context, proto int, seq [][]string) ([][]byte, error) {
			var out [][]byte
			on := false
			for _, args := range seq {
				switch {
				case args[0] == "ARM":
					on = armed
					out = append(out, []byte(same(args)))
				case args[0] == "PLANT" && (on || !armed):
					out = append(out, []byte("-ERR planted\r\n"))
				case args[0] == "LATE":
					out = append(out, []byte(":2\r\n"))
				default:
					out = append(out, []byte(same(args)))
				}
			}
			return out, nil
		}
	}
	for _, armed := range []bool{false, true} {
		late = 0
		rep, err := Run(context.Background(), Options{A: fakeExec(same), A2: fakeExec(a2), B: b(armed), Grammar: grammar, Seed: 3, Sequences: 50, Length: 30})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"PLANT: simple string | simple error ERR planted": 1, "TWICE: A answers one command with another number of replies": 1}
		if armed {
			want["PLANT: simple string | simple error ERR planted"] = 2
		}
		got := map[string]int{}
		for _, f := range rep.Findings {
			got[f.Signature] = len(f.Seq)
			last := f.Seq[len(f.Seq)-1]
			if f.Signature == "PLANT: simple string | simple error ERR planted" && len(last) != 1 {
				t.Errorf("armed=%v: PLANT's arguments were not dropped: %q", armed, last)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("armed=%v: findings (signature: commands) %v, want %v", armed, got, want)
		}
		if !strings.Contains(strings.Join(rep.Noise, ","), "RANDOM") || !strings.Contains(strings.Join(rep.Noise, ","), "LATE") {
			t.Errorf("armed=%v: RANDOM not learned as noise: %v", armed, rep.Noise)
		}
	}
}

// throwawayTargets is Options with A, A2 (throwaway servers of build a,
// A's grammar) and B (of build b), their connections closed at the
// test's end.
func throwawayTargets(t *testing.T, a, b string) Options {
	t.Helper()
	g, ca := grammarOf(t, a)
	opts := Options{Grammar: g}
	for _, x := range []struct {
		dst *Exec
		cfg target.Config
	}{{&opts.A, ca}, {&opts.A2, target.Config{Addr: servers.ForTest(t, a).Addr(), Timeout: 10 * time.Second}},
		{&opts.B, target.Config{Addr: servers.ForTest(t, b).Addr(), Timeout: 10 * time.Second}}} {
		ex, closeEx := ConnExec(x.cfg, 10*time.Second)
		*x.dst = ex
		t.Cleanup(closeEx)
	}
	return opts
}

// TestSameBuildNoDifferences: two throwaway Redis 8.6.3 servers (and a
// third as A2) differ in nothing the explorer reports as a difference
// between them: what it reports is a fault of the build itself (a crash,
// a reply count off), in both protocols.
func TestSameBuildNoDifferences(t *testing.T) {
	opts := throwawayTargets(t, "redis-8.6.3", "redis-8.6.3")
	opts.Seed, opts.Sequences = 11, 400
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil && !strings.Contains(err.Error(), "stopped answering") {
		t.Fatal(err)
	}
	if rep.Sequences < 50 {
		t.Fatalf("only %d sequences ran", rep.Sequences)
	}
	for _, f := range rep.Findings {
		if f.Lost == "" && !f.Desync {
			t.Errorf("a difference between two servers of one build: %s\n%q\nA: %q\nB: %q", f.Signature, f.Seq, f.A, f.B)
		}
	}
	t.Logf("%d sequences, %d commands; faults: %d; noise: %v", rep.Sequences, rep.Commands, len(rep.Findings), rep.Noise)
}

// TestNothingOutsideTheKeyspace: on a server holding other data, a run
// of generated, mutated and shrunk commands (against Redis 7.0.15, which
// differs on most of them) leaves every other key as it was and, once closed,
// nothing under {rx}:: mutations and the argument shrinker never move a
// value into a key's place (an earlier shrinker dropped SET's key and
// wrote the key "\r\n").
func TestNothingOutsideTheKeyspace(t *testing.T) {
	g, a := grammarOf(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cn, err := a.Dial(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	for _, k := range []string{"user:1", "v", "x", "-1", "NX", "", "\r\n", "a b"} {
		if _, err := cn.Do("SET", k, "mine"); err != nil {
			t.Fatal(err)
		}
	}
	exA, closeA := ConnExec(a, 10*time.Second)
	// B lacks half of A's commands: every sequence differs and is shrunk.
	exB, closeB := ConnExec(target.Config{Addr: servers.ForTest(t, "redis-7.0.15").Addr()}, 10*time.Second)
	rep, err := Run(ctx, Options{A: exA, A2: exA, B: exB, Grammar: g, Seed: 1, Sequences: 1500})
	closeA()
	closeB()
	if err != nil && !strings.Contains(err.Error(), "stopped answering") {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 {
		t.Fatalf("no difference found: the shrinker was not exercised")
	}
	v, err := cn.Do("KEYS", "*")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range v.Elems {
		keys = append(keys, string(e.Str))
	}
	slices.Sort(keys)
	if want := []string{"", "\r\n", "-1", "NX", "a b", "user:1", "v", "x"}; !slices.Equal(keys, want) {
		t.Errorf("keys after the run: %q, want only the server's own %q", keys, want)
	}
	for _, k := range keys {
		if got, _ := cn.Do("GET", k); string(got.Str) != "mine" {
			t.Errorf("%q is %q, no longer the server's own value", k, got.Raw)
		}
	}
}

// TestOracleFindings: a reply the Oracle rejects (A's schema) is a
// finding of A, shrunk to its one command, apart from the differences;
// only RESP3 replies are judged.
func TestOracleFindings(t *testing.T) {
	grammar := []Command{
		{Name: "GET", Group: "string", Args: []arg{{Type: "key"}}},
		{Name: "BADREPLY", Group: "list", Args: []arg{{Type: "key"}, {Type: "string", Optional: true}}},
	}
	same := fakeExec(func(args []string) string { return "+" + args[0] + "\r\n" })
	oracle := func(args []string, reply []byte) string {
		if args[0] == "BADREPLY" {
			return "badreply.json#/type"
		}
		return ""
	}
	rep, err := Run(context.Background(), Options{A: same, A2: same, B: same, Grammar: grammar, Seed: 1, Sequences: 20,
		Oracle: oracle, Progress: func(Progress) {}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings: %+v", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Schema != "badreply.json#/type" || f.Difference() || len(f.Seq) != 1 || len(f.Seq[0]) != 1 || f.Side != "A" {
		t.Errorf("finding: %+v (want BADREPLY alone, its arguments dropped, a schema finding of A)", f)
	}
	if !slices.Equal(f.Protos, []int{3}) {
		t.Errorf("protocols %v, want RESP3 only", f.Protos)
	}
}

// TestSafeReadsKeysAsTheServerDoes: a count that does not match what
// follows it makes the server take a token for a key (MSETEX 3 with two
// pairs takes PX for the third key, Redis 8.6.3's key specifications);
// such a shape is not safe although the grammar also matches it with PX
// as a token. Found by TestNothingOutsideTheKeyspace, which wrote a key
// PX on the server's own data.
func TestSafeReadsKeysAsTheServerDoes(t *testing.T) {
	g, _ := grammarOf(t, "redis-8.6.3")
	var msetex *Command
	for i := range g {
		if g[i].Name == "MSETEX" {
			msetex = &g[i]
		}
	}
	if msetex == nil {
		t.Fatal("no MSETEX in Redis 8.6.3's grammar")
	}
	if bad := []string{"MSETEX", "3", "{rx}:str", "3.5", "{rx}:int", "b", "PX", "-9223372036854775808"}; msetex.Safe(bad) {
		t.Errorf("%q is taken for safe: the server reads PX as its third key", bad)
	}
	if good := []string{"MSETEX", "2", "{rx}:str", "3.5", "{rx}:int", "b", "PX", "100000"}; !msetex.Safe(good) {
		t.Errorf("%q is taken for unsafe", good)
	}
}

// TestNeverBlocks: XREAD and XREADGROUP are drawn (their "blocking" flag
// is for BLOCK, which the explorer leaves out), never with BLOCK, and no
// other blocking command is in the grammar.
func TestNeverBlocks(t *testing.T) {
	g, _ := grammarOf(t, "redis-8.6.3")
	for _, c := range g {
		if c.Flags["blocking"] && c.Name != "XREAD" && c.Name != "XREADGROUP" {
			t.Errorf("%s blocks and is in the grammar", c.Name)
		}
	}
	gen := NewGenerator(g, 3)
	reads := 0
	for range 50000 {
		args := gen.Command()
		if inner, _, ok := unwrapEval(args); ok {
			args = inner
		}
		if name := strings.ToUpper(args[0]); name == "XREAD" || name == "XREADGROUP" {
			reads++
			for _, a := range args {
				if strings.EqualFold(a, "BLOCK") {
					t.Fatalf("%q would block", args)
				}
			}
		}
	}
	if reads == 0 {
		t.Error("XREAD and XREADGROUP were never drawn")
	}
	t.Logf("%d XREAD/XREADGROUP of 50,000 draws", reads)
}
