package cases

import "testing"

// TestCaseHash: a case's hash follows what it says, not how it is written,
// and editing one case leaves the others' hashes alone; the file's
// suite-level requires belong to every case.
func TestCaseHash(t *testing.T) {
	load := func(src string) *File {
		t.Helper()
		f, err := Load("h.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := load(`suite: h
cases:
  - name: one
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
  - name: two
    steps:
      - {send: [GET, "{key}"], reply: "$-1\r\n"}
`)
	reformatted := load(`suite: h
# a comment
cases:
  - name: 'one'   # and another
    steps:
      - send: [SET, '{key}', "v"]
        reply: "+OK\r\n"
  - name: two
    steps:
      - {send: [GET, "{key}"], reply: "$-1\r\n"}
`)
	edited := load(`suite: h
cases:
  - name: one
    steps:
      - {send: [SET, "{key}", w], reply: "+OK\r\n"}
  - name: two
    steps:
      - {send: [GET, "{key}"], reply: "$-1\r\n"}
`)
	gated := load(`suite: h
requires: {commands: [SET]}
cases:
  - name: one
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
  - name: two
    steps:
      - {send: [GET, "{key}"], reply: "$-1\r\n"}
`)
	if len(base.Cases[0].Hash) != 64 || base.Cases[0].Hash == base.Cases[1].Hash {
		t.Fatalf("hashes: %q %q", base.Cases[0].Hash, base.Cases[1].Hash)
	}
	for i := range base.Cases {
		if base.Cases[i].Hash != reformatted.Cases[i].Hash {
			t.Errorf("case %d: reformatting changed its hash", i)
		}
	}
	if edited.Cases[0].Hash == base.Cases[0].Hash || edited.Cases[1].Hash != base.Cases[1].Hash {
		t.Errorf("editing case one: hashes %v → %v", []string{base.Cases[0].Hash, base.Cases[1].Hash}, []string{edited.Cases[0].Hash, edited.Cases[1].Hash})
	}
	if gated.Cases[1].Hash == base.Cases[1].Hash {
		t.Error("a suite-level requires did not change the cases' hashes")
	}
}
