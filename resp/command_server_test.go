package resp_test

import (
	"bytes"
	"net"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestSplitInlineLikeServer: ReadCommand splits each inline line into
// the arguments redis-8.6.3 reads from it, as RPUSH of the line's words
// then LRANGE shows (a vertical tab or form feed inside a word, quotes
// starting inside a word, \xHH and \n escapes, \' in single quotes, a
// line ending in CR).
func TestSplitInlineLikeServer(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	nc, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := resp.NewReader(nc)
	for i, words := range []string{
		"a\vb c",
		"a\fb\tc  d",
		`x"b c" d`,
		`"\x41\x4g\n" 'it\'s' "q\"q"`,
		"w1 w2\r",
		`back\slash "tab\there"`,
	} {
		line := "RPUSH l" + string(rune('0'+i)) + " " + words
		if _, err := nc.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		if v, err := r.Read(); err != nil || v.Kind != resp.Integer {
			t.Fatalf("%q: %v %q", line, err, v.Raw)
		}
		if _, err := nc.Write(resp.AppendCommand(nil, []byte("LRANGE"), []byte("l"+string(rune('0'+i))), []byte("0"), []byte("-1"))); err != nil {
			t.Fatal(err)
		}
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		words, _, err := resp.ReadCommand([]byte(line + "\n"))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got := words[2:]
		if len(got) != len(v.Elems) {
			t.Errorf("%q: split into %q, the server read %d words (%q)", line, got, len(v.Elems), v.Raw)
			continue
		}
		for j, e := range v.Elems {
			if !bytes.Equal(got[j], e.Str) {
				t.Errorf("%q: word %d is %q, the server read %q", line, j, got[j], e.Str)
			}
		}
	}
}
