package cases

import _ "embed"

// Manual is the manual of the case format, in Markdown (cases/manual.md):
// every field and form the loader accepts. "respcheck help cases" prints
// it, and docs/case-format.md is this text behind a generated-file header
// (CaseFormatDoc).
//
//go:embed manual.md
var Manual string

// CaseFormatDoc returns the text of docs/case-format.md: a line saying how
// it is generated, then Manual.
func CaseFormatDoc() string {
	return "<!-- Generated from cases/manual.md by `go test ./cases -run TestCaseFormatDoc -update-case-format`; edit that file, not this one. -->\n\n" + Manual
}
