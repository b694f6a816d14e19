package resp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// gen builds a random valid Value of any kind (per-kind generators below).
type gen struct{ r *rand.Rand }

func (g gen) bytes(max int) []byte {
	b := make([]byte, g.r.IntN(max+1))
	for i := range b {
		if g.r.IntN(4) == 0 {
			b[i] = byte(g.r.IntN(256)) // binary, invalid UTF-8 included
		} else {
			b[i] = byte('a' + g.r.IntN(26))
		}
	}
	return b
}

func (g gen) line(max int) []byte { // no \r or \n
	b := g.bytes(max)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return b
}

func (g gen) value(depth int) resp.Value {
	kinds := []resp.Kind{resp.SimpleString, resp.SimpleError, resp.Integer, resp.BlobString, resp.NilBlobString, resp.NilArray, resp.Null, resp.Double, resp.Boolean, resp.BlobError, resp.VerbatimString, resp.BigNumber}
	if depth < 4 {
		kinds = append(kinds, resp.Array, resp.Map, resp.Set, resp.Push, resp.Array, resp.Map)
	}
	v := resp.Value{Kind: kinds[g.r.IntN(len(kinds))]}
	switch v.Kind {
	case resp.SimpleString, resp.SimpleError:
		v.Str = g.line(20)
	case resp.Integer:
		v.Int = g.r.Int64() >> g.r.IntN(64)
		if g.r.IntN(2) == 0 {
			v.Int = -v.Int
		}
		v.Str = strconv.AppendInt(nil, v.Int, 10)
	case resp.BlobString:
		v.Str = g.bytes(30)
		v.Streamed = g.r.IntN(8) == 0
	case resp.BlobError:
		v.Str = g.bytes(30)
	case resp.VerbatimString:
		copy(v.Format[:], []string{"txt", "mkd", "a:b"}[g.r.IntN(3)])
		v.Str = g.bytes(30)
	case resp.Double:
		texts := []string{"inf", "-inf", "nan", "-nan", "0", "1.5", "-2.25e-10", "1e300", "3.141592653589793"}
		s := texts[g.r.IntN(len(texts))]
		if g.r.IntN(2) == 0 {
			s = strconv.FormatFloat(g.r.NormFloat64()*1e6, 'g', -1, 64)
		}
		v.Str = []byte(s)
		v.Float, _ = strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64)
	case resp.Boolean:
		v.Bool = g.r.IntN(2) == 0
		v.Str = []byte(map[bool]string{true: "t", false: "f"}[v.Bool])
	case resp.BigNumber:
		v.Str = []byte(strconv.Itoa(g.r.IntN(1e9)) + "1234567890123456789012345")
	case resp.Array, resp.Set, resp.Push, resp.Map:
		n := g.r.IntN(5)
		if v.Kind == resp.Map {
			n *= 2
		}
		for range n {
			v.Elems = append(v.Elems, g.value(depth+1))
		}
		v.Streamed = g.r.IntN(6) == 0
	}
	if g.r.IntN(10) == 0 && depth < 4 {
		a := resp.Value{Kind: resp.Attribute}
		for range g.r.IntN(2) + 1 {
			a.Elems = append(a.Elems, resp.Value{Kind: resp.SimpleString, Str: g.line(8)}, g.value(depth+1))
		}
		v.Attr = &a
	}
	return v
}

func TestRoundTripProperty(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		g := gen{rand.New(rand.NewPCG(seed, 42))}
		for i := range 2000 {
			v := g.value(1)
			enc := resp.Append(nil, v)
			n, got, err := resp.Parse(enc)
			if err != nil || n != len(enc) {
				t.Fatalf("seed %d #%d: Parse(%s) = %d, %v", seed, i, resp.Escape(enc), n, err)
			}
			if !bytes.Equal(got.Raw, enc) || !resp.Equal(got, v) {
				t.Fatalf("seed %d #%d: mismatch for %s", seed, i, resp.Escape(enc))
			}
			if re := resp.Append(nil, got); !bytes.Equal(re, enc) {
				t.Fatalf("seed %d #%d: re-encode %s != %s", seed, i, resp.Escape(re), resp.Escape(enc))
			}
			// JSON round trip.
			js, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back resp.Value
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatalf("seed %d #%d: unmarshal %s: %v", seed, i, js, err)
			}
			if !resp.Equal(back, got) || !bytes.Equal(resp.Append(nil, back), enc) {
				t.Fatalf("seed %d #%d: JSON round trip changed %s", seed, i, js)
			}
			js2, _ := json.Marshal(back)
			if !bytes.Equal(js, js2) {
				t.Fatalf("JSON not canonical:\n%s\n%s", js, js2)
			}
			c := got.Clone()
			if !resp.Equal(c, got) || !bytes.Equal(c.Raw, got.Raw) {
				t.Fatalf("clone differs")
			}
		}
	}
}

func TestJSONShapes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"+OK\r\n", `{"type":"simple string","text":"OK"}`},
		{":-5\r\n", `{"type":"integer","text":"-5"}`},
		{",-nan\r\n", `{"type":"double","text":"-nan"}`},
		{"$2\r\n\xff\x00\r\n", `{"type":"blob string","base64":"/wA="}`},
		{"$-1\r\n", `{"type":"nil blob string"}`},
		{"*-1\r\n", `{"type":"nil array"}`},
		{"_\r\n", `{"type":"null"}`},
		{"#t\r\n", `{"type":"boolean","bool":true}`},
		{"=7\r\ntxt:a\"b\r\n", `{"type":"verbatim string","format":"txt","text":"a\"b"}`},
		{"*0\r\n", `{"type":"array","elems":[]}`},
		{"%1\r\n+k\r\n:1\r\n", `{"type":"map","pairs":[[{"type":"simple string","text":"k"},{"type":"integer","text":"1"}]]}`},
		{"|1\r\n+a\r\n+b\r\n*?\r\n.\r\n", `{"type":"array","elems":[],"streamed":true,"attr":{"type":"attribute","pairs":[[{"type":"simple string","text":"a"},{"type":"simple string","text":"b"}]]}}`},
	}
	for _, c := range cases {
		_, v, err := resp.Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := mustJSON(t, v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", resp.Escape([]byte(c.in)), got, c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	p := func(s string) resp.Value { _, v, _ := resp.Parse([]byte(s)); return v }
	if !resp.Equal(p(",nan\r\n"), p(",nan\r\n")) || resp.Equal(p(",nan\r\n"), p(",-nan\r\n")) || resp.Equal(p(",1\r\n"), p(",1.0\r\n")) {
		t.Error("double equality by text")
	}
	if resp.Equal(p("$-1\r\n"), p("_\r\n")) || resp.Equal(p("*-1\r\n"), p("$-1\r\n")) {
		t.Error("nil kinds must differ")
	}
	if !resp.Equal(p("$?\r\n;1\r\na\r\n;0\r\n"), p("$1\r\na\r\n")) {
		t.Error("Streamed is ignored")
	}
	if resp.Equal(p("|0\r\n+a\r\n"), p("+a\r\n")) {
		t.Error("attributes compared")
	}
	if !resp.Equal(p(":5\r\n"), resp.Value{Kind: resp.Integer, Int: 5}) || !resp.Equal(p(",inf\r\n"), resp.Value{Kind: resp.Double, Float: math.Inf(1)}) {
		t.Error("canonical text stands in for missing Str")
	}
}

func TestEscape(t *testing.T) {
	cases := map[string]string{
		"$8\r\noriginal\r\n": `"$8\r\noriginal\r\n"`,
		"a\"b\\c\td":         `"a\"b\\c\td"`,
		"\x00\x7f\xc3\xa9":   `"\x00\x7f\xc3\xa9"`,
		"":                   `""`,
	}
	for in, want := range cases {
		if got := resp.Escape([]byte(in)); got != want {
			t.Errorf("Escape(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCLI(t *testing.T) {
	cases := []struct{ in, want string }{
		{"+OK\r\n", "OK"},
		{"-ERR x\r\n", "(error) ERR x"},
		{"!3\r\nERR\r\n", "(error) ERR"},
		{":1\r\n", "(integer) 1"},
		{"$8\r\noriginal\r\n", `"original"`},
		{"$3\r\na\x07\xff\r\n", `"a\a\xff"`},
		{"$-1\r\n", "(nil)"},
		{"*-1\r\n", "(nil)"},
		{"_\r\n", "(nil)"},
		{"*0\r\n", "(empty array)"},
		{"%0\r\n", "(empty hash)"},
		{"~0\r\n", "(empty set)"},
		{">0\r\n", "(empty push)"},
		{",1.5\r\n", "(double) 1.5"},
		{"#t\r\n", "(true)"},
		{"#f\r\n", "(false)"},
		{"=15\r\ntxt:Some string\r\n", "Some string"},
		{"(123\r\n", "(big number) 123"},
		{"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "1) \"a\"\n2) \"b\""},
		{"*2\r\n*2\r\n:1\r\n:2\r\n+x\r\n", "1) 1) (integer) 1\n   2) (integer) 2\n2) x"},
		{"%1\r\n$1\r\nf\r\n$1\r\nv\r\n", `1# "f" => "v"`},
		{"%1\r\n+k\r\n*2\r\n:1\r\n:2\r\n", "1# k => \n   1) (integer) 1\n   2) (integer) 2"},
		{"%1\r\n+k\r\n*1\r\n:1\r\n", "1# k => 1) (integer) 1"},
		{"+a\x00b\r\n", "a"},
		{"~1\r\n$1\r\nm\r\n", `1~ "m"`},
		{">2\r\n+message\r\n+x\r\n", "1) message\n2) x"},
		{"*10\r\n" + strings.Repeat(":0\r\n", 10), " 1) (integer) 0\n 2) (integer) 0\n 3) (integer) 0\n 4) (integer) 0\n 5) (integer) 0\n 6) (integer) 0\n 7) (integer) 0\n 8) (integer) 0\n 9) (integer) 0\n10) (integer) 0"},
		{"|1\r\n+key-popularity\r\n:1\r\n+OK\r\n", "|1) key-popularity => (integer) 1\nOK"},
	}
	for _, c := range cases {
		_, v, err := resp.Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.CLI(); got != c.want {
			t.Errorf("CLI(%s):\n got %q\nwant %q", resp.Escape([]byte(c.in)), got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.WriteCommand([]byte("SET"), []byte("k"), []byte("a\r\nb"))
	w.WriteRaw([]byte("PING\r\n"))
	w.WriteValue(resp.Value{Kind: resp.Integer, Int: 3})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\nPING\r\n:3\r\n"
	if buf.String() != want {
		t.Fatalf("got %s", resp.Escape(buf.Bytes()))
	}
	if got := string(resp.AppendCommandString(nil, "GET", "")); got != "*2\r\n$3\r\nGET\r\n$0\r\n\r\n" {
		t.Fatalf("AppendCommandString = %q", got)
	}
}

// TestCLIOutput checks the exact bytes redis-cli prints in its standard and
// raw formats (as redis-cli 8.6.3 printed them for these replies).
func TestCLIOutput(t *testing.T) {
	cases := []struct{ in, standard, raw string }{
		{"+OK\r\n", "OK\n", "OK\n"},
		{"-ERR x\r\n", "(error) ERR x\n", "ERR x\n\n"},
		{":-7\r\n", "(integer) -7\n", "-7\n"},
		{"$3\r\na\nb\r\n", "\"a\\nb\"\n", "a\nb\n"},
		{"$-1\r\n", "(nil)\n", "\n"},
		{"_\r\n", "(nil)\n", "\n"},
		{",3.141\r\n", "(double) 3.141\n", "3.141\n"},
		{"#f\r\n", "(false)\n", "(false)\n"},
		{"=22\r\ntxt:This is a verbatim\r\n", "This is a verbatim\n", "This is a verbatim\n"},
		{"*0\r\n", "(empty array)\n", "\n"},
		{"%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n", "1# (integer) 0 => (false)\n2# (integer) 1 => (true)\n3# (integer) 2 => (false)\n", "0 (false)\n1 (true)\n2 (false)\n"},
		{"~2\r\n:0\r\n:1\r\n", "1~ (integer) 0\n2~ (integer) 1\n", "0\n1\n"},
		{"*2\r\n*2\r\n:1\r\n:2\r\n-E\r\n", "1) 1) (integer) 1\n   2) (integer) 2\n2) (error) E\n", "1\n2\nE\n\n"},
	}
	for _, c := range cases {
		_, v, err := resp.Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			mode resp.CLIMode
			want string
		}{{resp.CLIStandard, c.standard}, {resp.CLIRaw, c.raw}, {resp.CLIVerbatim, strings.TrimSuffix(c.raw, "\n")}} {
			got, err := v.CLIOutput(m.mode)
			if err != nil || string(got) != m.want {
				t.Errorf("CLIOutput(%s, %d) = %q, %v; want %q", resp.Escape([]byte(c.in)), m.mode, got, err, m.want)
			}
		}
	}
	for _, in := range []string{"(123\r\n", "*1\r\n(1\r\n", "|1\r\n+a\r\n+b\r\n+OK\r\n"} {
		_, v, _ := resp.Parse([]byte(in))
		var ue *resp.CLIUnprintableError
		if _, err := v.CLIOutput(resp.CLIRaw); !errors.As(err, &ue) {
			t.Errorf("CLIOutput(%s): %v, want a CLIUnprintableError", resp.Escape([]byte(in)), err)
		}
	}
}

// TestEscapeCommand: arguments escaped and spaced; one over 64 bytes shows
// its first 48 and its size, one of 64 is whole.
func TestEscapeCommand(t *testing.T) {
	long := bytes.Repeat([]byte("é"), 40) // 80 bytes
	got := resp.EscapeCommand([][]byte{[]byte("SET"), []byte("k\r"), long, bytes.Repeat([]byte("x"), 64)})
	want := `"SET" "k\r" "` + strings.Repeat(`\xc3\xa9`, 24) + `"…(80 bytes) "` + strings.Repeat("x", 64) + `"`
	if got != want {
		t.Errorf("EscapeCommand:\n got %s\nwant %s", got, want)
	}
	if got := resp.EscapeCommand(nil); got != "" {
		t.Errorf("no arguments: %q", got)
	}
}
