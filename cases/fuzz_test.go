package cases

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// seedFiles returns every case file the repository ships: the bundled
// suite, cases/testdata and testdata/{clients,bench}.
func seedFiles(f *testing.F) map[string][]byte {
	f.Helper()
	out := map[string][]byte{}
	names, err := fs.Glob(suiteFS, "suite/*.yaml")
	if err != nil || len(names) == 0 {
		f.Fatalf("bundled suite: %v (%d files)", err, len(names))
	}
	for _, n := range names {
		b, err := fs.ReadFile(suiteFS, n)
		if err != nil {
			f.Fatal(err)
		}
		out[n] = b
	}
	for _, pat := range []string{"testdata/*.yaml", "../testdata/clients/*.yaml", "../testdata/bench/*.yaml"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out[p] = b
		}
	}
	return out
}

// FuzzLoad: Load never panics, and every problem it reports is an *Error
// of the file at a line and column (1-based) with a message.
func FuzzLoad(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	for _, s := range []string{
		"", "suite: x\n", "suite: x\ncases: []\n", "- a\n- b\n", "a: &a [*a]\n", "suite: x\n---\nsuite: y\n",
		"suite: x\ncases:\n  - name: a\n    steps:\n      - send: [PING]\n        expect: {simple: PONG}\n",
		"suite: x\ncases:\n  - name: a\n    steps:\n      - send: [SET, \"{key}\", \"{gen:random:1KiB}\"]\n        expect: {simple: OK}\n",
		"\t", "{", "[", "\"", "suite: !!binary x\n", "%YAML 1.1\n%YAML 1.1\n", "a: b\n  c: d\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.yaml"
		file, err := Load(name, data)
		if err == nil {
			if file == nil {
				t.Fatal("Load returned neither a file nor an error")
			}
			return
		}
		if file != nil {
			t.Fatalf("Load returned a file and an error: %v", err)
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("Load error is %T, not a non-empty ErrorList: %v", err, err)
		}
		for _, e := range list {
			if e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" {
				t.Fatalf("error without a position or message: %#v (%q)", e.Pos, e.Error())
			}
			if !strings.HasPrefix(e.Error(), e.Pos.String()+": ") {
				t.Fatalf("error %q does not start with its position %s", e.Error(), e.Pos)
			}
		}
	})
}

// templateSeeds are the template texts of the seed files (every scalar with
// a brace) and the documented forms.
func templateSeeds(f *testing.F) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{") {
			add(n.Value)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for _, b := range seedFiles(f) {
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) == nil {
			walk(&doc)
		}
	}
	for _, s := range []string{
		"", "plain", "{{", "{{key}}", "{key}", "{key:a.b:c-d}", "{id}", "{cap:n}", "{cap:bin}", "{cap:nope}",
		"{hex:00ff}", "{len:{cap:d}}", "{xxh3:abc}", "{xxh3:{gen:random:100:7}}", "{add:1:{cap:n}}",
		"{add:-5:{len:{gen:repeat:3:ab}}}", "{gen:random:17}", "{gen:random:1KiB:3}", "{gen:repeat:5:{key:x}}",
		"{gen:repeat:0:{gen:random:9}}", "{gen:repeat:3:{gen:repeat:2:{cap:d}}}", "a{key}b{id}c{cap:empty}d",
		"{len:}", "{xxh3:}", "{add:0:}", "{gen:repeat:2:}", "{gen:random:0}", "{key", "{len:{", "}}{",
	} {
		add(s)
	}
	return out
}

// fuzzEnvs are the environments FuzzTemplate expands against, chosen by
// the fuzzer: none, one without a prefix, and a full one.
var fuzzEnvs = []*Env{
	nil,
	{},
	{KeyPrefix: "rc:{0123abcd}:", Captures: map[string][]byte{
		"n": []byte("41"), "d": []byte("0123456789abcdef"), "empty": {}, "bin": {0, '\r', '\n', 0xff},
		"neg": []byte("-9223372036854775808"), "max": []byte("9223372036854775807"),
	}},
}

// maxFuzzWork bounds the bytes a fuzzed template may make the expansion
// functions produce or hash, so that {gen:random:1GiB} is skipped rather
// than run for seconds.
const maxFuzzWork = 4 << 20

// staticSize is an upper bound of the expansion's size for any Env of
// fuzzEnvs, saturated past maxFuzzWork.
func staticSize(t *Template) int64 {
	var n int64
	for _, p := range t.parts {
		switch p.op {
		case opLit:
			n += int64(len(p.lit))
		case opRandom:
			n += min(p.n, maxFuzzWork+1)
		case opRepeat:
			n += max(p.n, 1) * staticSize(p.arg)
		default: // key, id, cap, len, xxh3, add: at most a prefix, a capture or a number
			n += 64
		}
		n = min(n, maxFuzzWork+1)
	}
	return n
}

// work is an upper bound of the bytes the expansion functions produce or
// hash for t, counting every nested argument they materialize.
func work(t *Template) int64 {
	n := staticSize(t)
	for _, p := range t.parts {
		if p.arg != nil {
			n += work(p.arg) + staticSize(p.arg)
		}
		n = min(n, maxFuzzWork+1)
	}
	return n
}

// FuzzTemplate: ParseTemplate never panics; for a template it accepts,
// Expand, Size, Equal and WriteTo agree: they fail together, or Size is the
// length of Expand's bytes, which Equal accepts (and a changed copy not)
// and WriteTo writes.
func FuzzTemplate(f *testing.F) {
	for i, s := range templateSeeds(f) {
		f.Add(s, uint8(len(fuzzEnvs)-1-i%len(fuzzEnvs))) // mostly the full Env
	}
	f.Fuzz(func(t *testing.T, src string, which uint8) {
		env := fuzzEnvs[int(which)%len(fuzzEnvs)]
		pos := Pos{File: "fuzz.yaml", Line: 3, Col: 9}
		tm, err := ParseTemplate(pos, src)
		if err != nil {
			if tm != nil || err.Error() == "" {
				t.Fatalf("ParseTemplate(%q) = %v, %q", src, tm, err)
			}
			return
		}
		if tm.Source() != src || tm.Pos != pos {
			t.Fatalf("Source %q Pos %v, want %q %v", tm.Source(), tm.Pos, src, pos)
		}
		if work(tm) > maxFuzzWork {
			t.Skip("expansion too large for fuzzing")
		}
		checkExpansion(t, tm, env)
	})
}

// checkExpansion checks that Size, Expand, Equal and WriteTo agree on tm
// with env.
func checkExpansion(t *testing.T, tm *Template, env *Env) {
	src := tm.Source()
	size, serr := tm.Size(env)
	exp, eerr := tm.Expand(env)
	var w bytes.Buffer
	wn, werr := tm.WriteTo(env, &w)
	if serr != nil || eerr != nil {
		var e *Error
		if serr == nil || eerr == nil || serr.Error() != eerr.Error() || !errors.As(eerr, &e) || e.Pos != tm.Pos {
			t.Fatalf("%q: Size error %v, Expand error %v", src, serr, eerr)
		}
		if werr == nil || wn != 0 || w.Len() != 0 {
			t.Fatalf("%q: Expand fails (%v) but WriteTo wrote %d bytes, error %v", src, eerr, wn, werr)
		}
		if _, err := tm.Equal(env, nil); err == nil {
			t.Fatalf("%q: Expand fails (%v) but Equal does not", src, eerr)
		}
		return
	}
	if size != int64(len(exp)) {
		t.Fatalf("%q: Size %d, Expand %d bytes", src, size, len(exp))
	}
	if werr != nil || wn != size || !bytes.Equal(w.Bytes(), exp) {
		t.Fatalf("%q: WriteTo wrote %d bytes (%v), want the %d of Expand", src, wn, werr, size)
	}
	if ok, err := tm.Equal(env, exp); !ok || err != nil {
		t.Fatalf("%q: Equal(Expand) = %v, %v", src, ok, err)
	}
	other := append(bytes.Clone(exp), 'x')
	if ok, _ := tm.Equal(env, other); ok {
		t.Fatalf("%q: Equal accepts the expansion with a byte appended", src)
	}
	if len(exp) > 0 {
		other = bytes.Clone(exp)
		other[len(other)/2] ^= 1
		if ok, _ := tm.Equal(env, other); ok {
			t.Fatalf("%q: Equal accepts the expansion with a byte changed", src)
		}
	}
	if lit, ok := tm.Literal(); ok != tm.IsLiteral() || ok && lit != string(exp) {
		t.Fatalf("%q: Literal %q %v, IsLiteral %v, Expand %q", src, lit, ok, tm.IsLiteral(), exp)
	}
}
