package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
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
// whose verdict class differed between the two runs or that the previous
// section (the committed one, "" for none) listed, with every verdict seen
// (a cell no longer in the matrix is dropped). A library whose behaviour
// depends on timing (a message racing a reply, a crash or a hang under
// load) answers otherwise from one run to the next; the list tells readers
// so, and the matrix tests accept any verdict it gives.
func generateSection(t *testing.T, files []*cases.File, opts clients.Options, rep *clients.Report, header, previous string) string {
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
	seen := map[[2]string][]string{}
	for k, vs := range varyingCells(previous) {
		if _, ok := first[k]; ok {
			seen[k] = vs
		}
	}
	for k, sym := range first {
		if !sameClass(sym, second[k]) || seen[k] != nil {
			for _, v := range []string{sym, second[k]} {
				if !slices.Contains(seen[k], v) {
					seen[k] = append(seen[k], v)
				}
			}
		}
	}
	if len(seen) == 0 {
		return b.String()
	}
	keys := slices.Collect(maps.Keys(seen))
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	b.WriteString("\n" + varyingHeader + "\n")
	b.WriteString("The page shows the first of the two runs that generated it. These cells took more than one verdict, in those runs or in the runs of earlier generations of the page: each library's behaviour there depends on timing (a frame racing a reply, a process starved under load), and every verdict listed is a real outcome.\n\n")
	b.WriteString("| case | client | verdicts seen |\n|---|---|---|\n")
	for _, k := range keys {
		slices.Sort(seen[k])
		fmt.Fprintf(&b, "| %s | %s | `%s` |\n", strings.ReplaceAll(k[0], "|", `\|`), k[1], strings.Join(seen[k], "` `"))
	}
	t.Logf("%d cells took more than one verdict (this generation's two runs and the committed list)", len(keys))
	return b.String()
}

var varyingRow = regexp.MustCompile("(?m)^\\| (.+) \\| ([^ |]+/resp[23]) \\| (`.+`) \\|$")

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
		for _, v := range strings.Fields(m[3]) {
			if strings.HasPrefix(v, "`") { // not the "|" of a page with a column per run
				out[k] = append(out[k], strings.Trim(v, "`"))
			}
		}
	}
	return out
}

// TestVaryingCells reads back what generateSection writes.
func TestVaryingCells(t *testing.T) {
	page := "matrix\n\n" + varyingHeader + "\nwhy\n\n| case | client | verdicts seen |\n|---|---|---|\n" +
		"| pubsub/a \\| b… | node-redis-5.12.1/resp2 | `.` `X` |\n| x/y | glide/cluster/resp3 | `C` `H` |\n"
	got := varyingCells(page)
	if len(got) != 2 || !slices.Equal(got[[2]string{"pubsub/a | b…", "node-redis-5.12.1/resp2"}], []string{".", "X"}) ||
		!slices.Equal(got[[2]string{"x/y", "glide/cluster/resp3"}], []string{"C", "H"}) {
		t.Errorf("varyingCells: %v", got)
	}
	if cells := matrixCells(page); len(cells) != 0 {
		t.Errorf("the list was read as matrix cells: %v", cells)
	}
}

// TestVaryingCellsOldLayout reads the list as pages written with one
// column per run had it.
func TestVaryingCellsOldLayout(t *testing.T) {
	page := varyingHeader + "\n| case | client | first run | second run |\n|---|---|---|---|\n| a/b | x/resp2 | `D` | `C` |\n"
	if got := varyingCells(page)[[2]string{"a/b", "x/resp2"}]; !slices.Equal(got, []string{"D", "C"}) {
		t.Errorf("varyingCells: %v", got)
	}
}
