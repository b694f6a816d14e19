package golden

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestLiteralKeysNormalised records a case that names its keys literally:
// the keys the runner moved into the case's namespace are recorded with the
// prefix normalised, in what was sent and in the replies that echo them,
// and a run with another run id compares equal.
func TestLiteralKeysNormalised(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("ported.yaml", []byte(`suite: ported
cases:
  - name: literal keys
    steps:
      - {send: [SET, foo, bar], reply: "+OK\r\n"}
      - {send: [KEYS, "*"], reply: "*1\r\n$3\r\nfoo\r\n"}
      - {send: [RPUSH, queue, job], reply: ":1\r\n"}
      - {send: [BLPOP, queue, "1"], value: {array: [queue, job]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	files := []*cases.File{f}
	d := record(t, srv.Addr(), files)
	text := string(d.Files["ported"].Marshal())
	for _, want := range []string{`$17\r\n` + Placeholder + `foo`, `$3\r\nSET\r\n$17\r\n` + Placeholder + `foo\r\n`, `$19\r\n` + Placeholder + `queue\r\n$3\r\njob`} {
		if !strings.Contains(text, want) {
			t.Errorf("the golden does not hold %s:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		// The prefix line records the case's own prefix, as for {key}.
		if !strings.HasPrefix(strings.TrimSpace(line), "prefix ") && strings.Count(line, "rc:{") != strings.Count(line, Placeholder) {
			t.Errorf("a key prefix is left unnormalised: %s", line)
		}
	}
	rep, c := check(t, srv.Addr(), files, d)
	if compared, _, differ := c.Counts(); rep.Summary.Failed != 0 || differ != 0 || compared == 0 {
		t.Errorf("another run id: summary %+v, %d compared, %d differ", rep.Summary, compared, differ)
	}
}
