package schema

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestSchemaRepros runs each reply-schema repro of testdata/schema/repro
// (see its README) against a server of each build its run: lines name,
// with that build's CLI and installed schemas, and matches its expect:
// regexp.
func TestSchemaRepros(t *testing.T) {
	dir := "../../testdata/schema/repro"
	paths, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no repros in %s: %v", dir, err)
	}
	for _, p := range paths {
		if filepath.Base(p) == "lib.sh" {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var builds []string
		var expect *regexp.Regexp
		for _, line := range strings.Split(string(src), "\n") {
			if b, ok := strings.CutPrefix(line, "# run: cli-"); ok {
				builds = append(builds, b)
			}
			if e, ok := strings.CutPrefix(line, "# expect: "); ok {
				expect = regexp.MustCompile(e)
			}
		}
		if len(builds) == 0 || expect == nil || !strings.Contains(string(src), "# repro: ") || !strings.Contains(string(src), "# finds: ") {
			t.Errorf("%s: header without repro:, finds:, run: or expect:", p)
			continue
		}
		for _, build := range builds {
			t.Run(filepath.Base(p)+"/"+build, func(t *testing.T) {
				srv := servers.ForTest(t, build)
				ForTest(t, build)
				cli := filepath.Join(filepath.Dir(srv.Build().Bin), strings.SplitN(build, "-", 2)[0]+"-cli")
				out, err := exec.Command("sh", p, srv.Addr(), cli, Dir(build)).CombinedOutput()
				if err != nil || !expect.Match(out) {
					t.Errorf("%v; output does not match %q:\n%s", err, expect, out)
				}
			})
		}
	}
}
