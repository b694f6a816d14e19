package schema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/respcheck/respcheck/runner/servers"
)

// ForTest loads build's installed reply schemas for a test. When they are
// not installed the test fails if the CI environment variable is set
// (scripts/setup installs them there) and is skipped otherwise; either
// way the message names scripts/install-schemas.sh.
func ForTest(t servers.TB, build string) *Set {
	t.Helper()
	s, err := Load(Dir(build))
	switch {
	case errors.Is(err, errNotInstalled) && servers.InCI():
		t.Fatalf("CI is set and %v", err)
	case errors.Is(err, errNotInstalled):
		t.Skipf("skipped: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	return s
}

// Repro is the header of one reply-schema reproduction of
// testdata/schema/repro (its README): a shell script run with the build's
// CLI.
type Repro struct {
	// Path is the script's path.
	Path string
	// Shows is its repro: line (what it shows and whose bug it is), Finds
	// its finds: line, the finding as "CMD file.json#/schema/path"
	// ("OBJECT REFCOUNT object-refcount.json#/type").
	Shows, Finds string
	// Builds are the builds of its run: cli-BUILD lines.
	Builds []string
	// Expect is its expect: regexp, "" when it has none.
	Expect string
}

// Repros reads the headers of the reproductions *.sh of dir (lib.sh, the
// shared part, is not one), sorted by path.
func Repros(dir string) ([]Repro, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil {
		return nil, err
	}
	var out []Repro
	for _, p := range paths {
		if filepath.Base(p) == "lib.sh" {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		r := Repro{Path: p}
		for _, line := range strings.Split(string(src), "\n") {
			key, val, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": ")
			switch {
			case !ok || !strings.HasPrefix(line, "# "):
			case key == "repro":
				r.Shows = val
			case key == "finds":
				r.Finds = val
			case key == "run":
				r.Builds = append(r.Builds, strings.TrimPrefix(val, "cli-"))
			case key == "expect":
				r.Expect = val
			}
		}
		out = append(out, r)
	}
	return out, nil
}
