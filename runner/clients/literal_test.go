package clients

import (
	"context"
	"regexp"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestLiteralKeysAreNamespaced runs cases that name keys literally
// through two Go libraries at once, on a server holding the user's own
// foo: each session's keys are moved into its case's namespace (the
// user's foo keeps its value, nothing is left behind, and the sessions of
// two libraries running one case at the same time never collide: every
// step is judged, none a finding); a literal_keys case writes its name as
// written and the name is deleted after the case.
func TestLiteralKeysAreNamespaced(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx := context.Background()
	user, err := target.Config{Addr: srv.Addr()}.Dial(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	user.Do("SET", "foo", "theirs")
	f, err := cases.Load("literal.yaml", []byte(`suite: literal
cases:
  - name: literal names
    steps:
      - {send: [SET, foo, bar], reply: "+OK\r\n"}
      - {send: [GET, foo], reply: "$3\r\nbar\r\n"}
      - {send: [MSET, a, "1", b, "2"], reply: "+OK\r\n"}
      - {send: [RPUSH, list, x], reply: ":1\r\n"}
      - {send: [LMPOP, "2", nolist, list, LEFT], value: {array: [list, {array: [x]}]}}
      - {send: [KEYS, "*"], value: {array_unordered: [a, b, foo]}}
      - {send: [EXISTS, foo, a, b], reply: ":3\r\n"}
  - name: names as written
    literal_keys: true
    steps:
      - {send: [SET, "respcheck-literal-{id}", v], reply: "+OK\r\n"}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver, redigoDriver}, Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict == Skip || res.Verdict.Finding() {
			t.Errorf("%s %s: %s %q", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
		for _, sv := range res.Steps {
			if sv.Verdict.Finding() || sv.Verdict == Skip {
				t.Errorf("%s %s: %s %s: %v %v", res.Client, res.Case.Name, resp.EscapeCommand(sv.Args), sv.Verdict, sv.Native, sv.Notes)
			}
		}
	}
	if v, _ := user.Do("GET", "foo"); string(v.Str) != "theirs" {
		t.Errorf("the user's foo is %q now", v.Str)
	}
	if v, _ := user.Do("DBSIZE"); v.Int != 1 {
		keys, _ := user.Do("KEYS", "*")
		t.Errorf("DBSIZE %d after the run: %q", v.Int, keys.Raw)
	}
	// On a server respcheck did not start, a literal_keys case's names
	// stay as the case left them (as run leaves them).
	rep, err = Run(ctx, []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver}, Jobs: 4, Existing: true, Run: regexp.MustCompile("names as written")})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := user.Do("KEYS", "respcheck-literal-*"); len(v.Elems) != len(rep.Results) || len(rep.Results) == 0 {
		t.Errorf("an existing server keeps %d literal_keys names after %d results, want one each", len(v.Elems), len(rep.Results))
	}
}
