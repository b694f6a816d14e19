package coverage

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteHuman writes the report for people: the total, then per command
// group the entries sent, the entries counted, the share and the names
// not sent; with verbose, one line per command (cases, steps,
// protocols) instead; then the reply-schema branches when counted
// (schema.Coverage.Write).
func WriteHuman(w io.Writer, r *Report, verbose bool) error {
	fmt.Fprintf(w, "coverage of %s by %d cases: %d of %d commands and subcommands sent (%.1f%%)\n",
		r.Server, r.Cases, r.Covered, r.Counted, r.Percent)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if verbose {
		fmt.Fprintln(tw, "command\tgroup\tcases\tsteps\tprotocols")
		for _, row := range r.Rows {
			if row.Container {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", row.Name, row.Group, row.Cases, row.Steps, protoText(row.Protos))
		}
	} else {
		fmt.Fprintln(tw, "group\tsent\tof\tshare\tnot sent")
		for _, g := range Groups(r) {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%s\n", g.Name, g.Sent, g.Of, g.Share(), strings.Join(g.Missing, " "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeReasons(w, r)
	if len(r.Unknown) > 0 {
		names := make([]string, len(r.Unknown))
		for i, n := range r.Unknown {
			names[i] = n
			if n == "" || strings.ContainsFunc(n, func(c rune) bool { return c <= ' ' && c != ' ' || c > '~' }) {
				names[i] = strconv.Quote(n)
			}
		}
		fmt.Fprintf(w, "sent, but not in the server's COMMAND DOCS (unknown-command cases, other servers' commands): %s\n", strings.Join(names, ", "))
	}
	if r.Branches != nil {
		r.Branches.Write(w, verbose)
	}
	return nil
}

// WriteJSON writes the report as one indented JSON object (Report's
// fields).
func WriteJSON(w io.Writer, r *Report) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// Group is the coverage of one command group ("string", "server"): the
// entries sent, the entries counted, and the names of those not sent.
type Group struct {
	Name     string
	Sent, Of int
	Missing  []string
}

// Share is the percentage of the group's entries sent.
func (g *Group) Share() float64 { return 100 * float64(g.Sent) / float64(g.Of) }

// Groups summarises the counted entries by command group, sorted by
// group name ("(none)" for entries without one).
func Groups(r *Report) []*Group {
	var out []*Group
	by := map[string]*Group{}
	for _, row := range r.Rows {
		if row.Container {
			continue
		}
		name := row.Group
		if name == "" {
			name = "(none)"
		}
		g := by[name]
		if g == nil {
			g = &Group{Name: name}
			by[name] = g
			out = append(out, g)
		}
		g.Of++
		if row.Covered() {
			g.Sent++
		} else {
			g.Missing = append(g.Missing, row.Name)
		}
	}
	slices.SortFunc(out, func(a, b *Group) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func protoText(ps []int) string {
	if len(ps) == 0 {
		return "-"
	}
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("RESP%d", p))
	}
	return strings.Join(s, " ")
}

// writeReasons lists the entries not sent on purpose, grouped by reason.
func writeReasons(w io.Writer, r *Report) {
	by := map[string][]string{}
	var order []string
	for _, row := range r.Rows {
		if row.Reason == "" {
			continue
		}
		if by[row.Reason] == nil {
			order = append(order, row.Reason)
		}
		by[row.Reason] = append(by[row.Reason], row.Name)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "not sent on purpose:")
	for _, reason := range order {
		fmt.Fprintf(w, "  %s: %s\n", strings.Join(by[reason], " "), reason)
	}
}
