package golden

import "testing"

// TestDirBuild: a directory names its build as --server does, the
// embedded emulator without a version, and nothing when no file says.
func TestDirBuild(t *testing.T) {
	for _, c := range []struct {
		s    Server
		want string
	}{{Server{Family: "redis", Version: "8.6.3"}, "redis-8.6.3"}, {Server{Family: "miniredis", Version: "2.35.0"}, "miniredis"}, {Server{}, ""}} {
		if got := (&Dir{Server: c.s}).Build(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
