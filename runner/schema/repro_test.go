package schema

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestSchemaRepros runs each reply-schema repro of testdata/schema/repro
// (see its README) against a server of each build its run: lines name,
// with that build's CLI and installed schemas, and matches its expect:
// regexp.
func TestSchemaRepros(t *testing.T) {
	repros, err := Repros("../../testdata/schema/repro")
	if err != nil || len(repros) == 0 {
		t.Fatalf("no repros in testdata/schema/repro: %v", err)
	}
	for _, r := range repros {
		p, builds := r.Path, r.Builds
		if len(builds) == 0 || r.Expect == "" || r.Shows == "" || r.Finds == "" {
			t.Errorf("%s: header without repro:, finds:, run: or expect:", p)
			continue
		}
		expect := regexp.MustCompile(r.Expect)
		for _, build := range builds {
			t.Run(filepath.Base(p)+"/"+build, func(t *testing.T) {
				srv := servers.ForTest(t, build)
				ForTest(t, build)
				cli := filepath.Join(filepath.Dir(srv.Build().Bin), strings.SplitN(build, "-", 2)[0]+"-cli")
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
				out, err := exec.CommandContext(ctx, "sh", p, srv.Addr(), cli, Dir(build)).CombinedOutput()
				cancel()
				if err != nil || !expect.Match(out) {
					t.Errorf("%v; output does not match %q:\n%s", err, expect, out)
				}
			})
		}
	}
}
