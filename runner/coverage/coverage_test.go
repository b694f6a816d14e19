package coverage

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

const coverageCases = `suite: coverage
cases:
  - name: strings
    steps:
      - {send: [set, "{key}", v], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$1\r\nv\r\n"}
      - {send: [GET, "{key}"], reply: "$1\r\nv\r\n"}
  - name: a subcommand, a raw command and an unknown one
    steps:
      - {send: [CLIENT, id], any: true}
      - {raw: "*2\r\n$6\r\nOBJECT\r\n$4\r\nHELP\r\n", any: true}
      - {send: [NOSUCH], any: true}
  - name: RESP3 only
    requires: {proto: 3}
    steps:
      - {send: [HGETALL, "{key}"], any: true}
`

// TestMeasure reads COMMAND DOCS of a real Redis 8.6.3 and counts an
// inline file's steps: subcommands by container, raw command arrays,
// protocol gates, and commands the server does not document.
func TestMeasure(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	docs, err := Docs(c)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cases.Load("coverage.yaml", []byte(coverageCases))
	if err != nil {
		t.Fatal(err)
	}
	rep := Measure("redis 8.6.3", docs, []*cases.File{f})
	rows := map[string]Row{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	check := func(name string, cases, steps int, protos string) {
		t.Helper()
		r, ok := rows[name]
		if !ok {
			t.Fatalf("no %s in COMMAND DOCS", name)
		}
		if r.Cases != cases || r.Steps != steps || protoText(r.Protos) != protos {
			t.Errorf("%s: %d cases, %d steps, %s; want %d, %d, %s", name, r.Cases, r.Steps, protoText(r.Protos), cases, steps, protos)
		}
	}
	check("GET", 1, 2, "RESP2 RESP3")
	check("SET", 1, 1, "RESP2 RESP3")
	check("CLIENT ID", 1, 1, "RESP2 RESP3")
	check("OBJECT HELP", 1, 1, "RESP2 RESP3")
	check("HGETALL", 1, 1, "RESP3")
	check("APPEND", 0, 0, "-")
	if !rows["CLIENT"].Container || rows["CLIENT LIST"].Container || rows["CLIENT"].Group != "connection" {
		t.Errorf("CLIENT: %+v, CLIENT LIST: %+v", rows["CLIENT"], rows["CLIENT LIST"])
	}
	// Redis 8.6.3 documents over 240 commands and 150 subcommands.
	if rep.Covered != 5 || rep.Counted < 390 || rep.Cases != 3 || strings.Join(rep.Unknown, ",") != "NOSUCH" {
		t.Errorf("covered %d of %d, %d cases, unknown %q", rep.Covered, rep.Counted, rep.Cases, rep.Unknown)
	}
	var human bytes.Buffer
	if err := WriteHuman(&human, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"coverage of redis 8.6.3 by 3 cases: 5 of ", "string ", " APPEND ", "COMMAND DOCS (unknown-command cases, other servers' commands): NOSUCH\n"} {
		if !strings.Contains(human.String(), want) {
			t.Errorf("human output has no %q:\n%s", want, human.String())
		}
	}
}
