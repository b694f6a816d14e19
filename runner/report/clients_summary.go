package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/runner/clients"
)

// screenWidth is the width the default clients report keeps to (a
// terminal of 100 columns).
const screenWidth = 100

// nameWidth is the widest client name the summary keeps on its row; a
// longer one gets a line of its own above its counts.
const nameWidth = 40

// findingsPerClient is how many findings the summary names under a
// client's row (the worst first); the rest are counted.
const findingsPerClient = 3

// summaryColumns are the summary's count columns, in verdict order (from
// match to error, then skip), each with its heading.
var summaryColumns = []struct {
	v    clients.Verdict
	head string
}{
	{clients.Match, "match"}, {clients.Converted, "conv"}, {clients.Erased, "erased"}, {clients.Inexpressible, "inexp"}, {clients.Mismatch, "mism"},
	{clients.Crash, "crash"}, {clients.Hang, "hang"}, {clients.Desync, "desync"}, {clients.Error, "error"}, {clients.Skip, "skip"},
}

// clientRow is one client of the summary: its results' counts by verdict
// and its findings, worst first.
type clientRow struct {
	name     string
	counts   map[clients.Verdict]int
	findings []*clients.Result
	skips    []string // the reasons of its skips, in result order
}

// clientsSummary writes one row per client that has a result other than a
// skip (its counts by verdict, and its worst findings named in one line
// each), then the clients that skipped every case, counted once by
// reason ("not applicable"), within screenWidth columns.
func clientsSummary(w io.Writer, rep *clients.Report) {
	rows := summaryRows(rep)
	var shown, idle []*clientRow
	for _, r := range rows {
		if len(r.skips) > 0 && len(r.skips) == total(r) {
			idle = append(idle, r)
		} else {
			shown = append(shown, r)
		}
	}
	if len(shown) > 0 {
		width := 0
		for _, r := range shown {
			width = max(width, min(len(r.name), nameWidth))
		}
		fmt.Fprintf(w, "%-*s", width, "client")
		for _, c := range summaryColumns {
			fmt.Fprintf(w, " %*s", len(c.head), c.head)
		}
		fmt.Fprintln(w)
		for _, r := range shown {
			summaryRow(w, r, width)
		}
	}
	notApplicable(w, idle)
}

// summaryRows gathers the results of rep by client, in the order of
// their first result.
func summaryRows(rep *clients.Report) []*clientRow {
	var rows []*clientRow
	byName := map[string]*clientRow{}
	for _, res := range rep.Results {
		r := byName[res.Client]
		if r == nil {
			r = &clientRow{name: res.Client, counts: map[clients.Verdict]int{}}
			byName[res.Client] = r
			rows = append(rows, r)
		}
		r.counts[res.Verdict]++
		switch {
		case res.Verdict.Finding():
			r.findings = append(r.findings, res)
		case res.Verdict == clients.Skip && !res.NotRun:
			// (Interrupted results are counted as not run, apart.)
			why := res.Reason
			if why == "" {
				why = "every step skipped (-v says why)"
			}
			r.skips = append(r.skips, why)
		}
	}
	for _, r := range rows {
		slices.SortStableFunc(r.findings, func(a, b *clients.Result) int { return int(b.Verdict) - int(a.Verdict) })
	}
	return rows
}

// total is the number of results of r.
func total(r *clientRow) int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

// summaryRow writes r's counts (a blank for none) under the headings, and
// its worst findings, one line each.
func summaryRow(w io.Writer, r *clientRow, width int) {
	name := r.name
	if len(name) > width {
		fmt.Fprintln(w, name)
		name = ""
	}
	line := fmt.Sprintf("%-*s", width, name)
	for _, c := range summaryColumns {
		s := ""
		if n := r.counts[c.v]; n > 0 {
			s = fmt.Sprint(n)
		}
		line += fmt.Sprintf(" %*s", len(c.head), s)
	}
	fmt.Fprintln(w, strings.TrimRight(line, " "))
	for i, res := range r.findings {
		if i == findingsPerClient {
			fmt.Fprintf(w, "  … and %s more\n", Count(len(r.findings)-i, "finding", "findings"))
			break
		}
		fmt.Fprintln(w, clip(fmt.Sprintf("  %s %s", res.Verdict.Symbol(), finding(res)), screenWidth))
	}
}

// notApplicable counts the clients that skipped every case, by the reason
// of their first skip: "12 clients not applicable (every case skipped): 6
// × a cluster configuration: …".
func notApplicable(w io.Writer, idle []*clientRow) {
	if len(idle) == 0 {
		return
	}
	var reasons []string
	count := map[string]int{}
	for _, r := range idle {
		why := r.skips[0]
		if count[why] == 0 {
			reasons = append(reasons, why)
		}
		count[why]++
	}
	parts := make([]string, len(reasons))
	for i, why := range reasons {
		parts[i] = fmt.Sprintf("%d × %s", count[why], why)
	}
	fmt.Fprint(w, wrap(fmt.Sprintf("%s not applicable (every case skipped): %s", Count(len(idle), "client", "clients"), strings.Join(parts, "; ")), screenWidth))
}

// clip cuts s to width columns (runes), ending it with "…" when cut.
func clip(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

// wrap breaks s into lines of at most width columns at spaces (a longer
// word stands alone), each ending in a newline.
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	b.WriteByte('\n')
	return b.String()
}
