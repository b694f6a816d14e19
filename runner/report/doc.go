// Package report writes respcheck's reports: a runner.Report (respcheck run)
// in human text (with colour on a terminal), JSON, JUnit XML or TAP version
// 13, and a clients.Report (respcheck clients) in human text, JSON or JUnit
// XML. The formats are one registry (Formats, Lookup, Choices), which the
// command line lists in its help and checks --format against.
//
// Every format keeps the exact bytes: replies appear escaped (resp.Escape),
// so a CR, a NUL or a non-UTF-8 byte is visible and nothing is normalised.
package report
