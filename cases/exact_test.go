package cases

import (
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestExactValueMatchesOnlyItsFrame: the typed value exactValue writes for
// a frame of each RESP3 type (nested, with an attribute) matches that
// frame and none of the others; a streamed frame is not written.
func TestExactValueMatchesOnlyItsFrame(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	frames := []string{
		"+OK\r\n", "$2\r\nOK\r\n", "-ERR x y\r\n", "!5\r\nERR x\r\n", ":5\r\n", ":-5\r\n", ",1.5\r\n", ",inf\r\n",
		"#t\r\n", "#f\r\n", "(12345678901234567890\r\n", "=7\r\ntxt:a b\r\n", "=7\r\nmkd:a b\r\n", "$-1\r\n", "*-1\r\n", "_\r\n",
		"$4\r\na\r\nb\r\n", "$0\r\n\r\n", "*0\r\n", "~0\r\n", "%0\r\n",
		"*2\r\n$1\r\na\r\n:1\r\n", "*2\r\n:1\r\n$1\r\na\r\n", "~2\r\n$1\r\na\r\n:1\r\n", ">2\r\n$1\r\na\r\n:1\r\n",
		"%1\r\n$1\r\nk\r\n*1\r\n_\r\n", "%1\r\n+k\r\n*1\r\n_\r\n", "|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n", "|1\r\n+ttl\r\n:4\r\n$1\r\nv\r\n", "$1\r\nv\r\n",
		"*3\r\n*1\r\n~1\r\n#t\r\n%1\r\n$1\r\nf\r\n,2\r\n$3\r\n{x}\r\n",
	}
	exps := make([]*Expect, len(frames))
	for i, f := range frames {
		_, v, err := resp.Parse([]byte(f))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := exactValue(v, QuoteBytes)
		if !ok {
			t.Fatalf("%q not written", f)
		}
		exps[i] = loadExpect(t, "value: "+s)
	}
	for i, e := range exps {
		for j, f := range frames {
			v, err := resp.ParseExact([]byte(f))
			if err != nil {
				t.Fatal(err)
			}
			m, err := e.Match(v, env)
			if err != nil {
				t.Fatal(err)
			}
			if (m == nil) != (i == j) {
				t.Errorf("the value written for %q on %q: mismatch %v", frames[i], f, m)
			}
		}
	}
	if _, v, _ := resp.Parse([]byte("$?\r\n;1\r\na\r\n;0\r\n")); v.Kind != resp.BlobString {
		t.Fatal("no streamed blob string")
	} else if s, ok := exactValue(v, QuoteBytes); ok {
		t.Errorf("a streamed blob string written %s", s)
	}
}

// TestArrayValue: an EXEC's reply is written element by element, each as
// its rule says; anything else keeps its bytes.
func TestArrayValue(t *testing.T) {
	reply := "*4\r\n+OK\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n:7\r\n"
	rules := []ElementRule{Exact, InAnyOrder, Given, AnyValue}
	s, ok := ArrayValue([]byte(reply), func(i int, _ resp.Value) (ElementRule, string) {
		return rules[i], `{array: [{blob: "b"}, {type: blob string}]}`
	}, QuoteBytes)
	if want := `{array: [{simple: "OK"}, {array_unordered: [{blob: "b"}, {blob: "a"}]}, {array: [{blob: "b"}, {type: blob string}]}, {any: true}]}`; !ok || s != want {
		t.Fatalf("%s %v, want %s", s, ok, want)
	}
	e := loadExpect(t, "value: "+s)
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	for _, tc := range []struct {
		reply string
		match bool
	}{
		{reply, true},
		{"*4\r\n+OK\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n$1\r\nx\r\n", true},
		{"*4\r\n+OK\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n:7\r\n", false},
		{"*4\r\n+OK\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n*2\r\n$1\r\nb\r\n$1\r\nz\r\n:7\r\n", true},
		{"*4\r\n+OK\r\n*2\r\n$1\r\nb\r\n$1\r\nc\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n:7\r\n", false},
		{"*3\r\n+OK\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n", false},
	} {
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		if m, err := e.Match(v, env); err != nil || (m == nil) != tc.match {
			t.Errorf("%q: mismatch %v %v, want a match %v", tc.reply, m, err, tc.match)
		}
	}
	for _, b := range []string{"+OK\r\n", "*1\r\n*1\r\n*0\r\n", "*-1\r\n"} {
		if s, ok := ArrayValue([]byte(b), func(int, resp.Value) (ElementRule, string) { return InAnyOrder, "" }, QuoteBytes); ok {
			t.Errorf("%q written %s", b, s)
		}
	}
}
