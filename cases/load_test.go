package cases

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/respcheck/respcheck/resp"
)

const (
	kindInteger = resp.Integer
	kindBoolean = resp.Boolean
)

func mustLoad(t *testing.T, path string) *File {
	t.Helper()
	f, err := LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile(%s):\n%v", path, err)
	}
	return f
}

func TestLoadFull(t *testing.T) {
	f := mustLoad(t, "testdata/full.yaml")
	if f.Suite != "SET conditions and DIGEST" || f.Path != "testdata/full.yaml" {
		t.Errorf("Suite, Path = %q, %q", f.Suite, f.Path)
	}
	if diff := cmp.Diff([]string{"strings", "seed-000"}, f.Tags); diff != "" {
		t.Errorf("Tags (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile("testdata/full.yaml")
	if len(f.Hash) != 64 || f.Hash == strings.Repeat("0", 64) {
		t.Errorf("Hash = %q", f.Hash)
	}
	if f2, _ := Load("testdata/full.yaml", data); f2.Hash != f.Hash {
		t.Errorf("Hash not stable")
	}
	if f3, _ := Load("x.yaml", append(data, '\n')); f3.Hash == f.Hash {
		t.Errorf("Hash does not depend on the bytes")
	}

	// File-level gates.
	if diff := cmp.Diff(&Gates{Pos: Pos{"testdata/full.yaml", 5, 3}, Commands: []string{"SET", "DIGEST"}}, f.Requires); diff != "" {
		t.Errorf("file Requires (-want +got):\n%s", diff)
	}

	if len(f.Cases) != 3 {
		t.Fatalf("got %d cases", len(f.Cases))
	}
	c := f.Cases[0]
	if c.ID() != "testdata/full.yaml/IFEQ+GET on a failed condition returns the old value and writes nothing" {
		t.Errorf("ID = %q", c.ID())
	}
	if c.Pos != (Pos{"testdata/full.yaml", 8, 11}) || c.File != f {
		t.Errorf("Pos = %v, File = %p", c.Pos, c.File)
	}
	if diff := cmp.Diff([]string{"strings", "seed-000", "ifeq"}, c.AllTags()); diff != "" {
		t.Errorf("AllTags (-want +got):\n%s", diff)
	}
	g := c.Requires
	if g == nil || len(g.Servers) != 1 || g.Servers[0].Text != "redis>=8.4" || !g.Debug || g.Proto != 3 ||
		len(g.Probes) != 1 || len(g.Probes[0].Send) != 5 || g.Probes[0].Send[1].Source() != "{key:probe}" ||
		g.Probes[0].Pos != (Pos{"testdata/full.yaml", 15, 11}) {
		t.Errorf("case Requires = %+v", g)
	}
	if len(c.Gates()) != 2 {
		t.Errorf("Gates() = %v", c.Gates())
	}
	if len(c.Known) != 1 || c.Known[0].Server.Text != "valkey<9" || c.Known[0].Reason != "Valkey 8.0.1 answers differently" {
		t.Errorf("Known = %+v", c.Known)
	}
	if k := c.KnownFor(ServerInfo{Family: "valkey", Version: Version{8, 0, 1}, Proto: 3}); k != c.Known[0] {
		t.Errorf("KnownFor(valkey 8.0.1) = %v", k)
	}
	if k := c.KnownFor(ServerInfo{Family: "valkey", Version: Version{9, 0, 0}, Proto: 3}); k != nil {
		t.Errorf("KnownFor(valkey 9) = %v", k)
	}

	want := [][]string{{
		`0 send SET {key} original | reply "+OK\r\n"`,
		`1 send SET {key} attempted IFEQ wrong-guess GET | reply "$8\r\noriginal\r\n"`,
		`2 send GET {key:missing} | [resp2] reply "$-1\r\n" | [resp3] reply "_\r\n"`,
		`3 send SET {key} c IFDEQ zz | error "ERR must be exactly 16 hexadecimal characters"`,
		`4 send LPUSH {key} a | error_code "WRONGTYPE"`,
		`5 send FOO | error_match "^ERR unknown command"`,
		`6 send HELLO 3 | value map[blob_string"server", type(blob string), blob_string"version", ~"^\\d+\\.", blob_string"proto", integer(3), blob_string"id", type(integer), blob_string"mode", blob_string"standalone", blob_string"role", blob_string"master", blob_string"modules", any]`,
		`7 send DIGEST {key} capture=digest | any`,
		`8 send SET {key} v2 IFDEQ {cap:digest} | reply "+OK\r\n"`,
		`9 send@a WATCH {key} | reply "+OK\r\n"`,
		`10 send@b SET {key} 5 | reply "+OK\r\n"`,
		`11 send@a BLPOP {key:l} 1 async`,
		`12 read@a | [resp2] reply "*-1\r\n" | [resp3] reply "_\r\n"`,
		`13 push@s | value push[blob_string"message", blob_string"{key:ch}", blob_string"hi"]`,
		`14 sleep 50ms`,
		`15 raw "PING\r\n" | reply "+PONG\r\n"`,
		`16 send DEBUG SLEEP 0.2 timeout=2s | reply "+OK\r\n"`,
		`17 send INCR {key:n} | [valkey] error "ERR no" | reply ":1\r\n"`,
	}, {
		`0 send X | value array[simple_string"OK", simple_error"ERR x", integer(5), integer(-7), blob_string"text", blob_string"plain", double"1.5", double"inf", boolean(true), blob_error"SYNTAX x", verbatim_string(txt)"Some string", big_number"3492890328409238509324850943850943825024385", set[blob_string"a"], set(unordered)[blob_string"a", blob_string"b"], array(unordered)[integer(1), integer(2)], map(unordered)[blob_string"k", blob_string"v"], nil_blob_string, nil_array, null, type(big number)~"^\\d+$", attr[blob_string"ttl", integer(3600)] blob_string"cached", array[]]`,
		`1 send Y | [resp2] value array[blob_string"a"] | [resp3 redis] value set[blob_string"a"] | [default] value set(unordered)[blob_string"a"]`,
	}, {
		`0 send SET {key} {gen:random:1KiB:7} | not error`,
		`1 send STRLEN {key} | reply ":{len:{gen:random:1KiB:7}}\r\n"`,
		`2 send GET {key} capture=v | not error`,
		`3 send ECHO {xxh3:{cap:v}} | reply "${len:{xxh3:x}}\r\n{xxh3:{gen:random:1KiB:7}}\r\n"`,
		`4 raw "PING\r\n" async`,
		`5 send ECHO {{1,2} async`,
		`6 read | reply "+PONG\r\n"`,
		`7 read capture=lua | reply "$5\r\n{{1,2}\r\n"`,
		`8 send EVAL return {1,2} 0 | reply "*2\r\n:1\r\n:2\r\n"`,
		`9 send ECHO {cap:lua} | [resp3 resp2] value blob_string"x" | [resp3 redis] value blob_string"{{1,2}" | [resp2] not error`,
		`10 push | reply ">1\r\n$1\r\nx\r\n"`,
		`11 push | any`,
		`12 push | [resp2] value array[blob_string"x"] | [resp3] value push[blob_string"x"]`,
	}}
	for i, c := range f.Cases {
		var got []string
		for j, s := range c.Steps {
			if s.Index != j {
				t.Errorf("case %d step %d: Index = %d", i, j, s.Index)
			}
			got = append(got, dumpStep(s))
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("case %d %q steps (-want +got):\n%s", i, c.Name, diff)
		}
	}

	// A structural check of one typed value, positions included.
	hello := f.Cases[0].Steps[6].Expect[0].Expect.Value
	p := func(line, col int) Pos { return Pos{"testdata/full.yaml", line, col} }
	tmpl := func(line, col int, s string) *Template {
		tt, err := ParseTemplate(p(line, col), s)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	wantHello := &TypedValue{Pos: p(33, 16), Kind: resp.Map, Elems: []*TypedValue{
		{Pos: p(33, 24), Kind: resp.BlobString, Text: tmpl(33, 24, "server")},
		{Pos: p(33, 32), Kind: resp.BlobString, KindOnly: true},
		{Pos: p(33, 55), Kind: resp.BlobString, Text: tmpl(33, 55, "version")},
		{Pos: p(33, 64), Match: regexp.MustCompile(`^\d+\.`)},
		{Pos: p(33, 85), Kind: resp.BlobString, Text: tmpl(33, 85, "proto")},
		{Pos: p(33, 92), Kind: resp.Integer, Int: 3},
		{Pos: p(33, 97), Kind: resp.BlobString, Text: tmpl(33, 97, "id")},
		{Pos: p(33, 101), Kind: resp.Integer, KindOnly: true},
		{Pos: p(33, 120), Kind: resp.BlobString, Text: tmpl(33, 120, "mode")},
		{Pos: p(33, 126), Kind: resp.BlobString, Text: tmpl(33, 126, "standalone")},
		{Pos: p(33, 140), Kind: resp.BlobString, Text: tmpl(33, 140, "role")},
		{Pos: p(33, 146), Kind: resp.BlobString, Text: tmpl(33, 146, "master")},
		{Pos: p(33, 156), Kind: resp.BlobString, Text: tmpl(33, 156, "modules")},
		{Pos: p(33, 165), Any: true},
	}}
	opts := cmp.Options{
		cmp.AllowUnexported(Template{}, part{}),
		cmp.Comparer(func(a, b *regexp.Regexp) bool {
			return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
		}),
	}
	if diff := cmp.Diff(wantHello, hello, opts); diff != "" {
		t.Errorf("HELLO value (-want +got):\n%s", diff)
	}

	// The whole step, with go-cmp, ignoring unexported parsed parts.
	wantStep := &Step{
		Pos: p(45, 9), Index: 15, Action: ActRaw, Conn: DefaultConn, Raw: tmpl(45, 14, "PING\r\n"),
		Expect: Variants{{Expect: &Expect{Pos: p(46, 16), Kind: ExpectBytes, Bytes: tmpl(46, 16, "+PONG\r\n")}}},
	}
	if diff := cmp.Diff(wantStep, f.Cases[0].Steps[15], opts, cmpopts.IgnoreUnexported(Selector{})); diff != "" {
		t.Errorf("raw step (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	f := mustLoad(t, "testdata/full.yaml")
	vs := f.Cases[1].Steps[1].Expect
	for _, tc := range []struct {
		info ServerInfo
		want int
	}{
		{ServerInfo{Family: "redis", Version: Version{7}, Proto: 2}, 0},
		{ServerInfo{Family: "valkey", Version: Version{8}, Proto: 2}, 0},
		{ServerInfo{Family: "redis", Version: Version{7}, Proto: 3}, 1},
		{ServerInfo{Family: "valkey", Version: Version{8}, Proto: 3}, 2},
	} {
		e, ok := vs.Resolve(tc.info)
		if !ok || e != vs[tc.want].Expect {
			t.Errorf("Resolve(%+v) = %v, %v; want variant %d", tc.info, e, ok, tc.want)
		}
	}
	// No match.
	vs = f.Cases[0].Steps[2].Expect
	if e, ok := vs.Resolve(ServerInfo{Family: "redis", Version: Version{7}, Proto: 0}); ok || e != nil {
		t.Errorf("Resolve with no match = %v, %v", e, ok)
	}
	if _, ok := Variants(nil).Resolve(ServerInfo{}); ok {
		t.Errorf("nil Variants resolved")
	}
	// A plain expectation always resolves.
	vs = f.Cases[0].Steps[0].Expect
	if e, ok := vs.Resolve(ServerInfo{}); !ok || e.Kind != ExpectBytes {
		t.Errorf("Resolve plain = %v, %v", e, ok)
	}
}

func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := "suite: s\ncases:\n  - name: c\n    steps:\n      - send: [PING]\n"
	write("b.yaml", good)
	write("a/z.yml", good)
	write("a/y.yaml", good)
	write("a/notes.txt", "not yaml")
	write(".hidden/x.yaml", "bad: [")
	write("testdata/x.yaml", "bad: [")
	write("c.yaml", "suite: s\ncases:\n  - name: c\n    steps:\n      - sned: [PING]\n")
	write("d.yaml", "suite: s\ncases: [\n")
	write("explicit.txt", good)

	files, err := LoadPaths([]string{dir, filepath.Join(dir, "explicit.txt"), filepath.Join(dir, "missing.yaml")})
	var got []string
	for _, f := range files {
		got = append(got, strings.TrimPrefix(f.Path, dir+"/"))
	}
	if diff := cmp.Diff([]string{"a/y.yaml", "a/z.yml", "b.yaml", "explicit.txt"}, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	el, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("err = %T %v", err, err)
	}
	want := []string{
		dir + "/c.yaml:5:9: unknown field \"sned\" in step: did you mean \"send\"? (want one of: " + strings.Join(stepFields, ", ") + ")",
		dir + "/d.yaml:2:8: YAML syntax error: did not find expected node content",
		dir + "/missing.yaml: stat: no such file or directory",
	}
	if diff := cmp.Diff(want, strings.Split(el.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestBundled(t *testing.T) {
	files, err := Bundled()
	if err != nil {
		t.Fatalf("Bundled: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no bundled files")
	}
	ids := map[string]bool{}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "suite/") || !strings.HasSuffix(f.Path, ".yaml") {
			t.Errorf("Path = %q", f.Path)
		}
		for _, c := range f.Cases {
			if ids[c.ID()] {
				t.Errorf("duplicate id %q", c.ID())
			}
			ids[c.ID()] = true
		}
	}
}
