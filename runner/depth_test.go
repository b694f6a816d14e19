package runner_test

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestDeepestReplies: the deepest replies the newest pinned builds send
// (testdata/depth/nesting.yaml: 7,995 to 7,997 levels, measured) load from
// a case file and pass byte for byte under the default limits, in both
// protocols.
func TestDeepestReplies(t *testing.T) {
	f, err := cases.LoadFile("../testdata/depth/nesting.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			rep := run(t, servers.ForTest(t, build).Addr(), []*cases.File{f}, runner.Options{})
			for _, r := range rep.Results {
				if r.Status != runner.Pass {
					t.Errorf("%s [RESP%d]: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
				}
			}
			if rep.Summary.Passed != 6 {
				t.Errorf("%d passed, want 6: %+v", rep.Summary.Passed, rep.Summary)
			}
		})
	}
}

// TestOverMaxDepthIsNotMalformed: a valid reply nested deeper than the
// reader's limit is an error of its step that names the limit and the flag
// that raises it, not the server's malformed RESP (exit 3).
func TestOverMaxDepthIsNotMalformed(t *testing.T) {
	rep := runInline(t, "redis-8.6.3", `suite: deep
cases:
  - name: deeper than the limit
    steps:
      - send: [EVAL, "local t={1} for i=1,200 do t={ t } end return t", "0"]
        any: true
`, runner.Options{Protos: []int{2}, Limits: resp.Limits{MaxDepth: 100}})
	res := result(t, rep, "deeper than the limit", 2)
	if res.Status != runner.Error || res.Malformed || !strings.Contains(res.Reason, "depth over 100") ||
		!strings.Contains(res.Reason, "--max-depth raises the limit") {
		t.Errorf("status %s, malformed %v, reason %q", res.Status, res.Malformed, res.Reason)
	}
	if err := rep.Fault(); err != nil {
		t.Errorf("fault: %v", err)
	}
}
