package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// ClientsHuman writes a clients report as text: the server and clients,
// one block per finding (with Verbose also erased results, skips with a
// reason, every step and the wire transcripts), then the clients × cases
// matrix and a summary. Color is ignored: the clients report has none.
func ClientsHuman(w io.Writer, rep *clients.Report, o HumanOptions) error {
	sw := &stickyWriter{w: w}
	w = sw
	fmt.Fprintf(w, "server: %s %s at %s\n", rep.Server.Family, rep.Server.Version, rep.Server.Addr)
	fmt.Fprintf(w, "clients:")
	for _, c := range rep.Clients {
		fmt.Fprintf(w, " %s(%s)", c.Name, c.Version)
	}
	fmt.Fprintln(w)
	casesFailures(w, rep.Cases, o)
	notRun, why := 0, ""
	for _, res := range rep.Results {
		if res.NotRun && res.Verdict == clients.Skip && !o.Verbose {
			notRun, why = notRun+1, res.Reason
			continue
		}
		if res.Verdict < clients.Mismatch && !(o.Verbose && res.Verdict == clients.Erased) && !(res.Verdict == clients.Skip && res.Reason != "" && o.Verbose) {
			continue
		}
		fmt.Fprintf(w, "\n%s  %s  [%s]", strings.ToUpper(res.Verdict.String()), res.Case.FullName(), rep.Client(res.Client).Label())
		if res.Reason != "" {
			fmt.Fprintf(w, "  (%s)", res.Reason)
		}
		fmt.Fprintln(w)
		for _, sv := range res.Steps {
			if sv.Verdict == clients.Match && !o.Verbose || sv.Verdict == clients.Skip && !o.Verbose {
				continue
			}
			clientsStep(w, sv)
		}
		if o.Verbose {
			clientsWire(w, res.Wire)
		}
	}
	if notRun > 0 {
		fmt.Fprintf(w, "\n%s %s\n", Count(notRun, "result", "results"), why)
	}
	fmt.Fprintln(w)
	clientsMatrix(w, rep)
	counts := map[clients.Verdict]int{}
	interrupted := 0
	for _, res := range rep.Results {
		if res.NotRun && res.Verdict == clients.Skip {
			interrupted++
			continue
		}
		counts[res.Verdict]++
	}
	var parts []string
	for v := clients.Skip; v <= clients.Error; v++ {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	if interrupted > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", interrupted))
	}
	fmt.Fprintf(w, "\n%d results: %s (%.1fs)\n", len(rep.Results), strings.Join(parts, ", "), rep.Duration.Seconds())
	if rep.Cases != nil {
		fmt.Fprintf(w, "the cases themselves, as run checks them: %s\n", casesSummary(rep.Cases))
	}
	return sw.err
}

// casesFailures writes the results of the cases' own check (see
// clients.Report.Cases) that failed or erred, as run's human report
// writes them, under a line that says what they are; nothing when none
// did.
func casesFailures(w io.Writer, rep *runner.Report, o HumanOptions) {
	if rep == nil || !rep.Failed() {
		return
	}
	fmt.Fprintf(w, "\nthe cases themselves: the server's replies do not meet them\n(run as respcheck run runs them, on connections of its own, after the libraries):\n")
	p := &printer{w: w, o: HumanOptions{Verbose: false, Color: o.Color}}
	for _, res := range rep.Results {
		if res.Status == runner.Fail || res.Status == runner.Error {
			p.result(res)
		}
	}
	fmt.Fprintln(w, "(the libraries below are judged against the bytes the server sent all the same)")
}

// casesSummary counts the results of the cases' own check: "230 passed,
// 0 failed, 18 skipped" and the errors and known differences there are.
func casesSummary(rep *runner.Report) string {
	s := rep.Summary
	parts := []string{fmt.Sprintf("%d passed", s.Passed), fmt.Sprintf("%d failed", s.Failed), fmt.Sprintf("%d skipped", s.Skipped)}
	if s.Errors > 0 {
		parts = append(parts, Count(s.Errors, "error", "errors"))
	}
	if s.Known > 0 {
		parts = append(parts, Count(s.Known, "known difference", "known differences"))
	}
	return strings.Join(parts, ", ")
}

// stickyWriter keeps the first write error and drops every write after it,
// so that a writer of many Fprintf calls can report it once at the end.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// clientsStep writes what one client made of one step: the bytes it
// received (and their redis-cli rendering), pushes, its decoding, the
// judge's notes and the canary's outcome.
func clientsStep(w io.Writer, sv clients.StepView) {
	fmt.Fprintf(w, "  step %s (conn %s) %s: %s", sv.Step.Pos, sv.Conn, clients.FormatArgs(sv.Args), sv.Verdict)
	if sv.Typed != "" {
		fmt.Fprintf(w, " via %s", sv.Typed)
	}
	fmt.Fprintln(w)
	if sv.Reply != nil {
		fmt.Fprintf(w, "    bytes received: %s\n", resp.Escape(sv.Reply))
		if cli := CLI(sv.Reply); cli != "" {
			fmt.Fprintf(w, "    redis-cli:      %s\n", continued("                    ", cli))
		}
	}
	for _, p := range sv.Pushes {
		fmt.Fprintf(w, "    push before:    %s\n", resp.Escape(p))
	}
	for _, p := range sv.Injected {
		fmt.Fprintf(w, "    injected:       %s (sent by the proxy, --extra-after)\n", resp.Escape(p))
	}
	if sv.Native != nil {
		fmt.Fprintf(w, "    decoded:        %s\n", sv.Native.String())
	}
	for _, n := range sv.Notes {
		fmt.Fprintf(w, "    - %s\n", n)
	}
	for _, n := range sv.Cluster {
		fmt.Fprintf(w, "    cluster: %s\n", n)
	}
	if sv.Canary != "" {
		fmt.Fprintf(w, "    canary: %s\n", sv.Canary)
	}
}

// clientsWire writes the proxy's transcript of each connection, one frame
// a line, escaped and cut at 160 characters.
func clientsWire(w io.Writer, conns []clients.WireConn) {
	for _, c := range conns {
		if c.Node != "" && len(conns) > 0 && hasRewrites(conns) {
			fmt.Fprintf(w, "  wire, connection %d (node %s):\n", c.ID, c.Node)
		} else {
			fmt.Fprintf(w, "  wire, connection %d:\n", c.ID)
		}
		for _, e := range c.Events {
			b := e.Value.Raw
			if e.Bad != nil {
				b = e.Bad
			}
			s := resp.Escape(b)
			if len(s) > 160 {
				s = s[:160] + "…"
			}
			arrow := "→"
			if e.Dir == clients.ToClient {
				arrow = "←"
			}
			fmt.Fprintf(w, "    %s %s\n", arrow, s)
			if e.Upstream != nil {
				u := resp.Escape(e.Upstream)
				if len(u) > 160 {
					u = u[:160] + "…"
				}
				fmt.Fprintf(w, "      (rewritten by the proxy; the server sent %s)\n", u)
			}
		}
	}
}

// hasRewrites reports whether a session ran through a cluster proxy (one
// of its connections had node addresses rewritten): its wire then names
// each connection's node.
func hasRewrites(conns []clients.WireConn) bool {
	for _, c := range conns {
		for _, e := range c.Events {
			if e.Upstream != nil {
				return true
			}
		}
	}
	return false
}

// clientsMatrix writes the worst verdict of each case (rows) through each
// client (columns) as one symbol.
func clientsMatrix(w io.Writer, rep *clients.Report) {
	rows, cols, cell := clients.Matrix(rep)
	if len(rows) == 0 {
		return
	}
	width := 0
	for _, r := range rows {
		width = max(width, min(len(r), 60))
	}
	fmt.Fprintf(w, "matrix (. match  = converted  ~ erased  X mismatch  C crash  H hang  D desync  E error  - skip):\n")
	for i, c := range cols {
		fmt.Fprintf(w, "%s%s %s\n", strings.Repeat(" ", width+2), strings.Repeat("| ", i), c)
	}
	for _, r := range rows {
		name := r
		if len(name) > 60 {
			name = name[:59] + "…"
		}
		fmt.Fprintf(w, "%-*s  ", width, name)
		for _, c := range cols {
			v, ok := cell[[2]string{r, c}]
			s := " "
			if ok {
				s = v.Symbol()
			}
			fmt.Fprintf(w, "%s ", s)
		}
		fmt.Fprintln(w)
	}
}

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
	if rep.Cases != nil {
		fmt.Fprintf(w, "\n## The cases\n\nThe cases themselves, run as `respcheck run` runs them after the libraries: %s.\n", casesSummary(rep.Cases))
		for _, res := range rep.Cases.Results {
			if res.Status == runner.Fail || res.Status == runner.Error {
				fmt.Fprintf(w, "\n- **%s** `%s` [RESP%d]: %s", res.Status, res.Case.FullName(), res.Proto, mdCell(caseWhy(res)))
			}
		}
		if rep.Cases.Failed() {
			fmt.Fprintf(w, "\n\nThe libraries are judged against the bytes the server sent all the same.\n")
		}
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
		fmt.Fprintf(w, "- **%s** `%s` [%s]: %s\n", res.Verdict, res.Case.FullName(), res.Client, mdCell(explain(res)))
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

// caseWhy is one line on why a result of the cases' own check failed or
// erred: the step, its message and both sides, else the reason.
func caseWhy(res *runner.Result) string {
	f := res.Failure
	if f == nil {
		return res.Reason
	}
	return fmt.Sprintf("%s: %s; want %s, got %s", f.Step.Pos, f.Message, short(f.Expected), short(resp.Escape(f.Actual)))
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
