package clients

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

func TestVersionless(t *testing.T) {
	for in, want := range map[string]string{
		"redis-py-4.3.4+hiredis":                 "redis-py+hiredis",
		"redis-py-6.4.0[callbacks=none]":         "redis-py[callbacks=none]",
		"redis-py-6.4.0[decode_responses=True]":  "redis-py[decode_responses=True]",
		"redis-py-6.4.0":                         "redis-py",
		"go-redis":                               "go-redis",
		"valkey-go":                              "valkey-go",
		"ioredis-6.0.0[replyMapping=resp3]":      "ioredis[replyMapping=resp3]",
		"redis-py-4.3.4+hiredis[callbacks=none]": "redis-py+hiredis[callbacks=none]",
	} {
		if got := versionless(in); got != want {
			t.Errorf("versionless(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJudgeRedisPyConfigurations: for each redis-py configuration, a
// faithful value is a match and a wrong one is not; without callbacks,
// what the callbacks make (True for +OK, a dict for RESP2 pairs) is a
// mismatch.
func TestJudgeRedisPyConfigurations(t *testing.T) {
	pairs := "*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
	for _, tc := range []struct {
		client string
		reply  string
		n      Native
		want   Verdict
	}{
		{"redis-py-4.3.4+hiredis/resp2", "$8\r\noriginal\r\n", bytesNative("bytes", []byte("original")), Match},
		{"redis-py-4.3.4+hiredis/resp2", "$8\r\noriginal\r\n", bytesNative("bytes", []byte("origina")), Mismatch},
		{"redis-py-4.3.4+hiredis/resp2", "+OK\r\n", tx("bool", "bool", "true"), Match},
		{"redis-py-4.3.4+hiredis/resp2", pairs, dict("dict", "f", "v"), Converted},
		{"redis-py-4.3.4[callbacks=none]/resp2", "$8\r\noriginal\r\n", bytesNative("bytes", []byte("original")), Match},
		{"redis-py-4.3.4[callbacks=none]/resp2", "+OK\r\n", tx("bool", "bool", "true"), Mismatch},
		{"redis-py-4.3.4[callbacks=none]/resp2", pairs, dict("dict", "f", "v"), Mismatch},
		{"redis-py-6.4.0[callbacks=none]/resp3", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("dict", "f", "v"), Match},
		{"redis-py-6.4.0[callbacks=none]/resp3", "#t\r\n", tx("bool", "bool", "true"), Match},
		{"redis-py-6.4.0[callbacks=none]/resp3", "#t\r\n", tx("bool", "bool", "false"), Mismatch},
		{"redis-py-6.4.0[callbacks=none]/resp3", ":1\r\n", tx("bool", "bool", "true"), Mismatch},
		{"redis-py-6.4.0[decode_responses=True]/resp3", "$3\r\nabc\r\n", stringNative("str", "abc"), Match},
		{"redis-py-6.4.0[decode_responses=True]/resp3", "$3\r\nabc\r\n", stringNative("str", "abd"), Mismatch},
		{"redis-py-6.4.0[decode_responses=True]/resp3", "$1\r\n\xff\r\n", errNative("exception", "UnicodeDecodeError", "UnicodeDecodeError", "invalid start byte"), Crash},
		{"redis-py-6.4.0[decode_responses=True]/resp2", pairs, dict("dict", "f", "v"), Converted},
		// An error code raised as its class, the code dropped.
		{"redis-py-6.4.0[callbacks=none]/resp3", "-EXECABORT Transaction discarded.\r\n", errNative("error", "ExecAbortError", "ExecAbortError", "Transaction discarded."), Converted},
		{"redis-py-4.3.4/resp2", "-EXECABORT Transaction discarded.\r\n", errNative("error", "ExecAbortError", "ExecAbortError", "Transaction discarded."), Converted},
		{"redis-py-4.3.4/resp2", "-EXECABORT Transaction discarded.\r\n", errNative("error", "ResponseError", "ResponseError", "Transaction discarded."), Mismatch},
		{"redis-py-4.3.4/resp2", "-EXECABORT Transaction discarded.\r\n", errNative("error", "ExecAbortError", "ExecAbortError", "Transaction kept."), Mismatch},
		{"redis-py-4.3.4/resp2", "-WRONGTYPE Operation\r\n", errNative("error", "ResponseError", "ResponseError", "Operation"), Mismatch},
		// SCAN's cursor as an int (parse_scan), HSCAN's pairs a dict.
		{"redis-py-6.4.0/resp2", "*2\r\n$2\r\n17\r\n*1\r\n$1\r\na\r\n", scanNative("17", Native{Kind: "list", Type: "list", Elems: []Native{bytesNative("bytes", []byte("a"))}}), Converted},
		{"redis-py-4.3.4/resp2", "*2\r\n$1\r\n0\r\n" + pairs, scanNative("0", dict("dict", "f", "v")), Converted},
		{"redis-py-6.4.0/resp2", "*2\r\n$2\r\n17\r\n*0\r\n", scanNative("18", Native{Kind: "list", Type: "list"}), Mismatch},
		{"redis-py-6.4.0/resp2", "*2\r\n$2\r\n17\r\n*1\r\n$1\r\na\r\n", scanNative("17", Native{Kind: "list", Type: "list", Elems: []Native{bytesNative("bytes", []byte("b"))}}), Mismatch},
		// The transaction API raises WatchError for a nil EXEC.
		{"redis-py-6.4.0/pipeline/resp3", "_\r\n", errNative("error", "WatchError", "WatchError", "Watched variable changed."), Converted},
		{"redis-py-4.3.4/pipeline/resp2", "*-1\r\n", errNative("error", "WatchError", "WatchError", "Watched variable changed."), Converted},
		{"redis-py-4.3.4/pipeline/resp2", "*0\r\n", errNative("error", "WatchError", "WatchError", "Watched variable changed."), Mismatch},
		{"redis-py-4.3.4/pipeline/resp2", "*-1\r\n", errNative("error", "ResponseError", "ResponseError", "Watched variable changed."), Mismatch},
	} {
		v := parse(t, tc.reply)
		got, notes := contractFor(tc.client).Judge(v, tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.reply, tc.n, got, tc.want, notes)
		}
	}
}

// scanNative is redis-py's (int(cursor), elements).
func scanNative(cursor string, elems Native) Native {
	return Native{Kind: "list", Type: "tuple", Elems: []Native{tx("int", "int", cursor), elems}}
}

const redisPyConfigCases = `suite: redis-py configurations
cases:
  - name: a blob string, +OK and RESP2 field-value pairs
    steps:
      - {send: [SET, "{key}", v1], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$2\r\nv1\r\n"}
      - {send: [HSET, "{key:h}", f, v], reply: ":1\r\n"}
      - {send: [HGETALL, "{key:h}"], reply: {resp2: "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", resp3: "%1\r\n$1\r\nf\r\n$1\r\nv\r\n"}}
      - {send: [SCAN, "0", MATCH, "{key}*", COUNT, "1000"], any: true}
      - {send: [HSCAN, "{key:h}", "0"], any: true}
`

// TestRedisPyConfigurations runs one case through every redis-py
// configuration against a real server: the blob string is a match in
// each, and each configuration's option shows in its values (bytes or
// str, True or b'OK', a dict or the flat list).
func TestRedisPyConfigurations(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("redis-py.yaml", []byte(redisPyConfigCases))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "redis-py-4.3.4", "redis-py-4.3.4+hiredis", "redis-py-4.3.4[callbacks=none]",
		"redis-py-4.3.4[decode_responses=True]", "redis-py-6.4.0", "redis-py-6.4.0[callbacks=none]", "redis-py-6.4.0[decode_responses=True]")
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	name := "a blob string, +OK and RESP2 field-value pairs"
	for _, c := range rep.Clients {
		get := stepView(t, rep, c.Name, name, 6)
		if get.Verdict != Match {
			t.Errorf("%s: GET %s %v (%v)", c.Name, get.Verdict, get.Native, get.Notes)
		}
		set, hget := stepView(t, rep, c.Name, name, 5), stepView(t, rep, c.Name, name, 8)
		noCallbacks := strings.Contains(c.Name, "[callbacks=none]")
		if (set.Native.Kind == "bool") == noCallbacks {
			t.Errorf("%s: SET's +OK decoded as %s", c.Name, set.Native)
		}
		if wantStr := strings.Contains(c.Name, "[decode_responses=True]"); (get.Native.Kind == "string") != wantStr {
			t.Errorf("%s: GET decoded as %s", c.Name, get.Native)
		}
		if c.Proto == 2 && (hget.Native.Kind == "map") == noCallbacks {
			t.Errorf("%s: HGETALL's pairs decoded as %s", c.Name, hget.Native)
		}
		if hget.Verdict.Finding() {
			t.Errorf("%s: HGETALL %s (%v)", c.Name, hget.Verdict, hget.Notes)
		}
		// SCAN and HSCAN: the cursor an int where callbacks apply
		// (parse_scan, parse_hscan), never a finding.
		for _, line := range []int{9, 10} {
			sv := stepView(t, rep, c.Name, name, line)
			if sv.Verdict.Finding() || sv.Native == nil || len(sv.Native.Elems) != 2 || (sv.Native.Elems[0].Kind == "int") == noCallbacks {
				t.Errorf("%s: step at line %d %s %v (%v)", c.Name, line, sv.Verdict, sv.Native, sv.Notes)
			}
		}
		t.Logf("%s: SET %s, GET %s, HGETALL %s %s", c.Name, set.Native, get.Native, hget.Native, hget.Verdict)
	}
}

// TestRedisPyHiredisMissing: where redis-py does not see hiredis, the
// adapter lists redis-py+hiredis as a library that cannot load, saying
// why, and drives no configuration with another parser in its place.
func TestRedisPyHiredisMissing(t *testing.T) {
	if _, err := os.Stat(pythonBin); err != nil {
		t.Skip(pythonBin + " missing")
	}
	block := t.TempDir()
	if err := os.WriteFile(filepath.Join(block, "hiredis.py"), []byte("raise ImportError('blocked by the test')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &Adapter{Name: "redis-py (no hiredis)", Cmd: []string{pythonBin, filepath.Join(adaptersDir(""), "python", "adapter.py")},
		Env: []string{"PYTHONPATH=" + block, "PYTHONNOUSERSITE=1"}}
	defer a.Close()
	ds, notes, err := a.Drivers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if strings.Contains(d.Library(), "+hiredis") {
			t.Errorf("%s offered without hiredis", d.Library())
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "+hiredis: hiredis-py is not installed") {
		t.Errorf("no note says why +hiredis is missing: %q", notes)
	}
	t.Logf("%d configurations; notes %q", len(ds), notes)
}

// TestRedisPyTyped runs steps through redis-py-typed (redis-py 6.4.0's
// command methods) and through the generic API (redis-py-6.4.0) on a real
// server, in both protocols: SET … GET is the old value through
// set(get=True) and False (SET's callback, the callback rule) through
// execute_command; ZRANGE WITHSCORES through zrange(withscores=True) is
// (member, float) tuples in RESP2 (converted); a SET with IFEQ, which
// set() cannot express, is inexpressible, and INCR, which incr() sends as
// INCRBY, is not sent (a skip).
func TestRedisPyTyped(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("typed.yaml", []byte(`suite: typed
cases:
  - name: typed methods
    steps:
      - send: [SET, "{key}", old]
      - send: [SET, "{key}", new, GET]
        reply: "$3\r\nold\r\n"
      - send: [SET, "{key}", newer, IFEQ, new]
      - send: [INCR, "{key}:n"]
      - send: [ZADD, "{key}:z", "1.5", m]
      - send: [ZRANGE, "{key}:z", "0", "-1", WITHSCORES]
      - send: [ZSCORE, "{key}:z", m]
`))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "redis-py-typed", "redis-py-6.4.0")
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 4 {
		t.Fatalf("clients %v", rep.Clients)
	}
	for _, c := range rep.Clients {
		typed := strings.HasPrefix(c.Name, "redis-py-typed")
		get := stepView(t, rep, c.Name, "typed methods", 6)
		switch {
		case typed && (get.Verdict != Match || get.Typed != "set(name, value, get=True)"):
			t.Errorf("%s: SET … GET %s via %q %v %v", c.Name, get.Verdict, get.Typed, get.Native, get.Notes)
		case !typed && (get.Verdict != Mismatch || get.Rule != ruleCallback):
			t.Errorf("%s: SET … GET %s by %q %v %v", c.Name, get.Verdict, get.Rule, get.Native, get.Notes)
		}
		if !typed {
			continue
		}
		if sv := stepView(t, rep, c.Name, "typed methods", 8); sv.Verdict != Inexpressible || !strings.Contains(strings.Join(sv.Notes, " "), "no parameter for the option 'IFEQ'") {
			t.Errorf("%s: SET … IFEQ %s %v, want inexpressible: set() has no parameter for IFEQ", c.Name, sv.Verdict, sv.Notes)
		}
		if sv := stepView(t, rep, c.Name, "typed methods", 9); sv.Verdict != Skip || !strings.Contains(strings.Join(sv.Notes, " "), "no typed wrapper") {
			t.Errorf("%s: INCR %s %v, want a skip without a typed wrapper", c.Name, sv.Verdict, sv.Notes)
		}
		zr := stepView(t, rep, c.Name, "typed methods", 11)
		if want := map[int]Verdict{2: Converted, 3: Match}[c.Proto]; zr.Verdict != want || zr.Typed != "zrange(name, start, end, withscores=True)" {
			t.Errorf("%s: ZRANGE WITHSCORES %s via %q %v %v, want %s", c.Name, zr.Verdict, zr.Typed, zr.Native, zr.Notes, want)
		}
	}
}
