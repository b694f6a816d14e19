// Package cases loads and validates respcheck's test cases: YAML files that
// describe commands to send to a Redis or Valkey server and the exact replies
// expected back. The package is data, parsing and matching (Expect.Match
// says whether a reply meets an expectation, with no I/O); the runner
// package executes the cases.
//
// The manual of the case format is manual.md in this directory, embedded
// as Manual: "respcheck help cases" prints it, and docs/case-format.md is
// generated from it (go test ./cases -run TestCaseFormatDoc
// -update-case-format). Each section there (Files, Gates, Known
// differences, Steps, Expectations, Selectors, Typed values, Templates,
// Literal keys, Captures, Scenarios, Errors) describes the types of this
// package that hold it: File and Case, Gates, Known, Step, Expect and
// Variants, Selector, TypedValue, Template, Case.LiteralKeys, Scenario,
// ErrorList.
package cases
