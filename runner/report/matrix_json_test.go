package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/clients"
)

// TestMatrixSectionRoundTrip writes a section of three cells (a match, a
// skip with its reason, a mismatch whose reply is 1 MiB) and reads it
// back: the verdicts and the reason are the report's, only the mismatch
// keeps steps, and those keep heads of at most maxHead bytes.
func TestMatrixSectionRoundTrip(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	text := big
	rep := ClientsJSONReport{
		Clients: []clients.ClientInfo{{Name: "a/resp2", Proto: 2, Contract: []string{"long"}}, {Name: "b/resp3", Proto: 3}},
		Results: []ClientsJSONResult{
			{ID: "f.yaml/one", Name: "f/one", Client: "a/resp2", Proto: 2, Verdict: clients.Match, Steps: []ClientsJSONStep{{Pos: "f.yaml:1:1"}}},
			{ID: "f.yaml/one", Name: "f/one", Client: "b/resp3", Proto: 3, Verdict: clients.Skip, Reason: "no push"},
			{ID: "f.yaml/two", Name: "f/two", Client: "b/resp3", Proto: 3, Verdict: clients.Mismatch, Steps: []ClientsJSONStep{
				{Pos: "f.yaml:5:1", Verdict: clients.Match, Reply: Bytes("+OK\r\n")},
				{Pos: "f.yaml:6:1", Verdict: clients.Mismatch, Reply: Bytes("$1048576\r\n" + big + "\r\n"), CLI: big,
					Native: &clients.Native{Kind: "string", Type: "str", Text: &text}, Notes: []string{big}, Wire: Bytes("x")}}},
		}}
	m := &ClientMatrix{}
	m.Put(ToMatrixSection("s", rep))
	path := filepath.Join(t.TempDir(), "m.json")
	if err := WriteClientMatrix(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadClientMatrix(path)
	if err != nil || len(back.Sections) != 1 {
		t.Fatalf("%v %+v", err, back)
	}
	s := back.Sections[0]
	if len(s.Verdicts) != 2 || s.Verdicts[0] != ".-" || s.Verdicts[1] != " X" || s.Clients[0].Contract != nil {
		t.Errorf("verdicts %q, clients %+v", s.Verdicts, s.Clients)
	}
	got, err := s.Expand()
	if err != nil || len(got.Results) != 3 || got.Worst != clients.Mismatch || got.Counts["skip"] != 1 {
		t.Fatalf("%v %+v", err, got)
	}
	if r := got.Results[1]; r.Reason != "no push" || r.Steps != nil {
		t.Errorf("the skip: %+v", r)
	}
	if r := got.Results[0]; r.Steps != nil {
		t.Errorf("the match kept steps: %+v", r)
	}
	st := got.Results[2].Steps
	if len(st) != 1 || st[0].Pos != "f.yaml:6:1" || len(st[0].Reply) != maxHead || st[0].Wire != nil ||
		len(st[0].CLI) > maxHead+3 || len(*st[0].Native.Text) > maxHead+3 || len(st[0].Notes[0]) > maxHead+3 {
		t.Errorf("the mismatch's steps: %d, reply %d bytes, cli %d", len(st), len(st[0].Reply), len(st[0].CLI))
	}
	s.Verdicts[1] = " ?"
	if _, err := s.Expand(); err == nil {
		t.Error("a symbol that is no verdict's expanded")
	}
}
