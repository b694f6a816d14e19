package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report"
)

// varyingHeader starts the list, at the end of a page's section, of the
// cells whose verdict differed between the two runs that generated it.
const varyingHeader = "### Cells that varied between two runs\n"

// generateSection is a page section made from rep (the first run of files
// with opts) after a second run: header, the matrix of rep, and the cells
// whose verdict class differed in the second run, with both verdicts. A
// library whose behaviour depends on timing (a message racing a reply, a
// crash or a hang under load) answers otherwise from one run to the next;
// the list tells readers so, and the matrix tests accept either verdict.
func generateSection(t *testing.T, files []*cases.File, opts clients.Options, rep *clients.Report, header string) string {
	t.Helper()
	again, err := clients.Run(context.Background(), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(header)
	if err := report.ClientsMarkdown(&b, rep, report.HumanOptions{}); err != nil {
		t.Fatal(err)
	}
	first, second := currentCells(rep), currentCells(again)
	var keys [][2]string
	for k, sym := range first {
		if !sameClass(sym, second[k]) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	if len(keys) == 0 {
		return b.String()
	}
	b.WriteString("\n" + varyingHeader + "\n")
	b.WriteString("The page was made from the first of two runs; in the second, these cells took another verdict. Each library's behaviour there depends on timing (a frame racing a reply, a process starved under load): both verdicts are real outcomes.\n\n")
	b.WriteString("| case | client | first run | second run |\n|---|---|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %s | `%s` | `%s` |\n", strings.ReplaceAll(k[0], "|", `\|`), k[1], first[k], second[k])
	}
	t.Logf("%d cells varied between the two runs", len(keys))
	return b.String()
}

var varyingRow = regexp.MustCompile("(?m)^\\| (.+) \\| ([^ |]+/resp[23]) \\| `([^`]+)` \\| `([^`]+)` \\|$")

// varyingCells reads a section's list of varying cells: for each cell, the
// verdicts it took.
func varyingCells(section string) map[[2]string][]string {
	out := map[[2]string][]string{}
	_, list, ok := strings.Cut(section, varyingHeader)
	if !ok {
		return out
	}
	for _, m := range varyingRow.FindAllStringSubmatch(list, -1) {
		k := [2]string{strings.ReplaceAll(m[1], `\|`, "|"), m[2]}
		out[k] = append(out[k], m[3], m[4])
	}
	return out
}

// TestVaryingCells reads back what generateSection writes.
func TestVaryingCells(t *testing.T) {
	page := "matrix\n\n" + varyingHeader + "\nwhy\n\n| case | client | first run | second run |\n|---|---|---|---|\n" +
		"| pubsub/a \\| b… | node-redis-5.12.1/resp2 | `.` | `X` |\n| x/y | glide/cluster/resp3 | `C` | `H` |\n"
	got := varyingCells(page)
	if len(got) != 2 || !slices.Equal(got[[2]string{"pubsub/a | b…", "node-redis-5.12.1/resp2"}], []string{".", "X"}) ||
		!slices.Equal(got[[2]string{"x/y", "glide/cluster/resp3"}], []string{"C", "H"}) {
		t.Errorf("varyingCells: %v", got)
	}
	if cells := matrixCells(page); len(cells) != 0 {
		t.Errorf("the list was read as matrix cells: %v", cells)
	}
}
