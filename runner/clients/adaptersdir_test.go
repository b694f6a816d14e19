package clients

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAdaptersDirFromAnywhere: outside a checkout the adapters are the
// copy scripts/install-clients.sh keeps in the cache; a checkout whose Node
// modules are installed wins; $RESPCHECK_ADAPTERS wins over both.
func TestAdaptersDirFromAnywhere(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RESPCHECK_CACHE", cache)
	t.Setenv("RESPCHECK_ADAPTERS", "")
	mk := func(parts ...string) string {
		p := filepath.Join(parts...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cached := filepath.Join(cache, "clients", "adapters")
	mk(cached, "node", "adapter.js")
	elsewhere := t.TempDir()
	checkout := t.TempDir()
	mk(checkout, "adapters", "node", "adapter.js")
	for _, tc := range []struct {
		wd, want string
	}{
		{elsewhere, cached},
		{filepath.Join(checkout, "adapters"), cached}, // a checkout without its Node modules
	} {
		t.Chdir(tc.wd)
		if got := adaptersDir(""); got != tc.want {
			t.Errorf("from %s: %s, want %s", tc.wd, got, tc.want)
		}
	}
	if err := os.MkdirAll(filepath.Join(checkout, "adapters", "node", "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(checkout)
	if got := adaptersDir(""); got != filepath.Join(checkout, "adapters") {
		t.Errorf("from a checkout with its modules: %s", got)
	}
	t.Setenv("RESPCHECK_ADAPTERS", "/x")
	if got := adaptersDir(""); got != "/x" {
		t.Errorf("with $RESPCHECK_ADAPTERS: %s", got)
	}
}
