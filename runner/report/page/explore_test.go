package page

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/explore"
)

// TestExploreSection: an explore JSON report (read back from a file as
// respcheck report reads it) is a section of its own: new and known
// differences and faults in groups, each finding's sequence as command
// lines and B's reply marked at its first byte that departs from A's
// (the replies read back from their escaped form, non-ASCII included).
func TestExploreSection(t *testing.T) {
	a := []byte("*2\r\n$4\r\nsl\xffw\r\n:1\r\n")
	b := []byte("*2\r\n$4\r\nsl\xffw\r\n:2\r\n")
	rep := explore.JSONReport{Seed: 7, A: "redis 8.6.3", B: "miniredis 2.40.0", Sequences: 10, Commands: 400,
		Differences: []explore.JSONFinding{
			{Signature: "HRANDFIELD: array | array", Command: "HRANDFIELD", Protocols: []int{2, 3}, Sequence: [][]string{words("HSET", "{rx}:h", "f", "a b\xff"), words("HRANDFIELD", "{rx}:h", "1")}, A: resp.Escape(a), B: resp.Escape(b), Seen: 3, Original: 20},
			{Signature: "EVAL: a script error ends", Command: "EVAL", Protocols: []int{3}, Sequence: [][]string{words("EVAL", "return 1", "0")}, A: `"-ERR x\r\n"`, B: `"-ERR x\r\n"`, Seen: 1, Original: 5, Known: true},
		},
		Faults: []explore.JSONFinding{
			{Signature: "XLEN: B answers one command with another number of replies", Command: "XLEN", Protocols: []int{2}, Sequence: [][]string{words("XLEN", "{rx}:hash")}, B: `"-WRONGTYPE\r\n:0\r\n"`, Target: "B", Desync: true, Seen: 1, Original: 20},
			{Signature: "SETRANGE: B stopped answering (a crash or a freeze)", Command: "SETRANGE", Protocols: []int{2}, Sequence: [][]string{{`"SETRANGE"`, `\q not escaped`}}, B: `\q bad`, Target: "B", Lost: "stopped answering: EOF", Seen: 1, Original: 20},
		},
	}
	in := loadJSON(t, "explore.json", rep)
	if in.Explore == nil {
		t.Fatalf("Load: %+v", in)
	}
	p := Build([]Input{in})
	if len(p.Explore) != 1 {
		t.Fatalf("%d explore sections", len(p.Explore))
	}
	var titles []string
	for _, g := range p.Explore[0].Groups {
		titles = append(titles, g.Title)
	}
	if want := "Differences the bundled suite does not have|Differences the bundled suite declares|Faults of a server"; strings.Join(titles, "|") != want {
		t.Errorf("groups %q, want %q", titles, want)
	}
	f := p.Explore[0].Groups[0].Findings[0]
	if want := `"HSET" "{rx}:h" "f" "a b\xff"`; f.Lines[0] != want {
		t.Errorf("first line %q", f.Lines[0])
	}
	if len(f.Rows) != 2 || f.Rows[0].Offset != -1 || f.Rows[1].Offset != len(a)-3 || f.Rows[1].Mark != "2" {
		t.Errorf("rows %+v: want A, then B marked at byte %d", f.Rows, len(a)-3)
	}
	if fault := p.Explore[0].Groups[2].Findings[0]; len(fault.Rows) != 1 || fault.Rows[0].Servers != "miniredis 2.40.0" {
		t.Errorf("the fault's rows %+v: want B's own", fault.Rows)
	}
	// Identical replies (a hand-made report) are not marked.
	if same := p.Explore[0].Groups[1].Findings[0]; len(same.Rows) != 2 || same.Rows[1].Offset != -1 {
		t.Errorf("identical replies marked: %+v", same.Rows)
	}
	// What is not escaped text is shown as it is, and said so.
	bad := p.Explore[0].Groups[2].Findings[1]
	if !strings.Contains(bad.Lines[0], "not an escaped word") || len(bad.Rows) != 1 || bad.Rows[0].Reason == "" {
		t.Errorf("a report's text that is not escaped: lines %q, rows %+v", bad.Lines, bad.Rows)
	}
	var out bytes.Buffer
	if err := Write(&out, []Input{in}); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	for _, want := range []string{`<section class="explore" id="explore-0">`, "redis 8.6.3 against miniredis 2.40.0", "seed 7", "HRANDFIELD: array | array", `sl\xffw`, "<mark", "shrunk from 20 to 2 commands",
		"B: stopped answering: EOF", "B answered one command with another number of replies"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// words is a command's words as the JSON report holds them, escaped.
func words(ws ...string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = resp.Escape([]byte(w))
	}
	return out
}

// loadJSON writes v as JSON to a file named name and reads it back as
// respcheck report reads its inputs.
func loadJSON(t *testing.T, name string, v any) Input {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return in
}
