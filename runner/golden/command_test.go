package golden

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
)

func TestRecordCommand(t *testing.T) {
	redis := Server{Family: "redis", Version: "7.0.15"}
	var suite []string
	for p := range bundled() {
		suite = append(suite, p)
	}
	if len(suite) < 5 || !bundled()["suite/strings.yaml"] {
		t.Fatalf("bundled suite: %q", suite)
	}
	for _, tc := range []struct {
		s      Server
		dir    string
		paths  []string
		protos []int
		want   string
	}{
		// The whole bundled suite: no files.
		{redis, "testdata/golden/redis-7.0.15", suite, nil, "respcheck record --server redis-7.0.15 --out testdata/golden/redis-7.0.15"},
		// Part of it: by --run.
		{redis, "g", []string{"suite/strings.yaml", "suite/nil.yaml"}, nil, `respcheck record --server redis-7.0.15 --out g --run '^(nil|strings)/'`},
		// A user's files: by path, quoted for the shell, in one protocol.
		{Server{Family: "valkey", Version: "9.1.2"}, "my goldens", []string{"cases/it's.yaml", "b.yaml"}, []int{3},
			`respcheck record --server valkey-9.1.2 --out 'my goldens' --proto 3 b.yaml 'cases/it'\''s.yaml'`},
		// Both: two commands.
		{redis, "g", []string{"suite/nil.yaml", "mine.yaml"}, nil,
			`respcheck record --server redis-7.0.15 --out g --run '^(nil)/' && respcheck record --server redis-7.0.15 --out g mine.yaml`},
		{Server{Family: "miniredis", Version: "8.4.0"}, "g", []string{"a.yaml"}, nil, "respcheck record --server miniredis --out g a.yaml"},
		// Recorded on an existing server: its target flags, and no
		// --cluster (that would start one).
		{Server{Family: "redis", Version: "8.6.3", Topology: "cluster 3x1", Target: "--addr 10.0.0.1:7000 --user app"}, "g", []string{"a.yaml"}, nil,
			"respcheck record --addr 10.0.0.1:7000 --user app --out g a.yaml"},
		{Server{Family: "redis", Version: "8.6.3", Topology: "cluster 3x0", Target: "--server-bin ./redis-server"}, "g", []string{"a.yaml"}, nil,
			"respcheck record --server-bin ./redis-server --cluster 3 --out g a.yaml"},
		// A line break in a name: one line, in $'...' (found by FuzzParse: the
		// golden's comment broke in two).
		{redis, "g", []string{"x\nsuite: y's.yaml"}, nil, `respcheck record --server redis-7.0.15 --out g $'x\x0asuite: y\'s.yaml'`},
	} {
		if got := recordCommand(tc.s, tc.dir, tc.paths, tc.protos); got != tc.want {
			t.Errorf("recordCommand(%v, %q, %q, %v)\n got %s\nwant %s", tc.s.Name(), tc.dir, tc.paths, tc.protos, got, tc.want)
		}
	}
}

// userDir is a golden directory recorded from a user's own case files, in
// RESP2 only.
func userDir() *Dir {
	srv := Server{Family: "redis", Version: "8.6.3", Source: "recorded"}
	file := func(path, sum string) *File {
		return &File{Path: path, SHA256: sum, Server: srv, Cases: []*Case{{Name: "c", Proto: 2, Status: "pass"}}}
	}
	return &Dir{Path: "goldens/mine", Server: srv, Files: map[string]*File{
		"rt":    file("my cases/rt.yaml", strings.Repeat("a", 64)),
		"other": file("other.yaml", strings.Repeat("b", 64)),
	}}
}

func TestStaleGoldenOfOwnCaseFilesNamesTheRecordCommand(t *testing.T) {
	d := userDir()
	rt := &cases.File{Path: "my cases/rt.yaml", Hash: strings.Repeat("c", 64)} // changed since
	rt.Cases = []*cases.Case{{Name: "c", File: rt, Hash: "h"}}
	other := &cases.File{Path: "other.yaml", Hash: strings.Repeat("b", 64)}
	p := NewChecker(d, []*cases.File{rt, other}).Problems()
	want := "stale golden goldens/mine/rt.golden: recorded from my cases/rt.yaml with sha256 aaaaaaaaaaaa…, the file is now cccccccccccc…; " +
		"not compared: all its cases (the golden predates per-case hashes and its file changed); " +
		"to record goldens/mine again: respcheck record --server redis-8.6.3 --out goldens/mine --proto 2 'my cases/rt.yaml' other.yaml"
	if len(p) != 1 || p[0] != want {
		t.Errorf("Problems =\n%q\nwant\n%q", p, want)
	}
	// A missing golden: the command records it too, once, on the last line.
	added := &cases.File{Path: "new.yaml", Hash: "x"}
	p = NewChecker(d, []*cases.File{rt, other, added}).Problems()
	if len(p) != 2 || !strings.HasPrefix(p[0], "missing golden goldens/mine/new.golden for new.yaml") || strings.Contains(p[0], "respcheck record") ||
		!strings.HasSuffix(p[1], "; to record goldens/mine again, with the missing ones: "+
			"respcheck record --server redis-8.6.3 --out goldens/mine --proto 2 'my cases/rt.yaml' new.yaml other.yaml") {
		t.Errorf("Problems =\n%s", strings.Join(p, "\n"))
	}
	// A file that uses {var:NAME}: the command says to give it.
	rt.Vars = []string{"TOKEN"}
	p = NewChecker(d, []*cases.File{rt, other}).Problems()
	if len(p) != 1 || !strings.HasSuffix(p[0], "respcheck record --server redis-8.6.3 --var TOKEN=VALUE --out goldens/mine --proto 2 'my cases/rt.yaml' other.yaml") {
		t.Errorf("Problems with a variable =\n%s", strings.Join(p, "\n"))
	}
	for _, l := range p {
		if strings.Contains(l, "scripts/record-goldens") {
			t.Errorf("a user's golden sent to the repository's script: %s", l)
		}
	}
}

func TestGoldenHeaderNamesTheRecordCommand(t *testing.T) {
	f := userDir().Files["rt"]
	text := string(f.Marshal())
	if !strings.Contains(text, "\n#   respcheck record --server redis-8.6.3 --out DIR --proto 2 'my cases/rt.yaml'\n") ||
		strings.Contains(text, "record-goldens") {
		t.Errorf("header:\n%s", text[:strings.Index(text, "golden 1")])
	}
	f.Path, f.Cases[0].Proto = "suite/strings.yaml", 3
	f.Cases = append(f.Cases, &Case{Name: "c", Proto: 2})
	if text := string(f.Marshal()); !strings.Contains(text, "\n#   respcheck record --server redis-8.6.3 --out DIR --run '^(strings)/'\n") {
		t.Errorf("header of a bundled file:\n%s", text[:strings.Index(text, "golden 1")])
	}
}

// TestServerEquivalent: two recordings of a server that differ only in
// the connection ids of their HELLO replies say the same; anything else
// differs.
func TestServerEquivalent(t *testing.T) {
	a := Server{Family: "redis", Version: "7.0.15", Source: "recorded",
		Hello2: []byte("*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$2\r\nid\r\n:4\r\n"),
		Hello3: []byte("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$2\r\nid\r\n:5\r\n")}
	b := a
	b.Hello2 = []byte("*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$2\r\nid\r\n:1234\r\n")
	b.Hello3 = []byte("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$2\r\nid\r\n:1235\r\n")
	if !a.Equivalent(b) {
		t.Error("HELLO replies differing in their id only are not equivalent")
	}
	c := b
	c.Hello2 = []byte("*14\r\n$6\r\nserver\r\n$6\r\nvalkey\r\n$2\r\nid\r\n:4\r\n")
	d := a
	d.Hello3 = nil
	e := a
	e.Target = "--addr h:1"
	for i, o := range []Server{c, d, e} {
		if a.Equivalent(o) {
			t.Errorf("case %d: equivalent", i)
		}
	}
}

// TestMergeKeepsPrefixes: an update whose only change is one reply keeps
// the key prefixes of the old recording (a run with another run id would
// otherwise rewrite the prefix line of every case), and a case whose hash
// changed is rewritten even when its bytes did not.
func TestMergeKeepsPrefixes(t *testing.T) {
	mk := func(prefix, reply, hash string) *File {
		return &File{Path: "a.yaml", SHA256: "f", Server: Server{Family: "redis", Version: "7.0.15", Source: "recorded"}, Cases: []*Case{
			{Name: "one", Proto: 2, Status: "pass", Prefix: prefix, SHA256: hash, Steps: []*Step{{Index: 0, Action: "send", Reply: &Blob{Size: len(reply), SHA256: reply, Data: []byte(reply)}}}},
		}}
	}
	old := mk("rc:{11111111}:", "+OK\r\n", "h1")
	if m := Merge(old, mk("rc:{22222222}:", "+OK\r\n", "h1")); m != nil {
		t.Errorf("another prefix only: rewritten")
	}
	m := Merge(old, mk("rc:{33333333}:", "+NO\r\n", "h1"))
	if m == nil || m.Cases[0].Prefix != "rc:{11111111}:" {
		t.Errorf("a changed reply: %+v", m)
	}
	if m := Merge(old, mk("rc:{11111111}:", "+OK\r\n", "h2")); m == nil {
		t.Error("a changed case hash was not rewritten")
	}
}
