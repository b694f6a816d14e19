// Package page writes respcheck's compatibility report: one self-contained
// static HTML file (inline CSS and a small inline script, no network, no
// external fonts) made from JSON reports of respcheck run and respcheck
// clients and from golden directories (respcheck record). It holds
//
//   - a servers × case-files matrix (passed, known, skipped, failed and
//     error counts per cell, each status a colour and a symbol), with
//     totals, each file row opening its servers × cases table;
//   - every case whose recorded bytes differ between golden directories
//     and run reports (golden.Diff of the first against each other one, a
//     run report read as a golden directory by runDir), the
//     replies side by side escaped (resp.Escape) and as redis-cli prints
//     them, the first differing byte marked, with each server's status and
//     its reason (a known difference's, a gate's);
//   - per clients report and per section of a client matrix file
//     (report.ClientMatrix), a cases × clients matrix of verdicts, each
//     cell with steps opening the bytes the library received and what it
//     returned;
//   - filters by server, tag and status and a search box.
//
// Building the page is linear in its input: every case of every source is
// indexed once in maps. Everything is escaped by html/template. The
// package registers the "html" format of runner/report in its init, so
// run --format html and clients --format html write one run's page.
package page
