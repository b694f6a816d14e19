package explore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
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
// finding named EVAL (the bundled suite declares it, so `explore` calls it
// known), shrunk to one scripted command; no other finding is that tail
// again under another name.
func TestScriptedCommands(t *testing.T) {
	g, a := grammarOf(t, "redis-8.6.3")
	a2 := target.Config{Addr: servers.ForTest(t, "redis-8.6.3").Addr(), Timeout: 10 * time.Second}
	b := target.Config{Addr: servers.ForTest(t, "valkey-9.1.2").Addr(), Timeout: 10 * time.Second}
	opts := Options{Grammar: g, Seed: 5, Sequences: 200}
	var closers []func()
	for _, x := range []struct {
		dst *Exec
		cfg target.Config
	}{{&opts.A, a}, {&opts.A2, a2}, {&opts.B, b}} {
		ex, cl := ConnExec(x.cfg, 10*time.Second)
		*x.dst, closers = ex, append(closers, cl)
	}
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	tails, scripted := 0, 0
	for _, f := range rep.Findings {
		last := f.Seq[len(f.Seq)-1]
		_, _, wrapped := unwrapEval(last)
		switch {
		case strings.HasPrefix(f.Signature, "EVAL: a script error ends"):
			tails++
			if f.Command != "EVAL" || !wrapped || len(f.Seq) != 1 {
				t.Errorf("the tail finding: command %q, sequence %q: want EVAL, one scripted command", f.Command, f.Seq)
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
	if tails != 1 {
		t.Errorf("%d findings of script error tails, want one", tails)
	}
	t.Logf("%d sequences, %d findings, %d of them of other scripted commands", rep.Sequences, len(rep.Findings), scripted)
}
