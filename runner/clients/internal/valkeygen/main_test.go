package main

import (
	"os"
	"strings"
	"testing"
)

// renamed is runner/clients/rueidis.go renamed.
func renamed(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("../../rueidis.go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := rename(src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValkeyGoIsCurrent: runner/clients/valkeygo.go is rueidis.go renamed.
func TestValkeyGoIsCurrent(t *testing.T) {
	want := renamed(t)
	got, err := os.ReadFile("../../valkeygo.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("runner/clients/valkeygo.go is not rueidis.go renamed: edit rueidis.go, then go generate ./runner/clients")
	}
}

// TestRenameLeavesNoRueidis: nothing of rueidis's names is left in the
// output but the renamer's own header.
func TestRenameLeavesNoRueidis(t *testing.T) {
	body := strings.TrimPrefix(string(renamed(t)), header)
	for _, name := range []string{"rueidis", "Redis"} {
		if i := strings.Index(body, name); i >= 0 {
			t.Errorf("%q left at %q", name, body[max(0, i-40):min(len(body), i+40)])
		}
	}
}
