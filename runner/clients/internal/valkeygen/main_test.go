package main

import (
	"os"
	"strings"
	"testing"
)

// TestValkeyGoIsCurrent: runner/clients/valkeygo.go is rueidis.go renamed.
func TestValkeyGoIsCurrent(t *testing.T) {
	src, err := os.ReadFile("../../rueidis.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rename(src)
	if err != nil {
		t.Fatal(err)
	}
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
	src, err := os.ReadFile("../../rueidis.go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := rename(src)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimPrefix(string(out), header)
	for _, name := range []string{"rueidis", "Redis"} {
		if strings.Contains(body, name) {
			i := strings.Index(body, name)
			t.Errorf("%q left at %q", name, body[max(0, i-40):min(len(body), i+40)])
		}
	}
}
