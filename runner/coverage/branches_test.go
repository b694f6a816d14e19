package coverage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/schema"
)

// TestGoldenBranches counts the branches of the committed goldens of
// Redis 8.6.3 and Valkey 9.1.2 with their builds' installed schemas
// (skipped outside CI when they are not installed): GET's reply takes
// both of its schema's branches (a string and nil), every command's
// counts add up; and a build without schemas says which script installs
// them.
func TestGoldenBranches(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			schema.ForTest(t, build)
			d, err := golden.Load("../../testdata/golden/" + build)
			if err != nil {
				t.Fatal(err)
			}
			b := GoldenBranches(d)
			if b.Missing != "" || b.Build != build || len(b.Commands) < 50 || b.Produced == 0 || b.Produced >= b.Total {
				t.Fatalf("%s: %d of %d branches, %d commands, missing %q", b.Build, b.Produced, b.Total, len(b.Commands), b.Missing)
			}
			produced, total := 0, 0
			for _, c := range b.Commands {
				if c.Produced+len(c.Never) != c.Total || c.Total == 0 {
					t.Errorf("%s: %d produced + %d never of %d", c.Name, c.Produced, len(c.Never), c.Total)
				}
				if c.Name == "GET" && (c.Produced != 2 || c.Total != 2) {
					t.Errorf("GET: %+v, want both branches (string, nil) produced", c)
				}
				produced, total = produced+c.Produced, total+c.Total
			}
			if produced != b.Produced || total != b.Total {
				t.Errorf("totals %d of %d, commands add up to %d of %d", b.Produced, b.Total, produced, total)
			}
		})
	}
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("RESPCHECK_CACHE", t.TempDir())
		d, err := golden.Load("../../testdata/golden/redis-8.6.3")
		if err != nil {
			t.Fatal(err)
		}
		b := GoldenBranches(d)
		var out bytes.Buffer
		b.Write(&out, false)
		if b.Total != 0 || !strings.Contains(out.String(), "not counted") || !strings.Contains(out.String(), schema.Install) {
			t.Errorf("%+v\n%s", b, out.String())
		}
	})
}
