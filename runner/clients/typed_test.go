package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestNodeTyped runs seed 000 and the SET IF*/DIGEST case through the Node
// clients in typed-wrapper mode (node-redis set({condition, matchValue,
// GET}) and digest(), ioredis set(key, value, 'IFEQ', v, 'GET')...) on
// Redis 8.6.3: every SET step goes through a wrapper, the wrapper sends the
// case's own command, and what it returns matches the reply it received.
func TestNodeTyped(t *testing.T) {
	ext := externalDrivers(t, "node-redis-typed", "ioredis-typed")
	if len(ext) == 0 {
		return
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	files := append(loadTestdata(t, "seed000.yaml"), loadTestdata(t, "typed.yaml")...)
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ext, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep, false)
	steps := 0
	for _, res := range rep.Results {
		if res.Reason != "" {
			t.Errorf("%s %q: %s %s", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
		for _, sv := range res.Steps {
			if sv.Step.Action != cases.ActSend {
				continue
			}
			steps++
			cmd := strings.ToUpper(string(sv.Step.Send[0].Source()))
			if sv.Verdict == Skip {
				// Typed mode skips what has no wrapper (GET here; DIGEST
				// in ioredis, which declares no digest()) and the steps
				// that use a skipped step's capture: never a silent
				// generic call.
				digestless := cmd == "DIGEST" || strings.Contains(fmt.Sprint(sv.Step.Send), "cap:d")
				if (cmd == "SET" || cmd == "DIGEST") && !(digestless && strings.HasPrefix(res.Client, "ioredis-typed/")) || len(sv.Notes) == 0 {
					t.Errorf("%s %s line %d: skipped %v", res.Client, cmd, sv.Step.Pos.Line, sv.Notes)
				}
				continue
			}
			wantTyped := cmd == "SET" || cmd == "DIGEST"
			if wantTyped != (sv.Typed != "") {
				t.Errorf("%s %s (line %d): typed wrapper %q, want one: %v", res.Client, cmd, sv.Step.Pos.Line, sv.Typed, wantTyped)
			}
			if sv.Wire != nil {
				t.Errorf("%s line %d: the wrapper sent another command: %v", res.Client, sv.Step.Pos.Line, sv.Notes)
			}
			if sv.Verdict.Finding() {
				t.Errorf("%s line %d via %s: %s %v (received %q, decoded %v)", res.Client, sv.Step.Pos.Line, sv.Typed, sv.Verdict, sv.Notes, sv.Reply, sv.Native)
			}
		}
	}
	if steps == 0 {
		t.Fatal("no step ran")
	}
	for _, c := range rep.Clients {
		sv := stepView(t, rep, c.Name, "SET IFEQ GET with a failed condition", 18)
		if string(sv.Reply) != "$8\r\noriginal\r\n" || sv.Native == nil || sv.Native.Kind != "string" || sv.Typed == "" {
			t.Errorf("%s SET IFEQ GET via %q: received %q, decoded %v (%s)", c.Name, sv.Typed, sv.Reply, sv.Native, sv.Verdict)
		} else {
			t.Logf("%s: SET ... IFEQ wrong-guess GET via %s decoded as %s: %s", c.Name, sv.Typed, sv.Native, sv.Verdict)
		}
	}
}

// TestTypedLimits runs testdata/clients/typed-limits.yaml through
// go-redis-typed, redis-py-typed and node-redis-typed on Redis 8.6.3: a command the case
// expects the server to accept and the typed API cannot send is
// inexpressible, with the API's limit and its source in the note; one the
// server may refuse (an expectation that allows an error, a +QUEUED) is a
// skip; SetArgs's own option order is
// inexpressible once the proxy saw the same arguments.
func TestTypedLimits(t *testing.T) {
	drivers := append([]Driver{goRedisTypedDriver}, externalDrivers(t, "redis-py-typed", "node-redis-typed")...)
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), loadTestdata(t, "typed-limits.yaml"), Options{Target: target.Config{Addr: srv.Addr()}, Drivers: drivers, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep, true)
	const name = "a zero digest, two conditions, options out of a wrapper's order"
	type want struct {
		line    int
		verdict Verdict
		note    string // a note holds this
	}
	wants := map[string][]want{
		"go-redis-typed": {
			{15, Inexpressible, "MatchDigest 0 is read as no digest"},
			{17, Skip, "as the server may refuse it: the case's expectation allows an error"},
			{21, Inexpressible, "in its own order"},
			{24, Inexpressible, "SetArgs.Get is one bool"},
			{26, Inexpressible, "in its own order"},
			{28, Inexpressible, "at most about 292 years"},
			{31, Inexpressible, "SetArgs.ExpireAt of whole seconds goes out as EXAT"},
			{33, Erased, "simple and blob strings look alike"},
			{47, Skip, "the case queues it in a transaction"},
		},
		"redis-py-typed": {
			{15, Inexpressible, "no parameter for the option 'IFDEQ' (Redis.set(name, value, ex, px, nx, xx, keepttl, get, exat, pxat) in redis/commands/core.py line"},
			{21, Inexpressible, "sends SET's options in its own order (redis/commands/core.py line"},
			{24, Inexpressible, "get is one parameter: GET twice cannot be sent"},
			{47, Skip, "the case queues it in a transaction"},
		},
		"node-redis-typed": {
			{17, Skip, "options.condition holds one condition: NX and XX cannot both be sent"},
			{21, Inexpressible, "set() sends SET's options in its own order: the expiry, the condition, GET (set() in @redis/client dist/lib/commands/SET.js, node-redis "},
			{24, Inexpressible, "options.GET is one boolean"},
			{26, Inexpressible, "in its own order"},
			{36, Skip, "time is not text"},
		},
	}
	for _, c := range rep.Clients {
		for _, w := range wants[c.Library] {
			in := name
			if w.line > 40 {
				in = "a zero digest queued in a transaction"
			}
			sv := stepView(t, rep, c.Name, in, w.line)
			if sv.Verdict != w.verdict || !strings.Contains(strings.Join(sv.Notes, "\n"), w.note) {
				t.Errorf("%s line %d: %s %q, want %s with a note holding %q", c.Name, w.line, sv.Verdict, sv.Notes, w.verdict, w.note)
			}
			if w.verdict == Inexpressible && sv.Rule != ruleInexpressible {
				t.Errorf("%s line %d: rule %q, want %q", c.Name, w.line, sv.Rule, ruleInexpressible)
			}
		}
	}
}

// TestJudgeWire: a typed wrapper's documented respelling (the same SET,
// its options each with its value in another order, option names and a
// digest's hex digits in another case) is inexpressible; a dropped,
// altered or swapped argument stays a wire mismatch, and so does any
// change from a wrapper that declares no respelling, or to another
// command.
func TestJudgeWire(t *testing.T) {
	args := [][]byte{[]byte("SET"), []byte("k"), []byte("v"), []byte("IFDEQ"), []byte("ACEEE8F5DE193E29"), []byte("GET")}
	ifeq := [][]byte{[]byte("SET"), []byte("MyKey"), []byte("v"), []byte("IFEQ"), []byte("5"), []byte("EX"), []byte("10")}
	for _, tc := range []struct {
		args            [][]byte
		wire, respelled string
		want            Verdict
	}{
		// helper-37's: option values swapped, key and value swapped, a
		// key's letter case changed.
		{ifeq, "*7\r\n$3\r\nset\r\n$5\r\nMyKey\r\n$1\r\nv\r\n$2\r\nex\r\n$2\r\n10\r\n$4\r\nifeq\r\n$1\r\n5\r\n", "own order", Inexpressible},
		{ifeq, "*7\r\n$3\r\nset\r\n$5\r\nMyKey\r\n$1\r\nv\r\n$2\r\nex\r\n$1\r\n5\r\n$4\r\nifeq\r\n$2\r\n10\r\n", "own order", Mismatch},
		{ifeq, "*7\r\n$3\r\nset\r\n$1\r\nv\r\n$5\r\nMyKey\r\n$2\r\nex\r\n$2\r\n10\r\n$4\r\nifeq\r\n$1\r\n5\r\n", "own order", Mismatch},
		{ifeq, "*7\r\n$3\r\nset\r\n$5\r\nmykey\r\n$1\r\nv\r\n$2\r\nex\r\n$2\r\n10\r\n$4\r\nifeq\r\n$1\r\n5\r\n", "own order", Mismatch},
		{[][]byte{[]byte("DEL"), []byte("a"), []byte("b")}, "*3\r\n$3\r\nDEL\r\n$1\r\nb\r\n$1\r\na\r\n", "own order", Mismatch},
		{args, "*6\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$3\r\nget\r\n$5\r\nifdeq\r\n$16\r\naceee8f5de193e29\r\n", "own order", Inexpressible},
		{args, "*5\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$5\r\nIFDEQ\r\n$16\r\nACEEE8F5DE193E29\r\n", "own order", Mismatch},
		{args, "*6\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nw\r\n$3\r\nget\r\n$5\r\nifdeq\r\n$16\r\naceee8f5de193e29\r\n", "own order", Mismatch},
		{args, "*6\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$3\r\nget\r\n$5\r\nifdeq\r\n$16\r\naceee8f5de193e29\r\n", "", Mismatch},
		{args, "*6\r\n$3\r\nget\r\n$1\r\nk\r\n$1\r\nv\r\n$3\r\nSET\r\n$5\r\nifdeq\r\n$16\r\naceee8f5de193e29\r\n", "own order", Mismatch},
	} {
		sv := &StepView{Args: tc.args, Wire: []byte(tc.wire), respelled: tc.respelled}
		(&session{}).judgeWire(sv)
		if sv.Verdict != tc.want {
			t.Errorf("wire %q, respelled %q: %s %q, want %s", tc.wire, tc.respelled, sv.Verdict, sv.Notes, tc.want)
		}
	}
}
