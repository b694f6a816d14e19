package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report/schema"
)

// deepReply is the deepest reply a pinned build sends: 7,996 arrays
// around an error (EXEC of a Lua table nested past the Lua stack).
var deepReply = strings.Repeat("*1\r\n", 7996) + "-ERR reached lua stack limit\r\n"

// TestJSONOfTheDeepestReply: run and clients reports of a reply nested
// 7,997 levels are written, match their schemas and read back (encoding/json
// refused to write them: more than 10,000 levels of JSON); the reply's
// value is left out, its bytes kept, and the decoded value is cut with a
// marker.
func TestJSONOfTheDeepestReply(t *testing.T) {
	rep := runReport(t)
	rep.Results[5].Steps[0].Reply = []byte(deepReply)
	rep.Results[5].Steps[0].ReplySize = len(deepReply)
	out := write(t, func(b *bytes.Buffer) error { return JSON(b, rep) })
	if err := schema.Check("run", []byte(out)); err != nil {
		t.Errorf("the run report does not match its schema: %v", err)
	}
	var got runJSON
	decodeStrict(t, out, &got)
	if s := got.Results[5].Steps[0]; string(s.Reply) != deepReply || s.Value != nil {
		t.Errorf("deep step: %d reply bytes, value %.100s", len(s.Reply), s.Value)
	}

	crep := clientsReport(t)
	n := clients.Native{Kind: "error", Type: "proto.RedisError", Err: &clients.NativeErr{Class: "proto.RedisError", Message: "ERR reached lua stack limit"}}
	for range 7996 {
		n = clients.Native{Kind: "list", Type: "[]interface {}", Elems: []clients.Native{n}}
	}
	sv := &crep.Results[0].Steps[0]
	sv.Reply, sv.Native = []byte(deepReply), &n
	out = write(t, func(b *bytes.Buffer) error { return ClientsJSON(b, crep) })
	if err := schema.Check("clients", []byte(out)); err != nil {
		t.Errorf("the clients report does not match its schema: %v", err)
	}
	var cgot ClientsJSONReport
	if err := json.Unmarshal([]byte(out), &cgot); err != nil {
		t.Fatal(err)
	}
	st := cgot.Results[0].Steps[0]
	if string(st.Reply) != deepReply || st.Value != nil || st.Native == nil || !strings.HasPrefix(st.CLI, "1) 1) 1) ") {
		t.Fatalf("deep step: %d reply bytes, value %v, cli %.20q", len(st.Reply), st.Value, st.CLI)
	}
	levels := 0
	d := st.Native
	for ; len(d.Elems) == 1; d = &d.Elems[0] {
		levels++
	}
	if levels != 63 || d.Kind != "other" || d.Type != "… 7934 more levels (cut for JSON)" {
		t.Errorf("decoded value cut after %d levels at %+v", levels, *d)
	}
}
