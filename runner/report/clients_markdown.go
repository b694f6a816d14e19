package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// ClientsMarkdown writes a clients report as a Markdown page: the server,
// the clients (library, version, API), the clients × cases matrix, and one
// line per result that is neither a match nor a skip, explaining it (the
// first note of its worst step, with the step's command). It is what
// docs/client-matrix.md is made of.
func ClientsMarkdown(w io.Writer, rep *clients.Report, _ HumanOptions) error {
	sw := &stickyWriter{w: w}
	w = sw
	fmt.Fprintf(w, "# Client views on %s %s\n\n", rep.Server.Family, rep.Server.Version)
	fmt.Fprintf(w, "| client | version | API |\n|---|---|---|\n")
	for _, c := range rep.Clients {
		fmt.Fprintf(w, "| %s | %s | `%s` |\n", c.Name, c.Version, mdCell(c.API))
	}
	fmt.Fprintf(w, "\n## Matrix\n\n```\n")
	clientsMatrix(w, rep)
	fmt.Fprintf(w, "```\n\n## Findings and conversions\n\nOne line per result that is a mismatch, crash, hang, desync, error or\nconversion: the step's command and why.\n\n")
	n := 0
	erased := map[string][]string{}
	var order []string
	for _, res := range rep.Results {
		switch res.Verdict {
		case clients.Match, clients.Skip:
			continue
		case clients.Erased:
			// Erasures repeat across cases: one line per kind of loss.
			why := erasure(res)
			if erased[why] == nil {
				order = append(order, why)
			}
			erased[why] = append(erased[why], res.Client)
			continue
		}
		n++
		fmt.Fprintf(w, "- **%s** `%s` [%s]: %s\n", res.Verdict, runner.FullName(res.Case), res.Client, mdCell(explain(res)))
	}
	if n == 0 {
		fmt.Fprintln(w, "None.")
	}
	if len(order) > 0 {
		fmt.Fprintf(w, "\n## Erased distinctions\n\nInformational: the library cannot express a distinction the bytes make.\n\n")
		for _, why := range order {
			fmt.Fprintf(w, "- %s: %d results (%s)\n", mdCell(why), len(erased[why]), strings.Join(uniq(erased[why]), ", "))
		}
	}
	return sw.err
}

// explain is one line on why a result has its verdict: the command and the
// first note of its worst step, else the result's reason.
func explain(res *clients.Result) string {
	var worst *clients.StepView
	for i := range res.Steps {
		if worst == nil || res.Steps[i].Verdict > worst.Verdict {
			worst = &res.Steps[i]
		}
	}
	if worst == nil || worst.Verdict != res.Verdict {
		return res.Reason
	}
	s := clients.FormatArgs(worst.Args)
	if len(worst.Notes) > 0 {
		s += ": " + worst.Notes[0]
	}
	if worst.Canary != "" && worst.Canary != "ok" {
		s += "; canary: " + worst.Canary
	}
	return s
}

// erasure names what an erased result lost: the parenthesised reason of
// its first erased note ("simple and blob strings look alike").
func erasure(res *clients.Result) string {
	for _, sv := range res.Steps {
		if sv.Verdict != clients.Erased {
			continue
		}
		for _, n := range sv.Notes {
			if i := strings.LastIndex(n, " ("); i >= 0 && strings.HasSuffix(n, ")") {
				return n[i+2 : len(n)-1]
			}
			_, after, ok := strings.Cut(n, ": ")
			if !ok {
				after = n
			}
			return keyRE.ReplaceAllString(after, "{key}")
		}
	}
	return "a distinction is lost"
}

var keyRE = regexp.MustCompile(`rc:\{[0-9a-f]{8}\}:[A-Za-z0-9_.*:-]*`)

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// mdCell makes s safe for one Markdown line or table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
