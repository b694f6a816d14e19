package explore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/target"
)

// TestScriptErrorTails: the same error inside a script, ended in each
// server's words (Redis 8.6.3's SHA1 and Valkey 9.1.2's none, the texts of
// cases/suite/scripting.yaml), is a tail difference; another error, an
// unwrapped command, or equal tails are not.
func TestScriptErrorTails(t *testing.T) {
	wrapped := wrapEval([]string{"LPUSH", "{rx}:str", "a"}, 0)
	redis := []byte("-WRONGTYPE Operation against a key holding the wrong kind of value script: 5e1c8f0bd1a0a5e0d3d2c5f9a3e4b8c7d6e5f4a3, on @user_script:1.\r\n")
	valkey := []byte("-WRONGTYPE Operation against a key holding the wrong kind of value script: on @user_script:1.\r\n")
	ta, tb, ok := scriptErrorTails(wrapped, redis, valkey)
	if !ok || ta != "<sha>, on @user_script:#." || tb != "on @user_script:#." {
		t.Errorf("tails %q | %q, %v", ta, tb, ok)
	}
	other := []byte("-ERR syntax error script: on @user_script:1.\r\n")
	for name, c := range map[string]struct {
		args []string
		a, b []byte
	}{
		"another error":     {wrapped, redis, other},
		"not wrapped":       {[]string{"LPUSH", "{rx}:str", "a"}, redis, valkey},
		"another script":    {[]string{"EVAL", "return 1", "0", "LPUSH"}, redis, valkey},
		"same tails":        {wrapped, valkey, valkey},
		"not an error":      {wrapped, []byte(":1\r\n"), valkey},
		"no tail in either": {wrapped, []byte("-ERR x\r\n"), []byte("-ERR y\r\n")},
	} {
		if _, _, ok := scriptErrorTails(c.args, c.a, c.b); ok {
			t.Errorf("%s: taken for a script tail difference", name)
		}
	}
}

// TestScriptedCommands: Redis 8.6.3 against Valkey 9.1.2 with commands run
// inside scripts: every script error differs in its tail, which is one
// finding per script command, named EVAL or EVAL_RO (the bundled suite
// declares both, so `explore` calls them known), shrunk to one scripted
// command; no other finding is that tail again under another name.
func TestScriptedCommands(t *testing.T) {
	opts := throwawayTargets(t, "redis-8.6.3", "valkey-9.1.2")
	opts.Seed, opts.Sequences = 5, 200
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	tails, scripted := map[string]int{}, 0
	for _, f := range rep.Findings {
		last := f.Seq[len(f.Seq)-1]
		_, v, wrapped := unwrapEval(last)
		cmd, _, _ := strings.Cut(f.Signature, ": ")
		switch {
		case strings.Contains(f.Signature, ": a script error ends"):
			tails[cmd]++
			if f.Command != cmd || !wrapped || scriptVariants[v].cmd != cmd || len(f.Seq) != 1 {
				t.Errorf("the tail finding %q: command %q, sequence %q: want %s, one scripted command", f.Signature, f.Command, f.Seq, cmd)
			}
			if !strings.Contains(string(f.A), "script: ") || !strings.Contains(string(f.B), "script: on @user_script:") {
				t.Errorf("the tail finding's replies: A %q, B %q", f.A, f.B)
			}
		case wrapped:
			scripted++
			if _, _, ok := scriptErrorTails(last, f.A, f.B); ok {
				t.Errorf("%s: a tail difference under another name", f.Signature)
			}
		}
	}
	if tails["EVAL"] != 1 || tails["EVAL_RO"] != 1 || len(tails) != 2 {
		t.Errorf("findings of script error tails by script command: %v, want one for EVAL and one for EVAL_RO", tails)
	}
	t.Logf("%d sequences, %d findings, %d of them of other scripted commands", rep.Sequences, len(rep.Findings), scripted)
}

// TestScriptVariantsDropped: every variant is drawn (EVAL, EVAL after
// redis.setresp(3), EVAL_RO), and a script command a target lacks
// (Options.ScriptsMissing) is never sent.
func TestScriptVariantsDropped(t *testing.T) {
	get := Command{Name: "GET", Group: "string", Args: []arg{{Name: "key", Type: "key"}},
		Info: target.CommandInfo{Known: true, Arity: 2, FirstKey: 1, LastKey: 1, Step: 1}}
	for _, missing := range [][]string{nil, {"EVAL_RO"}, {"EVAL", "EVAL_RO"}} {
		gen := NewGenerator([]Command{get}, 1)
		gen.dropScripts(missing)
		seen := map[string]int{}
		for range 5000 {
			if _, v, ok := unwrapEval(gen.Command()); ok {
				seen[scriptVariants[v].name]++
			}
		}
		for _, v := range scriptVariants {
			dropped := slices.Contains(missing, v.cmd)
			if (seen[v.name] > 0) == dropped {
				t.Errorf("missing %v: %s drawn %d times", missing, v.name, seen[v.name])
			}
		}
	}
}

// counterExec is a server of one counter: INCR1 adds step (1 on A, 2 on
// B: a write that differs), READ answers the counter, anything else +OK;
// a command a script runs behaves as it does alone.
func counterExec(step int) Exec {
	return func(_ context.Context, _ int, seq [][]string) ([][]byte, error) {
		n := 0
		var out [][]byte
		for _, args := range seq {
			if inner, _, ok := unwrapEval(args); ok {
				args = inner
			}
			switch args[0] {
			case "INCR1":
				n += step
				out = append(out, []byte(":"+strconv.Itoa(n)+"\r\n"))
			case "READ":
				out = append(out, []byte(":"+strconv.Itoa(n)+"\r\n"))
			default:
				out = append(out, []byte("+OK\r\n"))
			}
		}
		return out, nil
	}
}

// TestScriptedTwinOfAWrite: once INCR1's difference is found, a scripted
// INCR1 that differs the same way is that finding, and since it is a
// write the keyspaces part there: READ after it is not compared (a
// review found GETBIT blamed for a scripted BITOP DIFF).
func TestScriptedTwinOfAWrite(t *testing.T) {
	grammar := []Command{
		{Name: "INCR1", Group: "string", Args: []arg{{Type: "key"}}, Flags: map[string]bool{"write": true}},
		{Name: "READ", Group: "list", Args: []arg{{Type: "key"}}},
		{Name: "NOP", Group: "hash", Args: []arg{{Type: "key"}}},
	}
	rep, err := Run(context.Background(), Options{A: counterExec(1), A2: counterExec(1), B: counterExec(2), Grammar: grammar, Seed: 1, Sequences: 300, Length: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Command == "READ" {
			t.Errorf("READ reported as a difference of its own: %q (A %q, B %q)", f.Seq, f.A, f.B)
		}
	}
}

// TestScriptedCrashDropsTheCommand: a command that crashes B inside a
// script is not drawn again, alone or in a script: one finding, one
// restart per crash found.
func TestScriptedCrashDropsTheCommand(t *testing.T) {
	grammar := []Command{
		{Name: "CRASH", Group: "string", Args: []arg{{Type: "key"}}},
		{Name: "NOP", Group: "hash", Args: []arg{{Type: "key"}}},
	}
	ok := counterExec(1)
	crashy := func(_ context.Context, _ int, seq [][]string) ([][]byte, error) {
		var out [][]byte
		for _, args := range seq {
			if inner, _, w := unwrapEval(args); w {
				args = inner
			}
			if args[0] == "CRASH" {
				return out, &LostError{Answered: len(out), Err: errors.New("EOF")}
			}
			out = append(out, []byte("+OK\r\n"))
		}
		return out, nil
	}
	// A seed whose first CRASH runs in a script.
	for seed := uint64(1); seed < 200; seed++ {
		g := NewGenerator(grammar, seed)
		var first []string
		for first == nil {
			for _, c := range g.Sequence(10) {
				if inner, _, w := unwrapEval(c); (w && inner[0] == "CRASH") || c[0] == "CRASH" {
					first = c
					break
				}
			}
		}
		if _, _, w := unwrapEval(first); !w {
			continue
		}
		rep, err := Run(context.Background(), Options{A: ok, A2: ok, B: crashy, Grammar: grammar, Seed: seed, Sequences: 50, Length: 10,
			Restart: func(context.Context, string) (Exec, error) { return crashy, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 1 || !strings.HasPrefix(rep.Findings[0].Signature, "EVAL") {
			for _, f := range rep.Findings {
				t.Logf("%s (seq %q)", f.Signature, f.Seq)
			}
			t.Errorf("seed %d: one scripted crash found as %d findings, want one", seed, len(rep.Findings))
		}
		return
	}
	t.Fatal("no seed draws CRASH in a script first")
}

// TestObjectEncodingCompared: OBJECT ENCODING's nondeterministic_output
// tip is not taken for noise (tipIgnored): an encoding that differs
// between A and B, and not between A and A2, is a finding.
func TestObjectEncodingCompared(t *testing.T) {
	grammar := []Command{{Name: "OBJECT ENCODING", Group: "generic", Args: []arg{{Name: "key", Type: "key"}},
		Tips: map[string]bool{"nondeterministic_output": true}}}
	enc := func(e string) Exec {
		return fakeExec(func([]string) string { return "$" + strconv.Itoa(len(e)) + "\r\n" + e + "\r\n" })
	}
	rep, err := Run(context.Background(), Options{A: enc("listpack"), A2: enc("listpack"), B: enc("hashtable"), Grammar: grammar, Seed: 1, Sequences: 5, Length: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Command != "OBJECT ENCODING" || slices.Contains(rep.Noise, "OBJECT ENCODING") {
		t.Errorf("findings %+v, noise %v: want OBJECT ENCODING's difference", rep.Findings, rep.Noise)
	}
}
