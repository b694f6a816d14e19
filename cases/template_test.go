package cases

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
	"go.yaml.in/yaml/v3"
)

func expand(t *testing.T, src string, env *Env) string {
	t.Helper()
	tm, err := ParseTemplate(Pos{"t.yaml", 1, 2}, src)
	if err != nil {
		t.Fatalf("ParseTemplate(%q): %v", src, err)
	}
	b, err := tm.Expand(env)
	if err != nil {
		t.Fatalf("Expand(%q): %v", src, err)
	}
	return string(b)
}

func TestKeyPrefix(t *testing.T) {
	re := regexp.MustCompile(`^rc:\{[0-9a-f]{8}\}:$`)
	seen := map[string]bool{}
	for i := range 1000 {
		p := KeyPrefix(fmt.Sprintf("run-1/suite/strings.yaml/case %d/3", i))
		if len(p) != KeyPrefixLen || !re.MatchString(p) {
			t.Fatalf("KeyPrefix = %q (len %d)", p, len(p))
		}
		if strings.Count(p, "{") != 1 || strings.Count(p, "}") != 1 {
			t.Fatalf("KeyPrefix %q has more than one hash tag", p)
		}
		seen[p] = true
	}
	if len(seen) != 1000 {
		t.Errorf("only %d distinct prefixes for 1000 seeds", len(seen))
	}
	if KeyPrefix("x") != KeyPrefix("x") || KeyPrefix("") == KeyPrefix("x") {
		t.Error("KeyPrefix is not a deterministic function of the seed")
	}
}

func TestExpand(t *testing.T) {
	env := &Env{
		KeyPrefix: "rc:{abcd1234}:",
		Captures:  map[string][]byte{"d": []byte("0123456789abcdef"), "empty": {}, "bin": {0, 0xff}, "n": []byte("41")},
	}
	h := func(s string) string { return fmt.Sprintf("%016x", xxh3.HashString(s)) }
	for _, tc := range []struct{ src, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"{key}", "rc:{abcd1234}:key"},
		{"{key:a}", "rc:{abcd1234}:a"},
		{"{key:user.1:x-y_z}", "rc:{abcd1234}:user.1:x-y_z"},
		{"a{key}b{key:c}d", "arc:{abcd1234}:keybrc:{abcd1234}:cd"},
		{"{cap:d}", "0123456789abcdef"},
		{"<{cap:empty}>", "<>"},
		{"{cap:bin}", "\x00\xff"},
		{"{hex:00ff0d0a80}", "\x00\xff\r\n\x80"},
		{"{hex:ABcd}", "\xab\xcd"},
		{"{gen:repeat:3:ab}", "ababab"},
		{"{gen:repeat:0:ab}", ""},
		{"{gen:repeat:1:ab}", "ab"},
		{"{gen:repeat:5:{hex:00}}", "\x00\x00\x00\x00\x00"},
		{"{gen:repeat:2:{key:k}|}", "rc:{abcd1234}:k|rc:{abcd1234}:k|"},
		{"{len:}", "0"},
		{"{len:abc}", "3"},
		{"{add:1:{cap:n}}", "42"},
		{"lib_{id}", "lib_abcd1234"},
		{"{add:-41:{cap:n}}", "0"},
		{"calls={add:0:7},", "calls=7,"},
		{"{len:{add:1:{cap:n}}}", "2"},
		{"{len:{key}}", "17"},
		{"{len:{gen:random:1MiB}}", "1048576"},
		{"{len:{gen:random:100KB}}", "100000"},
		{"{len:{gen:random:10KiB}}", "10240"},
		{"{len:{gen:random:123}}", "123"},
		{"{len:{gen:random:2MB}}", "2000000"},
		{"{len:{gen:repeat:1000:xyz}}", "3000"},
		{"{len:{len:{gen:random:1GiB}}}", "10"},
		{"${len:{cap:d}}\r\n{cap:d}\r\n", "$16\r\n0123456789abcdef\r\n"},
		{"{xxh3:}", "2d06800538d394c2"},
		{"{xxh3:{hex:01}}", "e12ef9d2eb86ceeb"},
		{"{xxh3:{hex:0102}}", "08130b77ddef5807"},
		{"{xxh3:{key}}", h("rc:{abcd1234}:key")},
		{"{xxh3:{len:abc}}", h("3")},
		{"{xxh3:a{cap:d}b}", h("a0123456789abcdefb")},
		{"{{", "{"},
		{"{{key}", "{key}"},
		{"{{{key}}", "{rc:{abcd1234}:key}"},
		{"}}", "}}"},
		{"a}b", "a}b"},
		// Lua tables, JSON, hash tags written with {{: all literal.
		{"return {1,2}", "return {1,2}"},
		{"return {KEYS[1], ARGV[1]}", "return {KEYS[1], ARGV[1]}"},
		{"local t = { a = 1 }", "local t = { a = 1 }"},
		{"local t = {x=1}", "local t = {x=1}"},
		{"return {}", "return {}"},
		{`{"a":1}`, `{"a":1}`},
		{"{unterminated", "{unterminated"},
		{"{", "{"},
		{"{{user1000}.following", "{user1000}.following"},
	} {
		if got := expand(t, tc.src, env); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestTemplateLiteral(t *testing.T) {
	for _, tc := range []struct {
		src     string
		literal bool
	}{
		{"abc", true},
		{"{{x}", true},
		{"return {1,2}", true},
		{"{hex:00}", true},
		{"{gen:random:1}", false},
		{"{key}", false},
		{"{len:x}", false},
	} {
		tm, err := ParseTemplate(Pos{}, tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if tm.IsLiteral() != tc.literal || tm.Source() != tc.src || tm.String() != tc.src {
			t.Errorf("%q: IsLiteral = %v, Source = %q", tc.src, tm.IsLiteral(), tm.Source())
		}
	}
	tm, _ := ParseTemplate(Pos{}, "a{{b")
	if s, ok := tm.Literal(); !ok || s != "a{b" {
		t.Errorf("Literal = %q, %v", s, ok)
	}
	tm, _ = ParseTemplate(Pos{}, "{cap:a}{xxh3:{cap:b}}{len:{cap:a}}")
	if got := tm.Captures(); strings.Join(got, ",") != "a,b" {
		t.Errorf("Captures = %q", got)
	}
}

func TestExpandErrors(t *testing.T) {
	env := &Env{KeyPrefix: "rc:{00000000}:"}
	for _, tc := range []struct {
		src string
		env *Env
		err string
	}{
		{"{cap:x}", env, `t.yaml:1:2: unknown capture "x"`},
		{"{len:{cap:x}}", env, `t.yaml:1:2: unknown capture "x"`},
		{"{xxh3:{cap:x}}", nil, `t.yaml:1:2: unknown capture "x"`},
		{"{key}", nil, `t.yaml:1:2: {key} used without a key prefix`},
		{"{key}", &Env{}, `t.yaml:1:2: {key} used without a key prefix`},
		{"{add:1:9223372036854775807}", env, `t.yaml:1:2: {add:1:9223372036854775807}: 9223372036854775807 + 1 overflows a 64-bit integer`},
		{"{add:-1:-9223372036854775808}", env, `t.yaml:1:2: {add:-1:-9223372036854775808}: -9223372036854775808 + -1 overflows a 64-bit integer`},
		{"{gen:repeat:1GiB:{gen:random:2}}", env, `t.yaml:1:2: expansion larger than 1073741824 bytes`},
		{"{gen:random:1GiB}{gen:random:1}", env, `t.yaml:1:2: expansion larger than 1073741824 bytes`},
	} {
		tm, err := ParseTemplate(Pos{"t.yaml", 1, 2}, tc.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tm.Expand(tc.env)
		if err == nil || err.Error() != tc.err {
			t.Errorf("Expand(%q) error = %v, want %s", tc.src, err, tc.err)
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("Expand(%q) error is %T, not *Error", tc.src, err)
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, tc := range []struct{ src, err string }{
		{"{kye}", `unknown template function "kye" (want one of: key, id, cap, var, env, gen, hex, len, xxh3, add; write {{ for a literal {)`},
		{"{user1000}.following", `unknown template function "user1000" (want one of: key, id, cap, var, env, gen, hex, len, xxh3, add; write {{ for a literal {)`},
		{"x{foo:bar}", `unknown template function "foo" (want one of: key, id, cap, var, env, gen, hex, len, xxh3, add; write {{ for a literal {)`},
		{"{len:{kye}}", `unknown template function "kye" (want one of: key, id, cap, var, env, gen, hex, len, xxh3, add; write {{ for a literal {)`},
		{"{cap}", `bad "{cap}": want {cap:NAME}`},
		{"{cap:}", `bad capture name "" in {cap:NAME} (want an identifier)`},
		{"{key:}", `bad key name "" in {key:NAME} (want letters, digits, '_', '.', ':', '-')`},
		{"{key:a", `unterminated "{key:a" (missing "}")`},
		{"{len:abc", `unterminated "{len:abc" (missing "}")`},
		{"{xxh3:{key}", `unterminated "{xxh3:{key}" (missing "}")`},
		{"{hex:0}", `bad {hex:0}: want an even number of hex digits`},
		{"{hex:zz}", `bad {hex:zz}: want an even number of hex digits`},
		{"{hex:}", `bad {hex:}: want an even number of hex digits`},
		{"{gen:random:}", `bad size in {gen:random:}: want a number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)`},
		{"{gen:random:1MiB:x}", `bad seed in {gen:random:1MiB:x}: want a decimal number`},
		{"{gen:random:2GiB}", `bad size in {gen:random:2GiB}: 2GiB is larger than the 1073741824-byte limit`},
		{"{gen:repeat:3}", `bad "{gen:repeat:3}": want {gen:repeat:COUNT:TEXT}`},
		{"{gen:repeat:x:y}", `bad count in {gen:repeat:x:...}: want a number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)`},
		{"{gen:foo}", `bad "{gen:foo}": want {gen:random:SIZE[:SEED]} or {gen:repeat:COUNT:TEXT}`},
		{"{gen}", `bad "{gen}": want {gen:random:SIZE[:SEED]} or {gen:repeat:COUNT:TEXT}`},
	} {
		_, err := ParseTemplate(Pos{}, tc.src)
		if err == nil || err.Error() != tc.err {
			t.Errorf("ParseTemplate(%q) error = %v, want %s", tc.src, err, tc.err)
		}
	}
}

func TestGenRandom(t *testing.T) {
	env := &Env{}
	a := expand(t, "{gen:random:1MiB}", env)
	if len(a) != 1<<20 {
		t.Fatalf("len = %d", len(a))
	}
	if b := expand(t, "{gen:random:1MiB}", env); a != b {
		t.Error("not deterministic")
	}
	if b := expand(t, "{gen:random:1MiB:0}", env); a != b {
		t.Error("the default seed is not 0")
	}
	if b := expand(t, "{gen:random:1MiB:7}", env); a == b {
		t.Error("the seed has no effect")
	}
	if b := expand(t, "{gen:random:13}", env); b != a[:13] {
		t.Error("a shorter size is not a prefix")
	}
	// SplitMix64 with seed 0 starts with 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4.
	var want [16]byte
	binary.LittleEndian.PutUint64(want[:], 0xe220a8397b1dcdaf)
	binary.LittleEndian.PutUint64(want[8:], 0x6e789e6aa1b965f4)
	if a[:16] != string(want[:]) {
		t.Errorf("first bytes = %x, want %x", a[:16], want)
	}
	// Byte distribution: every byte value occurs in 1 MiB of random data.
	var seen [256]bool
	for i := 0; i < len(a); i++ {
		seen[a[i]] = true
	}
	for v, ok := range seen {
		if !ok {
			t.Fatalf("byte %#x never occurs", v)
		}
	}
	// The streamed hash equals the hash of the materialized bytes.
	big := expand(t, "{gen:random:3MiB:5}", env)
	if got, want := expand(t, "{xxh3:{gen:random:3MiB:5}}", env), fmt.Sprintf("%016x", xxh3.HashString(big)); got != want {
		t.Errorf("streamed xxh3 = %s, want %s", got, want)
	}
	if got, want := expand(t, "{xxh3:{gen:random:1001}}", env), fmt.Sprintf("%016x", xxh3.HashString(a[:1001])); got != want {
		t.Errorf("streamed xxh3 of an odd size = %s, want %s", got, want)
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestGenLargeIsCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB")
	}
	const size = 64 << 20
	tm, err := ParseTemplate(Pos{}, "{gen:random:64MiB}")
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	n := allocated(func() { b, err = tm.Expand(&Env{}) })
	if err != nil || len(b) != size {
		t.Fatalf("len = %d, err = %v", len(b), err)
	}
	if n > size+1<<20 {
		t.Errorf("Expand of 64 MiB allocated %d bytes", n)
	}
	// Hashing and measuring stream or skip the data.
	tm, _ = ParseTemplate(Pos{}, "{xxh3:{gen:random:64MiB}}{len:{gen:random:64MiB}}")
	var out []byte
	if n := allocated(func() { out, _ = tm.Expand(&Env{}) }); n > 1<<20 {
		t.Errorf("xxh3 and len of 64 MiB allocated %d bytes", n)
	}
	if want := fmt.Sprintf("%016x%d", xxh3.Hash(b), size); string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	tm, _ = ParseTemplate(Pos{}, "{gen:repeat:1000000:{hex:0102}}")
	b, _ = tm.Expand(&Env{})
	if !bytes.Equal(b, bytes.Repeat([]byte{1, 2}, 1000000)) {
		t.Error("repeat is wrong")
	}
}

func BenchmarkExpandRandom64MiB(b *testing.B) {
	tm, _ := ParseTemplate(Pos{}, "{gen:random:64MiB}")
	b.SetBytes(64 << 20)
	for b.Loop() {
		if _, err := tm.Expand(&Env{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTemplateEqual(t *testing.T) {
	env := &Env{KeyPrefix: "rc:{abcd1234}:", Captures: map[string][]byte{"c": []byte("xy")}}
	for _, src := range []string{
		"", "plain", "{key}:{cap:c}", "$1048576\r\n{gen:random:1MiB}\r\n", "{gen:random:100003:9}",
		"<{gen:repeat:1000:ab{cap:c}}>", "{len:{gen:random:1MiB}}{xxh3:abc}{add:1:41}{id}",
	} {
		tmpl, err := ParseTemplate(Pos{}, src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tmpl.Expand(env)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := tmpl.Equal(env, want); !ok || err != nil {
			t.Errorf("%.40q: Equal(own expansion) = %v, %v", src, ok, err)
		}
		for _, i := range []int{0, len(want) / 2, len(want) - 1} {
			if len(want) == 0 {
				break
			}
			bad := append([]byte(nil), want...)
			bad[i] ^= 1
			if ok, _ := tmpl.Equal(env, bad); ok {
				t.Errorf("%.40q: Equal ignores a change at byte %d", src, i)
			}
		}
		if ok, _ := tmpl.Equal(env, append(want, 'x')); ok {
			t.Errorf("%.40q: Equal ignores an extra byte", src)
		}
	}
}

func TestTemplateWriteTo(t *testing.T) {
	env := &Env{KeyPrefix: "rc:{abcd1234}:", Captures: map[string][]byte{"c": []byte("xy")}}
	for _, src := range []string{"", "{key}:{cap:c}", "<{gen:random:100003:9}>", "{gen:repeat:3:a{cap:c}}{len:abc}"} {
		tmpl, err := ParseTemplate(Pos{}, src)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tmpl.Expand(env)
		var buf bytes.Buffer
		n, err := tmpl.WriteTo(env, &buf)
		if err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%q: WriteTo wrote %d bytes (%v), differing from Expand", src, n, err)
		}
	}
}

// TestQuoteBytes: what QuoteBytes writes, read as YAML and parsed as a
// template, expands to the bytes it was given (every byte value, braces,
// quotes, CR LF), and is a literal template.
func TestQuoteBytes(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, b := range [][]byte{all, []byte("+OK\r\n"), []byte(`{"a":"{key}"}` + "\r\n"), []byte("caf\xc3\xa9 \xff\x00"), nil} {
		q := QuoteBytes(b)
		var s string
		if err := yaml.Unmarshal([]byte("x: "+q), &struct {
			X *string `yaml:"x"`
		}{&s}); err != nil {
			t.Fatalf("%q: not YAML: %v", q, err)
		}
		tm, err := ParseTemplate(Pos{"t.yaml", 1, 1}, s)
		if err != nil {
			t.Fatalf("%q: not a template: %v", q, err)
		}
		got, ok := tm.Literal()
		if !ok || got != string(b) {
			t.Errorf("QuoteBytes(%q) = %s expands to %q (literal %v)", b, q, got, ok)
		}
	}
}
