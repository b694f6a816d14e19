package servers

import (
	"os"
	"strings"
	"testing"
)

// InCI reports whether the CI environment variable is set to something
// other than "", "0", "false" or "no": tests then fail where a build or a
// client is missing instead of skipping.
func InCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false", "no":
		return false
	}
	return true
}

// requireBuild finds the named build; when it is missing the test fails
// loudly under CI and is skipped otherwise, naming the install command.
func requireBuild(t testing.TB, name string) Build {
	t.Helper()
	b, err := Find(name)
	if err == nil {
		return b
	}
	if InCI() {
		t.Fatalf("CI is set and a required server build is missing: %v", err)
	}
	t.Skipf("skipped: %v", err)
	return Build{}
}

// ForTest starts the named build (one of Pinned, such as "redis-8.6.3") for
// a test and stops it in t.Cleanup. When the build is not installed the
// test fails if the CI environment variable is set, and is skipped
// otherwise; either way the message names the install command.
func ForTest(t testing.TB, name string) *Server {
	t.Helper()
	return ForTestWith(t, name, Options{})
}

// ForTestWith is ForTest with start options, e.g. ExtraArgs for a password
// or a TLS port.
func ForTestWith(t testing.TB, name string, opt Options) *Server {
	t.Helper()
	b := requireBuild(t, name)
	s, err := Start(t.Context(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}
