package cases

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKnownAndNoPushErrors: misplaced step known differences, crash: true
// and no_push are load errors at their file:line:col.
func TestKnownAndNoPushErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"known on an async send", stepsFile("      - {send: [PING], async: true, known: [{server: valkey, reason: r}]}\n      - {read: true}\n"),
			[]string{`5:37: known on an async send: put it on the read step that reads the reply`}},
		{"known on a cleanup step", stepsFile("      - {send: [PING]}\n    cleanup:\n      - {send: [PING], known: [{server: valkey, reason: r}]}\n"),
			[]string{`7:24: known on a cleanup step: a cleanup step must succeed (give the case or a step of steps the known difference)`}},
		{"known on a sleep step", stepsFile("      - {sleep: 1ms, known: [{server: valkey, reason: r}]}\n"),
			[]string{`5:22: "known" is not allowed in a sleep step`}},
		{"crash on a step", stepsFile("      - {send: [PING], known: [{server: valkey, reason: r, crash: true}]}\n"),
			[]string{`5:60: crash: true is a case's known difference (the server dies on the case): move it to the case's known`}},
		{"crash not a boolean", "suite: t\ncases:\n  - name: c\n    known: [{server: valkey, reason: r, crash: yes}]\n    steps: [{send: [PING]}]\n",
			[]string{`4:48: crash must be true or false, not "yes"`}},
		{"step known without reason", stepsFile("      - {send: [PING], known: [{server: \"valkey resp3\"}]}\n"),
			[]string{`5:32: missing field "reason"`}},
		{"step known bad selector", stepsFile("      - {send: [PING], known: [{server: resp4, reason: r}]}\n"),
			[]string{`5:41: bad selector "resp4": unknown term "resp4"`}},
		{"no_push on a push step", stepsFile("      - {push: {any: true}, no_push: true}\n"),
			[]string{`5:29: "no_push" is not allowed in a push step (no_push is for send, raw and read steps: a push step reads a push)`}},
		{"no_push on an async send", stepsFile("      - {send: [PING], async: true, no_push: true}\n      - {read: true}\n"),
			[]string{`5:37: no_push on an async send: put it on the read step that reads the reply`}},
		{"no_push not a boolean", stepsFile("      - {send: [PING], no_push: 1}\n"),
			[]string{`5:33: no_push must be true or false, not "1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, loadErrs(t, tc.src, Options{})); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nsource:\n%s", diff, tc.src)
			}
		})
	}
}

// TestKnownForms: a step's known differences (with a protocol term), a
// case's known crash (which makes the case exclusive) and no_push load
// into Step.Known, Known.Crash and Step.NoPush; KnownFor matches by server
// and protocol.
func TestKnownForms(t *testing.T) {
	src := `suite: t
cases:
  - name: c
    known: [{server: "valkey<9", crash: true, reason: dies}]
    steps:
      - send: [PING]
        no_push: true
        known:
          - {server: "redis resp3", reason: only in RESP3}
      - {send: [PING]}
`
	f, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	if !c.Exclusive || len(c.Known) != 1 || !c.Known[0].Crash {
		t.Errorf("case: exclusive %v, known %+v; want an exclusive case with a known crash", c.Exclusive, c.Known)
	}
	st := c.Steps[0]
	if !st.NoPush || c.Steps[1].NoPush || len(st.Known) != 1 || st.Known[0].Crash {
		t.Errorf("step 1: no_push %v, known %+v", st.NoPush, st.Known)
	}
	redis := ServerInfo{Family: "redis", Version: Version{8, 6, 3}}
	for proto, want := range map[int]bool{2: false, 3: true} {
		redis.Proto = proto
		if got := st.KnownFor(redis) != nil; got != want {
			t.Errorf("RESP%d: known %v, want %v", proto, got, want)
		}
	}
	valkey := ServerInfo{Family: "valkey", Version: Version{8, 0, 1}, Proto: 2}
	if st.KnownFor(valkey) != nil || c.KnownFor(valkey) == nil {
		t.Errorf("valkey 8.0.1: step known %v, case known %v", st.KnownFor(valkey), c.KnownFor(valkey))
	}
}
