package schema

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

func args(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

func TestCheckHandMade(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			s := ForTest(t, build)
			cases := []struct {
				args  []string
				reply string
				want  Outcome
				path  string
			}{
				{[]string{"LPOS", "k", "a"}, ":3\r\n", Valid, ""},
				{[]string{"LPOS", "k", "a"}, "_\r\n", Valid, ""},
				{[]string{"LPOS", "k", "a", "COUNT", "0"}, "*2\r\n:1\r\n:2\r\n", Valid, ""},
				{[]string{"LPOS", "k", "a"}, "%1\r\n:1\r\n:2\r\n", Invalid, "/anyOf"},
				{[]string{"client", "list"}, "=9\r\ntxt:id=1\n\r\n", Valid, ""},
				{[]string{"CLIENT", "LIST"}, "*0\r\n", Invalid, "/type"},
				{[]string{"CLIENT", "INFO"}, "$4\r\nid=1\r\n", Valid, ""},
				{[]string{"GET", "k"}, "-ERR x\r\n", Skipped, ""},
				{[]string{"GET"}, "$1\r\nx\r\n", NoSchema, ""},
				{[]string{"NOSUCH"}, "+OK\r\n", NoSchema, ""},
				{[]string{"CLIENT", "NOSUCH"}, "+OK\r\n", NoSchema, ""},
				{[]string{"INCRBYFLOAT", "k", "1"}, "$3\r\n1.5\r\n", Valid, ""},
				{[]string{"ZSCORE", "k", "m"}, ",inf\r\n", Valid, ""},
				{[]string{"ZSCORE", "k", "m"}, "(12345678901234567890\r\n", Invalid, "/oneOf"},
			}
			for _, c := range cases {
				o, f, why := s.Check(args(c.args...), []byte(c.reply))
				if o != c.want {
					t.Errorf("%q %q: %v (%s %v), want %v", c.args, c.reply, o, why, f, c.want)
					continue
				}
				if f != nil && f.Path != c.path {
					t.Errorf("%q %q: path %q, want %q (%v)", c.args, c.reply, f.Path, c.path, f)
				}
				if f != nil {
					t.Logf("%s", f)
				}
			}
		})
	}
}

func TestJSONOfAttribute(t *testing.T) {
	_, v, err := resp.Parse([]byte("|1\r\n+a\r\n:1\r\n%1\r\n:7\r\n~1\r\n,1.5\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := jsonOf(v)
	m, _ := got.(map[string]any)
	if !ok || len(m) != 1 || m["7"].([]any)[0] != 1.5 {
		t.Fatalf("jsonOf = %#v, %v", got, ok)
	}
}

// TestBranches: an LPOS reply that is an integer takes /anyOf/1 only;
// the null and array branches are never produced.
func TestBranches(t *testing.T) {
	s := ForTest(t, "redis-8.6.3")
	r := NewReport(s.Build, s, nil)
	r.StartCase(3)
	r.Step(s, StepIO{Sent: []byte("*3\r\n$4\r\nLPOS\r\n$1\r\nk\r\n$1\r\na\r\n"), Reply: []byte(":3\r\n")}, Located{})
	b := r.Branches["LPOS"]
	if b == nil || b.Taken["/anyOf/1"] != 1 || len(b.Taken) != 1 {
		t.Fatalf("branches: %+v", b)
	}
	if never := b.Never(); len(never) != 2 || never[0] != "/anyOf/0" || never[1] != "/anyOf/2" {
		t.Errorf("never: %v", never)
	}
	var buf strings.Builder
	r.Write(&buf, true)
	if !strings.Contains(buf.String(), "  LPOS (lpos.json): 1 of 3 produced, never: /anyOf/0 /anyOf/2\n") {
		t.Errorf("Write -v:\n%s", buf.String())
	}
}

// TestCoverage: a command whose schema has no branch is left out, the
// others count their branches taken and list the rest; the human output
// gives the totals, and -v one line per command with a branch never
// produced.
func TestCoverage(t *testing.T) {
	r := NewReport("redis-8.6.3", &Set{}, nil)
	r.Branches = map[string]*branches{
		"PING": {File: "ping.json", All: []string{}, Taken: map[string]int{}},
		"LPOP": {File: "lpop.json", All: []string{"/oneOf/0", "/oneOf/1", "/oneOf/2"}, Taken: map[string]int{"/oneOf/0": 4}},
		"GET":  {File: "get.json", All: []string{"/oneOf/0", "/oneOf/1"}, Taken: map[string]int{"/oneOf/0": 1, "/oneOf/1": 2}},
	}
	b := r.Coverage()
	if b.Produced != 3 || b.Total != 5 || len(b.Commands) != 2 || b.Commands[0].Name != "GET" || b.Commands[1].Name != "LPOP" {
		t.Fatalf("%+v", b)
	}
	if got := strings.Join(b.Commands[1].Never, " "); got != "/oneOf/1 /oneOf/2" || b.Commands[0].Never != nil {
		t.Errorf("never: LPOP %q, GET %q", got, b.Commands[0].Never)
	}
	var out strings.Builder
	b.Write(&out, true)
	want := "reply-schema branches (redis-8.6.3): 3 of 5 produced by the replies of 2 commands; 1 commands with a branch never produced\n" +
		"  LPOP (lpop.json): 1 of 3 produced, never: /oneOf/1 /oneOf/2\n"
	if out.String() != want {
		t.Errorf("-v output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestStepPairing: an async send's reply is read by a later read step; a
// command split across two writes counts once; a HELLO 2 makes the
// connection's later replies RESP2 (not checked).
func TestStepPairing(t *testing.T) {
	s := ForTest(t, "redis-8.6.3")
	r := NewReport(s.Build, s, nil)
	r.StartCase(3)
	r.Step(s, StepIO{Async: true, Sent: []byte("*2\r\n$4\r\nECHO\r\n$2\r\nh")}, Located{})
	r.Step(s, StepIO{Async: true, Sent: []byte("i\r\n*1\r\n$4\r\nPING\r\n")}, Located{})
	r.Step(s, StepIO{Reply: []byte("$2\r\nhi\r\n")}, Located{})
	r.Step(s, StepIO{Reply: []byte("+PONG\r\n")}, Located{})
	r.Step(s, StepIO{Sent: []byte("*2\r\n$5\r\nHELLO\r\n$1\r\n2\r\n"), Reply: []byte("*0\r\n")}, Located{})
	r.Step(s, StepIO{Sent: []byte("*2\r\n$7\r\nHGETALL\r\n$1\r\nk\r\n"), Reply: []byte("*0\r\n")}, Located{})
	if r.Checked != 2 || r.NotRESP3 != 2 || len(r.Findings) != 0 || r.Skipped != 0 {
		t.Errorf("checked %d, not RESP3 %d, findings %v, skipped %v", r.Checked, r.NotRESP3, r.Findings, r.SkippedBy)
	}
}

// TestTransaction: EXEC's replies are checked against the queued
// commands' schemas: an LPOS answered by a map inside EXEC is a finding
// of LPOS.
func TestTransaction(t *testing.T) {
	s := ForTest(t, "redis-8.6.3")
	r := NewReport(s.Build, s, nil)
	r.StartCase(3)
	send := func(sent, reply string) {
		r.Step(s, StepIO{Sent: []byte(sent), Reply: []byte(reply)}, Located{Pos: "p"})
	}
	send("*1\r\n$5\r\nMULTI\r\n", "+OK\r\n")
	send("*3\r\n$4\r\nLPOS\r\n$1\r\nk\r\n$1\r\na\r\n", "+QUEUED\r\n")
	send("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "+QUEUED\r\n")
	send("*1\r\n$4\r\nEXEC\r\n", "*2\r\n%1\r\n:1\r\n:2\r\n$1\r\nv\r\n")
	if len(r.Findings) != 1 || r.Findings[0].Command != "LPOS" || r.Findings[0].Path != "/anyOf" || r.Findings[0].Reply != `"%1\r\n:1\r\n:2\r\n"` {
		t.Fatalf("findings: %+v", r.Findings)
	}
	if r.Checked != 4 || r.SkippedBy["queued in MULTI"] != 2 { // MULTI, EXEC and its LPOS and GET
		t.Errorf("checked %d, skipped %v", r.Checked, r.SkippedBy)
	}
}

// TestLoadEveryInstalledBuild compiles the schemas of every build
// scripts/install-schemas.sh installed (redis-8.0.6, redis-8.6.3,
// valkey-8.1.1, valkey-9.1.2 here: 377 to 396 commands with a schema),
// and finds each container's subcommands.
func TestLoadEveryInstalledBuild(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(Dir("x")), "*"))
	if len(dirs) == 0 {
		t.Skipf("no schemas installed under %s (run %s)", filepath.Dir(Dir("x")), Install)
	}
	for _, d := range dirs {
		s, err := Load(d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		if c := s.Commands["CLIENT"]; c == nil || !c.Container || s.Commands["CLIENT LIST"] == nil || len(s.Names()) < 300 {
			t.Errorf("%s: CLIENT %+v, %d commands with a schema", d, c, len(s.Names()))
		}
	}
}
