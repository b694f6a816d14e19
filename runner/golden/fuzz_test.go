package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/respcheck/respcheck/runner/internal/fuzzseed"
)

// goldenSeeds returns the golden files of testdata/golden: the server
// files when server is set, else the case files.
func goldenSeeds(f *testing.F, server bool) [][]byte {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*", "*"+Ext))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no goldens: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		if (filepath.Base(p) == ServerFile) != server {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// sameFile compares parsed goldens, but for the golden-file lines that
// Parse sets.
var sameFile = cmpopts.IgnoreFields(Case{}, "Line")

// FuzzParse: Parse never panics and names the file in its errors; a file
// it accepts marshals to text that parses to the same recording, which
// marshals to the same text.
func FuzzParse(f *testing.F) {
	for _, b := range fuzzseed.Sample(goldenSeeds(f, false)) {
		f.Add(b)
	}
	for _, s := range []string{
		"golden 1\n", "golden 2\n", "", "golden 1\ncase \"a\" resp3 pass\n  step 0 send\n    sent \"x\"\n",
		"golden 1\ncase \"a\" resp2 fail \"why\"\n  prefix \"p\"\n  step 1 read conn=b line=3 async volatile\n    push \"p\"\n    reply size=5000 sha256=" + strings.Repeat("0", 64) + " head \"ab\"\n",
		"golden 1\nstep 0 send\n", "golden 1\nsent \"x\"\n", "golden 1\nfile \"\\x4\"\n", "golden 1\ncase \"a\\\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.golden"
		g, err := Parse(name, data)
		if err != nil {
			if g != nil || !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("Parse error %q (file %v) does not name the file", err, g != nil)
			}
			return
		}
		text := g.Marshal()
		h, err := Parse(name, text)
		if err != nil {
			t.Fatalf("Parse(Marshal(Parse(data))): %v\n%s", err, text)
		}
		if d := cmp.Diff(g, h, sameFile, cmpopts.IgnoreFields(Step{}, "Line")); d != "" {
			t.Fatalf("Parse(Marshal(g)) differs from g (-g +parsed):\n%s\ntext:\n%s", d, text)
		}
		if again := h.Marshal(); string(again) != string(text) {
			t.Fatalf("Marshal is not stable:\n%s\n---\n%s", text, again)
		}
	})
}

// FuzzParseServer: parseServer never panics; a server file it accepts
// marshals to text that parses to the same server.
func FuzzParseServer(f *testing.F) {
	for _, b := range fuzzseed.Sample(goldenSeeds(f, true)) {
		f.Add(b)
	}
	for _, s := range []string{"", "golden 1\nserver a b c\n", "hello2 \"\"\n", "hello3 \"\\xZZ\"\n", "redis_version x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "_server.golden"
		s, err := parseServer(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("parseServer error %q does not name the file", err)
			}
			return
		}
		text := s.Marshal()
		back, err := parseServer(name, text)
		if err != nil {
			t.Fatalf("parseServer(Marshal(s)): %v\n%s", err, text)
		}
		if d := cmp.Diff(s, back); d != "" {
			t.Fatalf("parseServer(Marshal(s)) differs from s (-s +parsed):\n%s\ntext:\n%q", d, text)
		}
	})
}
