package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/target"
)

func frame(t *testing.T, dir clients.Dir, b string) clients.Event {
	t.Helper()
	n, v, err := resp.Parse([]byte(b))
	if err != nil || n != len(b) {
		t.Fatalf("frame %q: %d %v", b, n, err)
	}
	return clients.Event{Dir: dir, Value: v.Clone()}
}

func text(s string) *string { return &s }

// clientsReport is stringsYAML through two clients: a match, a mismatch
// (with its wire), an erasure with a multi-line reply, a skip with a
// reason.
func clientsReport(t *testing.T) *clients.Report {
	t.Helper()
	c := load(t, "suite/strings.yaml", stringsYAML).Cases
	args := func(a ...string) (out [][]byte) {
		for _, s := range a {
			out = append(out, []byte(s))
		}
		return out
	}
	ok := clients.StepView{Step: c[1].Steps[0], Conn: "default", Args: args("SET", "k", "v"), Reply: []byte("+OK\r\n"),
		Native: &clients.Native{Kind: "string", Type: "string", Text: text("OK")}, Verdict: clients.Match}
	return &clients.Report{
		Server:   target.Server{Addr: "127.0.0.1:6379", Family: "redis", Version: "7.0.15"},
		Clients:  []clients.ClientInfo{{Name: "go-redis", Library: "go-redis", Version: "9.7.0", Proto: 3, API: "Conn.Do"}, {Name: "rueidis", Library: "rueidis", Version: "1.0.50", Proto: 3}},
		Duration: 2 * time.Second,
		Results: []*clients.Result{
			{Client: "go-redis", Proto: 3, Case: c[0], Verdict: clients.Match, Steps: []clients.StepView{ok}},
			{Client: "go-redis", Proto: 3, Case: c[1], Verdict: clients.Mismatch, Steps: []clients.StepView{ok, {
				Step: c[1].Steps[1], Conn: "default", Args: args("ECHO", "a\x00b"), Reply: []byte("$3\r\na\x00b\r\n"),
				Native: &clients.Native{Kind: "string", Type: "string", Text: text("ab")}, Verdict: clients.Mismatch, Rule: clients.RuleValue,
				Notes: []string{"the NUL byte was lost"}, Canary: "ok"}},
				Wire: []clients.WireConn{{ID: 1, Events: []clients.Event{
					frame(t, clients.ToServer, "*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n"), frame(t, clients.ToClient, "$3\r\na\x00b\r\n"),
					{Dir: clients.ToClient, Bad: []byte("?junk")}}}}},
			{Client: "rueidis", Proto: 3, Case: c[1], Verdict: clients.Erased, Steps: []clients.StepView{{
				Step: c[1].Steps[1], Conn: "default", Args: args("LRANGE", "l", "0", "-1"), Reply: []byte("~2\r\n$1\r\na\r\n$1\r\nb\r\n"),
				Native:  &clients.Native{Kind: "list", Type: "[]string", Elems: []clients.Native{{Kind: "string", Type: "string", Text: text("a")}, {Kind: "string", Type: "string", Text: text("b")}}},
				Verdict: clients.Erased, Notes: []string{"a set decoded as a list"}}}},
			{Client: "rueidis", Proto: 3, Case: c[2], Verdict: clients.Skip, Reason: "needs DEBUG"},
		},
	}
}

// TestClientsHuman: by default one row per client with its counts by
// verdict and its findings named in one line each; --matrix adds the
// matrix; -v names every client and adds a block per finding, erased
// result and skip with a reason, with every step and the wire, and the
// matrix.
func TestClientsHuman(t *testing.T) {
	const want = `server: redis 7.0.15 at 127.0.0.1:6379
clients: 2; -v names them

client   match conv erased inexp mism crash hang desync error skip
go-redis     1                      1
  X suite/strings.yaml:13:9 ECHO [value]: the NUL byte was lost
rueidis                  1                                       1

4 results: 1 skip, 1 match, 1 erased, 1 mismatch (2.0s)
(-v shows each finding's steps: the bytes, the decoding and why; --matrix the cases × clients)
`
	rep := clientsReport(t)
	if got := write(t, func(b *bytes.Buffer) error { return ClientsHuman(b, rep, HumanOptions{}) }); got != want {
		t.Errorf("clients human:\n%s\nwant:\n%s", got, want)
	}
	const matrix = `matrix (. match  = converted  ~ erased  N inexpressible  X mismatch  C crash  H hang
        D desync  E error  - skip):
                 go-redis
                |  rueidis
strings/passes  .
strings/fails   X ~
strings/skips     -
`
	got := write(t, func(b *bytes.Buffer) error { return ClientsHuman(b, rep, HumanOptions{Matrix: true}) })
	contains(t, "clients human --matrix", got, "\n\n"+matrix+"\nclient   match")
	// Verbose adds erased results (a multi-line redis-cli rendering
	// indented under its label), skips with a reason, matching steps and
	// the wire.
	verbose := write(t, func(b *bytes.Buffer) error {
		return ClientsHuman(b, rep, HumanOptions{Verbose: true})
	})
	contains(t, "verbose clients human", verbose,
		"clients: go-redis(9.7.0) rueidis(1.0.50)\n",
		"\nMISMATCH  strings/fails  [go-redis 9.7.0 via Conn.Do]\n  step suite/strings.yaml:11:9 (conn default) \"SET\" \"k\" \"v\": match\n",
		"  step suite/strings.yaml:13:9 (conn default) \"ECHO\" \"a\\x00b\": mismatch (rule: value)\n    bytes received: \"$3\\r\\na\\x00b\\r\\n\"\n    redis-cli:      \"a\\x00b\"\n    decoded:        string(\"ab\")\n    - the NUL byte was lost\n    canary: ok\n",
		"  wire, connection 1:\n    → \"*2\\r\\n$4\\r\\nECHO\\r\\n$3\\r\\na\\x00b\\r\\n\"\n    ← \"$3\\r\\na\\x00b\\r\\n\"\n    ← \"?junk\"\n",
		"\nERASED  strings/fails  [rueidis 1.0.50]\n",
		"    redis-cli:      1~ \"a\"\n                    2~ \"b\"\n    decoded:        []string[string(\"a\"), string(\"b\")]\n",
		"\nSKIP  strings/skips  [rueidis 1.0.50]  (needs DEBUG)\n",
		matrix)
}

// TestClientsHumanFits100Columns: the default report and --matrix keep to
// 100 columns with the longest labels there are (phpredis's options), 80
// clients and long case names: rows too long for the name column put the
// name on a line of its own, finding lines are cut, the matrix comes in
// blocks of columns (a library's clients together), long labels and case
// names cut; clients that skipped every case are counted by reason, not
// listed.
func TestClientsHumanFits100Columns(t *testing.T) {
	rep := clientsReport(t)
	cs := rep.Results[1].Case
	long := "phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]"
	rep.Clients, rep.Results = nil, nil
	for i := range 40 {
		for _, p := range []int{2, 3} {
			lib := fmt.Sprintf("library-%02d[option-%d=true]", i/4, i)
			if i == 7 {
				lib = long
			}
			name := fmt.Sprintf("%s/resp%d", lib, p)
			rep.Clients = append(rep.Clients, clients.ClientInfo{Name: name, Library: lib, Version: "1.0", Proto: p})
			res := &clients.Result{Client: name, Proto: p, Case: cs, Verdict: clients.Mismatch, Steps: []clients.StepView{{
				Step: cs.Steps[1], Conn: "default", Args: [][]byte{[]byte("ECHO"), []byte("a")}, Verdict: clients.Mismatch,
				Notes: []string{strings.Repeat("a very long note ", 10)}}}}
			if i >= 36 {
				res = &clients.Result{Client: name, Proto: p, Case: cs, Verdict: clients.Skip, Reason: "a cluster configuration: runs against a cluster only (respcheck clients --cluster N, or --addr of a cluster node)"}
			}
			rep.Results = append(rep.Results, res)
		}
	}
	for _, o := range []HumanOptions{{}, {Matrix: true}} {
		out := write(t, func(b *bytes.Buffer) error { return ClientsHuman(b, rep, o) })
		for i, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > 100 {
				t.Errorf("matrix %v: line %d has %d columns: %s", o.Matrix, i+1, n, line)
			}
		}
		contains(t, "clients human", out, "8 clients not applicable (every case skipped): 8 × a cluster configuration:")
		if !regexp.MustCompile(`\n` + regexp.QuoteMeta(long) + `/resp2\n {40}(\s+)1\n`).MatchString(out) {
			t.Errorf("the long name is not on a line of its own above its counts:\n%s", out)
		}
		if strings.Contains(out, "library-09[option-36=true]/resp2 ") {
			t.Errorf("a client that skipped every case is listed:\n%s", out)
		}
		if o.Matrix {
			contains(t, "clients human --matrix", out, "|  phpredis-5.3.7[OPT_REPLY_LITERAL…]/resp3\n")
			if n := len(regexp.MustCompile(`(?m)^ +library-`).FindAllString(out, -1)); n < 2 {
				t.Errorf("the matrix is not in blocks (%d):\n%s", n, out)
			}
		}
	}
}

// clientsJSON is ClientsJSONReport as it decodes: verdicts and
// directions are text.
type clientsJSON struct {
	ClientsJSONReport
	Worst   string `json:"worst"`
	Results []struct {
		ClientsJSONResult
		Verdict string `json:"verdict"`
		Steps   []struct {
			ClientsJSONStep
			Verdict string `json:"verdict"`
		} `json:"steps"`
		Wire []struct {
			Conn   int `json:"conn"`
			Frames []struct {
				clientsJSONFrame
				Dir string `json:"dir"`
			} `json:"frames"`
		} `json:"wire"`
	} `json:"results"`
}

func TestClientsJSON(t *testing.T) {
	rep := clientsReport(t)
	out := write(t, func(b *bytes.Buffer) error { return ClientsJSON(b, rep) })
	if err := schema.Check("clients", []byte(out)); err != nil {
		t.Errorf("the clients report does not match its schema: %v", err)
	}
	var got clientsJSON
	decodeStrict(t, out, &got)
	if !reflect.DeepEqual(got.Server, rep.Server) || len(got.Clients) != 2 || got.Clients[1].Version != "1.0.50" || got.Worst != "mismatch" || got.Duration != 2 ||
		len(got.Counts) != 4 || got.Counts["match"] != 1 || got.Counts["mismatch"] != 1 || got.Counts["erased"] != 1 || got.Counts["skip"] != 1 {
		t.Errorf("header: %+v worst %s", got.ClientsJSONReport, got.Worst)
	}
	if len(got.Results) != 4 {
		t.Fatalf("%d results", len(got.Results))
	}
	r := got.Results[1]
	if r.ID != "suite/strings.yaml/fails" || r.Name != "strings/fails" || r.Client != "go-redis" || r.Proto != 3 || r.Verdict != "mismatch" || r.Rule != "value" || len(r.Steps) != 2 {
		t.Fatalf("mismatching result: %+v", r)
	}
	s := r.Steps[1]
	if s.Pos != "suite/strings.yaml:13:9" || s.Conn != "default" || s.Command != `"ECHO" "a\x00b"` || string(s.Reply) != "$3\r\na\x00b\r\n" ||
		s.CLI != `"a\x00b"` || s.Value == nil || string(s.Value.Str) != "a\x00b" || s.Native == nil || *s.Native.Text != "ab" ||
		s.Verdict != "mismatch" || s.Rule != "value" || s.Canary != "ok" || len(s.Notes) != 1 {
		t.Errorf("mismatching step: %+v", s)
	}
	if len(r.Wire) != 1 || len(r.Wire[0].Frames) != 3 {
		t.Fatalf("wire: %+v", r.Wire)
	}
	fs := r.Wire[0].Frames
	if fs[0].Dir != "client>server" || fs[0].Kind != "array" || fs[1].Dir != "server>client" || string(fs[1].Bytes) != "$3\r\na\x00b\r\n" ||
		string(fs[2].Bytes) != "?junk" || !fs[2].Bad || fs[2].Kind != "" {
		t.Errorf("frames: %+v", fs)
	}
	if sk := got.Results[3]; sk.Verdict != "skip" || sk.Reason != "needs DEBUG" || sk.Steps != nil {
		t.Errorf("skipped result: %+v", sk)
	}
}

func TestClientsJUnit(t *testing.T) {
	// One suite per client. The clients report has no errors and no
	// timings: no such attributes.
	suites := readJUnit(t, write(t, func(b *bytes.Buffer) error { return clientsJUnit(b, clientsReport(t)) }),
		"respcheck clients|4|1|-|1|-", 2)
	g, r := suites[0], suites[1]
	if got := g.attrs(counts...) + " " + r.attrs(counts...); got != "go-redis|2|1|-|0|- rueidis|2|0|-|1|-" {
		t.Errorf("suites %s", got)
	}
	if f := g.kids("testcase")[1].kid("failure"); f == nil || f.attrs("message", "type") != "mismatch|mismatch" ||
		!strings.HasPrefix(f.Text, "client: go-redis 9.7.0 via Conn.Do\n  step suite/strings.yaml:13:9 (conn default) \"ECHO\" \"a\\x00b\": mismatch (rule: value)\n    bytes received:") {
		t.Errorf("failure %+v", f)
	}
	rc := r.kids("testcase")
	if so := rc[0].kid("system-out"); rc[0].attrs("name", "classname") != "strings/fails|rueidis" || rc[0].kid("failure") != nil ||
		so == nil || !strings.Contains(so.Text, "    - a set decoded as a list\n") {
		t.Errorf("erased case %+v", rc[0])
	}
	if sk := rc[1].kid("skipped"); sk == nil || sk.attrs("message") != "needs DEBUG" {
		t.Errorf("skipped %+v", sk)
	}
}

// TestClientsTruncatedReply: bytes that are not one whole frame (a client
// that crashed mid-reply) are shown escaped, without a redis-cli rendering
// or a decoded value (they were "(unknown)" and {"type":"invalid"}).
func TestClientsTruncatedReply(t *testing.T) {
	rep := clientsReport(t)
	res := rep.Results[1]
	res.Steps[1].Reply, res.Steps[1].Verdict, res.Verdict = []byte("$5\r\nab"), clients.Crash, clients.Crash
	human := write(t, func(b *bytes.Buffer) error { return ClientsHuman(b, rep, HumanOptions{Verbose: true}) })
	contains(t, "clients human", human, "\n    bytes received: \"$5\\r\\nab\"\n    decoded:        string(\"ab\")\n")
	var got clientsJSON
	decodeStrict(t, write(t, func(b *bytes.Buffer) error { return ClientsJSON(b, rep) }), &got)
	if s := got.Results[1].Steps[1]; string(s.Reply) != "$5\r\nab" || s.CLI != "" || s.Value != nil || s.Verdict != "crash" {
		t.Errorf("truncated reply: %+v", s)
	}
}

// TestClientsMarkdown checks the page's parts: the clients table with the
// API, the matrix, and one explaining line per verdict but match and skip.
func TestClientsMarkdown(t *testing.T) {
	out := write(t, func(b *bytes.Buffer) error { return ClientsMarkdown(b, clientsReport(t), HumanOptions{}) })
	for _, want := range []string{
		"# Client views on redis 7.0.15\n",
		"| go-redis | 9.7.0 | `Conn.Do` |\n",
		"```\nmatrix (. match",
		"- **mismatch** (rule: value) `strings/fails` [go-redis]: \"ECHO\" \"a\\x00b\": the NUL byte was lost\n",
		"## Erased distinctions\n",
		"- a set decoded as a list: 1 results (rueidis)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**match**") || strings.Contains(out, "**skip**") || strings.Contains(out, "**erased**") {
		t.Errorf("markdown explains a match or a skip:\n%s", out)
	}
}

// TestClientsSchemaRules: the clients schema's rule enum is the IDs of
// clients.Rules, in order.
func TestClientsSchemaRules(t *testing.T) {
	b, err := os.ReadFile("schema/clients.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs struct {
			Rule struct {
				Enum []string `json:"enum"`
			} `json:"rule"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range clients.Rules {
		ids = append(ids, r.ID)
	}
	if !reflect.DeepEqual(s.Defs.Rule.Enum, ids) {
		t.Errorf("schema's rules %q, clients.Rules %q", s.Defs.Rule.Enum, ids)
	}
}
