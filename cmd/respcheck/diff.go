package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
)

const diffLong = `Diff compares two golden directories written by "respcheck record" (for
example testdata/golden/redis-7.0.15 and testdata/golden/redis-8.6.3) without
any server. It prints a summary first: per case file, the steps whose bytes
differ (reply, pushes or sent bytes), the cases whose status differs, and the
steps present in one recording only (a case the other build skipped, a
feature it lacks). Recordings of clusters (respcheck record --cluster N)
hold placeholders for node ids, addresses, ports and the case's slot, so
two clusters of a build compare equal; between a cluster's recording and a
standalone one, the cases one side skipped for its topology and the steps
that expect one reply on a cluster and another standalone are not
compared (a note counts them). Then the steps whose bytes differ in full, grouped by case
file and case, escaped and as redis-cli prints them (replies over 160 bytes
cut, with their length); then one line per case whose status differs or that
has steps in one recording only, with the step positions. -v shows every
step of every change in full, long replies whole. Steps either recording
marks volatile are not compared unless --volatile.

--format json writes the counts and every change (unshortened) as one JSON
document instead.

Exit status: 0 identical, 1 different, 2 usage error or unreadable golden.`

func newDiffCmd() *cobra.Command {
	return newCommand("diff DIR_A DIR_B", "Show which recorded replies differ between two golden directories",
		diffLong, cobra.ExactArgs(2), runDiff)
}

// diffJSON is diff --format json.
type diffJSON struct {
	A       diffSide            `json:"a"`
	B       diffSide            `json:"b"`
	Files   []golden.DiffCounts `json:"files"`
	Total   golden.DiffCounts   `json:"total"`
	Changes []golden.Change     `json:"changes"`
	// Excluded is what was not compared between a cluster's recording and
	// a standalone one.
	Excluded golden.Excluded `json:"excluded"`
}

type diffSide struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func runDiff(_ context.Context, stdout, _ io.Writer, f diffFlags, args []string) error {
	a, b := args[0], args[1]
	format, err := reportFormat(f.format, report.DiffReports)
	if err != nil {
		return err
	}
	da, err := golden.Load(a)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	db, err := golden.Load(b)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// Two directories without goldens are not "identical recordings": a
	// wrong path must not pass.
	for _, d := range []*golden.Dir{da, db} {
		if len(d.Files) == 0 {
			return caseErr(fmt.Errorf("%s holds no golden files (*.golden): is it a directory written by respcheck record?", d.Path))
		}
	}
	changes, ex := golden.DiffExcluding(da, db, golden.DiffOptions{Volatile: f.volatile})
	nameA, nameB := label(da, a), label(db, b)
	if nameA == nameB {
		nameA, nameB = a, b
	}
	switch {
	case format.Name == "json":
		files, total := golden.Summarize(changes)
		doc := diffJSON{A: diffSide{nameA, a}, B: diffSide{nameB, b}, Files: files, Total: total, Changes: changes, Excluded: ex}
		if doc.Files == nil {
			doc.Files = []golden.DiffCounts{}
		}
		if doc.Changes == nil {
			doc.Changes = []golden.Change{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(doc); err != nil {
			return err
		}
	case len(changes) == 0:
		excludedNote(stdout, ex)
		fmt.Fprintf(stdout, "%s and %s: identical recordings\n", nameA, nameB)
	default:
		_, total := golden.Summarize(changes)
		excludedNote(stdout, ex)
		fmt.Fprintf(stdout, "A = %s (%s), B = %s (%s): %d differences\n", nameA, a, nameB, b, total.Total())
		golden.WriteReport(stdout, changes, golden.ReportOptions{NameA: nameA, NameB: nameB, Verbose: f.verbose})
	}
	if len(changes) == 0 {
		return nil
	}
	return &exitError{code: exitFindings, err: errSilent}
}

func label(d *golden.Dir, path string) string {
	if d.Server.Family != "" {
		name := d.Server.Family + "-" + d.Server.Version
		if d.Server.Topology != "" {
			name += " " + d.Server.Topology
		}
		return name
	}
	return filepath.Base(path)
}

// excludedNote says what was not compared between a cluster's recording
// and a standalone one, if anything.
func excludedNote(w io.Writer, ex golden.Excluded) {
	if ex.Cases > 0 || ex.Steps > 0 {
		fmt.Fprintf(w, "note: one recording is a cluster's, the other a standalone server's: %d cases one of them skipped for its topology and %d steps that expect one reply on a cluster and another standalone are not compared\n",
			ex.Cases, ex.Steps)
	}
}
