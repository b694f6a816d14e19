package clients

import (
	"os"
	"path/filepath"
	"strings"
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

// TestStaleAdapters: from a checkout without its Node modules the cache's
// copy runs; when that copy differs from the checkout's adapters (a
// checkout updated since scripts/install-clients.sh copied them), a note
// names the files; an identical copy, or a run outside a checkout, gets
// none.
func TestStaleAdapters(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RESPCHECK_CACHE", cache)
	t.Setenv("RESPCHECK_ADAPTERS", "")
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cached := filepath.Join(cache, "clients", "adapters")
	checkout := t.TempDir()
	for _, f := range []string{"node/adapter.js", "python/adapter.py"} {
		write(filepath.Join(cached, f), "v1")
		write(filepath.Join(checkout, "adapters", f), "v1")
	}
	write(filepath.Join(cached, "node", "node_modules", "x.js"), "cached module")
	t.Chdir(checkout)
	dir := adaptersDir("")
	if dir != cached {
		t.Fatalf("adaptersDir %s, want the cache's copy %s", dir, cached)
	}
	if n := staleAdapters(dir); n != "" {
		t.Errorf("identical copies: note %q", n)
	}
	write(filepath.Join(checkout, "adapters", "python", "adapter.py"), "v2")
	if n := staleAdapters(dir); !strings.Contains(n, "python/adapter.py") || strings.Contains(n, "node/adapter.js") || !strings.Contains(n, "scripts/install-clients.sh") {
		t.Errorf("a changed python adapter: note %q", n)
	}
	t.Chdir(t.TempDir())
	if n := staleAdapters(adaptersDir("")); n != "" {
		t.Errorf("outside a checkout: note %q", n)
	}
}
