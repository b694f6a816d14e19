package schema

import (
	"errors"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// ForTest loads build's installed reply schemas for a test. When they are
// not installed the test fails if the CI environment variable is set
// (scripts/setup installs them there) and is skipped otherwise; either
// way the message names scripts/install-schemas.sh.
func ForTest(t testing.TB, build string) *Set {
	t.Helper()
	s, err := Load(Dir(build))
	switch {
	case errors.Is(err, ErrNotInstalled) && servers.InCI():
		t.Fatalf("CI is set and %v", err)
	case errors.Is(err, ErrNotInstalled):
		t.Skipf("skipped: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	return s
}
