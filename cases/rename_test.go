package cases

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestRenameFrame renames the strings of a frame, at any depth, and
// re-encodes it with the new lengths; other bytes are returned as they are.
func TestRenameFrame(t *testing.T) {
	names := map[string]string{"foo": "rc:{01234567}:foo", "q": "rc:{01234567}:q"}
	for _, tc := range []struct{ in, want string }{
		{"$3\r\nfoo\r\n", "$17\r\nrc:{01234567}:foo\r\n"},
		{"*2\r\n$1\r\nq\r\n$3\r\njob\r\n", "*2\r\n$15\r\nrc:{01234567}:q\r\n$3\r\njob\r\n"},
		{"%1\r\n$3\r\nfoo\r\n*1\r\n+q\r\n", "%1\r\n$17\r\nrc:{01234567}:foo\r\n*1\r\n+rc:{01234567}:q\r\n"},
		{"|1\r\n+foo\r\n:1\r\n=7\r\ntxt:foo\r\n", "|1\r\n+rc:{01234567}:foo\r\n:1\r\n=21\r\ntxt:rc:{01234567}:foo\r\n"},
		{"$4\r\nfoo!\r\n", "$4\r\nfoo!\r\n"},           // not the whole text
		{"-ERR foo\r\n", "-ERR foo\r\n"},               // errors are not renamed
		{"$3\r\nfoo\r\n+x\r\n", "$3\r\nfoo\r\n+x\r\n"}, // not one frame
	} {
		if got := string(RenameFrame([]byte(tc.in), names)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMatchRenamed matches replies holding namespaced names against
// expectations that name the literal keys, when Env.Renamed has them.
func TestMatchRenamed(t *testing.T) {
	f, err := Load("t.yaml", []byte(`suite: t
cases:
  - name: c
    steps:
      - {send: [KEYS, "*"], reply: "*1\r\n$3\r\nfoo\r\n"}
      - {send: [KEYS, "*"], value: {array: [foo]}}
      - {send: [KEYS, "*"], value: {array: [{string: foo}]}}
      - {send: [KEYS, "*"], value: {array_unordered: [bar, foo]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	renamed := &Env{KeyPrefix: "rc:{01234567}:", Renamed: map[string]string{"foo": "rc:{01234567}:foo", "bar": "rc:{01234567}:bar"}}
	plain := &Env{KeyPrefix: "rc:{01234567}:"}
	replies := []string{"*1\r\n$17\r\nrc:{01234567}:foo\r\n", "*1\r\n$17\r\nrc:{01234567}:foo\r\n",
		"*1\r\n+rc:{01234567}:foo\r\n", "*2\r\n$17\r\nrc:{01234567}:foo\r\n$17\r\nrc:{01234567}:bar\r\n"}
	for i, st := range f.Cases[0].Steps {
		v, err := resp.ParseExact([]byte(replies[i]))
		if err != nil {
			t.Fatal(err)
		}
		exp := st.Expect[0].Expect
		if m, err := exp.Match(v, renamed); m != nil || err != nil {
			t.Errorf("step %d renamed: %+v %v", i, m, err)
		}
		if m, _ := exp.Match(v, plain); m == nil {
			t.Errorf("step %d matches without renaming", i)
		}
	}
}

// TestLiteralKeysLoad: literal_keys is a boolean, makes the case
// exclusive, and is refused beside exclusive: false and on a scenario.
func TestLiteralKeysLoad(t *testing.T) {
	f, err := Load("t.yaml", []byte("suite: t\ncases:\n  - name: c\n    literal_keys: true\n    steps: [{send: [GET, k]}]\n"))
	if err != nil || !f.Cases[0].LiteralKeys || !f.Cases[0].Exclusive {
		t.Fatalf("literal_keys: true: %v, LiteralKeys %v, Exclusive %v", err, f != nil && f.Cases[0].LiteralKeys, f != nil && f.Cases[0].Exclusive)
	}
	for _, tc := range []struct{ src, want string }{
		{"    literal_keys: yes please\n    steps: [{send: [GET, k]}]\n", "t.yaml:4:19: literal_keys must be true or false, not \"yes please\""},
		{"    literal_keys: true\n    exclusive: false\n    steps: [{send: [GET, k]}]\n", "t.yaml:5:5: a case with literal_keys: true runs alone (its keys are not namespaced): remove exclusive: false"},
		{"    literal_keys: true\n    scenario: {pattern: incr, iterations: 1}\n", "t.yaml:4:5: literal_keys does not apply to a scenario: its keys are always {key}"},
	} {
		_, err := Load("t.yaml", []byte("suite: t\ncases:\n  - name: c\n"+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s", tc.src, err, tc.want)
		}
	}
}
