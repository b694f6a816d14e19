package servers

import (
	"regexp"
	"strings"
	"testing"
)

// TestPinnedFile: every line of pinned.tsv names a build as family-version
// and says how scripts/install-servers.sh installs it, with the columns
// that kind needs; one build per binary-package kind (the script's
// install_redis_apt and install_valkey_bpo install one each).
func TestPinnedFile(t *testing.T) {
	name := regexp.MustCompile(`^(redis|valkey)-\d+\.\d+\.\d+$`)
	kinds := map[string]int{}
	for _, line := range strings.Split(pinnedTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if !name.MatchString(f[0]) {
			t.Errorf("%q: name is not family-version", line)
		}
		kinds[f[1]]++
		switch f[1] {
		case "apt", "backports":
			if f[2] != "-" || f[3] != "-" {
				t.Errorf("%q: a binary-package build names no source package", line)
			}
		case "source":
			if f[2] == "-" || f[3] == "-" {
				t.Errorf("%q: a source build needs its package and version", line)
			}
		default:
			t.Errorf("%q: install %q is not apt, backports or source", line, f[1])
		}
	}
	if kinds["apt"] != 1 || kinds["backports"] != 1 {
		t.Errorf("kinds %v: want one apt build (redis) and one backports build (valkey)", kinds)
	}
	if len(Pinned) != kinds["apt"]+kinds["backports"]+kinds["source"] {
		t.Errorf("Pinned = %v", Pinned)
	}
}

// TestFromBinaryPackage: the builds from Debian's binary packages are
// told from the source builds (which have command files).
func TestFromBinaryPackage(t *testing.T) {
	for name, want := range map[string]bool{"redis-7.0.15": true, "valkey-8.0.1": true, "redis-8.6.3": false, "valkey-9.1.2": false, "redis-9.9.9": false} {
		if got := FromBinaryPackage(name); got != want {
			t.Errorf("FromBinaryPackage(%q) = %v, want %v", name, got, want)
		}
	}
}
