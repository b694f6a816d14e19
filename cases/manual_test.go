package cases

import (
	"flag"
	"os"
	"testing"
)

var updateCaseFormat = flag.Bool("update-case-format", false, "rewrite docs/case-format.md from cases/manual.md")

// TestCaseFormatDoc keeps docs/case-format.md the generated copy of
// cases/manual.md (-update-case-format rewrites it).
func TestCaseFormatDoc(t *testing.T) {
	const path = "../docs/case-format.md"
	want := CaseFormatDoc()
	if *updateCaseFormat {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("docs/case-format.md is stale; run: go test ./cases -run TestCaseFormatDoc -update-case-format (%v)", err)
	}
}
