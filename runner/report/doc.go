// Package report writes a runner.Report in the formats respcheck offers:
// human text (with colour on a terminal), JSON, JUnit XML and TAP version 13.
//
// Every format keeps the exact bytes: replies appear escaped (resp.Escape),
// so a CR, a NUL or a non-UTF-8 byte is visible and nothing is normalised.
package report
