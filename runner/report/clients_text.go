package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// ClientsHuman writes a clients report as text that fits 100 columns: the
// server, the number of clients, the cases that fail their own check (see
// casesFailures), one row per client with its counts by verdict and its
// worst findings named in one line each, the clients that skipped every
// case counted by reason (clientsSummary), and the totals. With
// o.Matrix, the cases × clients matrix too, in blocks of columns that
// fit. With o.Verbose, every client's name and version, one block per
// finding (with erased results and skips with a reason too) with each
// step's bytes, decoding and notes, the wire, and the matrix.
func ClientsHuman(w io.Writer, rep *clients.Report, o HumanOptions) error {
	sw := &stickyWriter{w: w}
	w = sw
	fmt.Fprintf(w, "server: %s %s at %s\n", rep.Server.Family, rep.Server.Version, rep.Server.Addr)
	if o.Verbose {
		fmt.Fprintf(w, "clients:")
		for _, c := range rep.Clients {
			fmt.Fprintf(w, " %s(%s)", c.Name, c.Version)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "clients: %s; -v names them\n", clientsCount(rep.Clients))
	}
	casesFailures(w, rep.Cases, o)
	notRun, why := 0, ""
	for _, res := range rep.Results {
		if res.NotRun && res.Verdict == clients.Skip && !o.Verbose {
			notRun, why = notRun+1, res.Reason
		}
	}
	if o.Verbose {
		resultBlocks(w, rep)
	}
	if notRun > 0 {
		fmt.Fprintf(w, "\n%s %s\n", Count(notRun, "result", "results"), why)
	}
	if o.Verbose || o.Matrix {
		fmt.Fprintln(w)
		width := screenWidth
		if o.Verbose && !o.Matrix {
			width = 0
		}
		clientsMatrix(w, rep, width)
	}
	fmt.Fprintln(w)
	clientsSummary(w, rep)
	fmt.Fprint(w, "\n"+wrap(fmt.Sprintf("%d results: %s (%.1fs)", len(rep.Results), verdictCounts(rep), rep.Duration.Seconds()), screenWidth))
	if rep.Cases != nil {
		fmt.Fprintf(w, "the cases themselves, as run checks them: %s\n", summaryText(rep.Cases.Summary))
	}
	if !o.Verbose && rep.Worst() > clients.Match {
		fmt.Fprintln(w, "(-v shows each finding's steps: the bytes, the decoding and why; --matrix the cases × clients)")
	}
	return sw.err
}

// clientsCount is "132 (78 configurations: 70 in RESP2, 62 in RESP3)":
// the clients (a configuration in one protocol), and their configurations
// and how many speak each protocol where there are fewer configurations.
func clientsCount(cs []clients.ClientInfo) string {
	libs := map[string]bool{}
	protos := map[int]int{}
	for _, c := range cs {
		libs[c.Library] = true
		protos[c.Proto]++
	}
	if len(libs) == len(cs) {
		return fmt.Sprint(len(cs))
	}
	return fmt.Sprintf("%d (%s: %d in RESP2, %d in RESP3)", len(cs), Count(len(libs), "configuration", "configurations"), protos[2], protos[3])
}

// resultBlocks writes one block per result that is a finding, erased,
// inexpressible, or a skip with a reason: its client, reason and the steps
// that are not matches, then its wire.
func resultBlocks(w io.Writer, rep *clients.Report) {
	for _, res := range rep.Results {
		if res.Verdict < clients.Erased && !(res.Verdict == clients.Skip && res.Reason != "") {
			continue
		}
		fmt.Fprintf(w, "\n%s  %s  [%s]", strings.ToUpper(res.Verdict.String()), res.Case.FullName(), rep.Client(res.Client).Label())
		if res.Reason != "" {
			fmt.Fprintf(w, "  (%s)", res.Reason)
		}
		fmt.Fprintln(w)
		for _, sv := range res.Steps {
			clientsStep(w, sv)
		}
		clientsWire(w, res.Wire)
	}
}

// verdictCounts is "1 skip, 1 match, 1 mismatch, 2 not run": the results
// of rep by verdict, in verdict order, the interrupted ones apart.
func verdictCounts(rep *clients.Report) string {
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
	return strings.Join(parts, ", ")
}

// casesFailures writes the results of the cases' own check (see
// clients.Report.Cases) that failed or erred, as run's human report
// writes them, under a line that says what they are; when the check's
// server stopped answering, that instead; nothing when all passed.
func casesFailures(w io.Writer, rep *runner.Report, o HumanOptions) {
	if rep == nil || !rep.Failed() {
		return
	}
	if rep.ServerLost != nil {
		fmt.Fprintf(w, "\nthe cases themselves could not all be checked: %v\n", rep.ServerLost)
		return
	}
	fmt.Fprintf(w, "\nthe cases themselves: the server's replies do not meet them\n(run as respcheck run runs them, on connections of its own):\n")
	p := &printer{w: w, o: HumanOptions{Verbose: false, Color: o.Color}}
	for _, res := range rep.Results {
		if res.Status == runner.Fail || res.Status == runner.Error {
			p.result(res)
		}
	}
	fmt.Fprintln(w, "(the libraries below are judged against the bytes the server sent all the same)")
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
	fmt.Fprintf(w, "  step %s (conn %s) %s: %s", sv.Step.Pos, sv.Conn, resp.EscapeCommand(sv.Args), sv.Verdict)
	if sv.Rule != "" {
		fmt.Fprintf(w, " (rule: %s)", sv.Rule)
	}
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
// client (columns) as one symbol. With width > 0 the clients that skipped
// every case are left out (the summary counts them) and the columns come
// in blocks that fit width, a library's clients kept together where they
// fit (case names cut to nameWidth); 0 writes every client in one block.
func clientsMatrix(w io.Writer, rep *clients.Report, width int) {
	rows, cols, cell := clients.Matrix(rep)
	if len(rows) == 0 {
		return
	}
	most := 60
	if width > 0 {
		most = nameWidth
		cols = slices.DeleteFunc(cols, func(c string) bool {
			for _, r := range rows {
				if v, ok := cell[[2]string{r, c}]; ok && v != clients.Skip {
					return false
				}
			}
			return true
		})
	}
	nw := 0
	for _, r := range rows {
		nw = max(nw, min(len([]rune(r)), most))
	}
	fmt.Fprintf(w, "matrix (. match  = converted  ~ erased  N inexpressible  X mismatch  C crash  H hang\n        D desync  E error  - skip):\n")
	for i, block := range matrixBlocks(rep, cols, nw+2, width) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		for j, c := range block {
			if width > 0 {
				c = shortLabel(c)
			}
			fmt.Fprintf(w, "%s%s %s\n", strings.Repeat(" ", nw+2), strings.Repeat("| ", j), c)
		}
		for _, r := range rows {
			line := fmt.Sprintf("%-*s  ", nw, clip(r, most))
			for _, c := range block {
				v, ok := cell[[2]string{r, c}]
				sym := " "
				if ok {
					sym = v.Symbol()
				}
				line += sym + " "
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
}

// shortLabel is a client's name cut to nameWidth in the middle, keeping
// its protocol ("phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_…]/resp2").
func shortLabel(c string) string {
	r := []rune(c)
	if len(r) <= nameWidth {
		return c
	}
	tail := r[len(r)-min(len(r), 7):] // "]/resp2"
	return string(r[:nameWidth-len(tail)-1]) + "…" + string(tail)
}

// matrixBlocks splits the matrix's columns into blocks whose staircase
// heading (each label after indent columns and two per column before it)
// fits width, a library's clients (ParseLabel's Library of their
// configuration) in one block where they fit; with width 0, one block.
func matrixBlocks(rep *clients.Report, cols []string, indent, width int) [][]string {
	fits := func(block []string) bool {
		for j, c := range block {
			if indent+2*j+1+len([]rune(shortLabel(c))) > width {
				return false
			}
		}
		return true
	}
	if width <= 0 || fits(cols) {
		return [][]string{cols}
	}
	var blocks [][]string
	var cur []string
	for i := 0; i < len(cols); {
		lib := clients.ParseLabel(rep.Client(cols[i]).Library).Library
		j := i + 1
		for j < len(cols) && clients.ParseLabel(rep.Client(cols[j]).Library).Library == lib {
			j++
		}
		if len(cur) > 0 && !fits(append(slices.Clip(cur), cols[i:j]...)) {
			blocks, cur = append(blocks, cur), nil
		}
		for _, c := range cols[i:j] {
			// A library too many for one block is split where it must.
			if len(cur) > 0 && !fits(append(slices.Clip(cur), c)) {
				blocks, cur = append(blocks, cur), nil
			}
			cur = append(cur, c)
		}
		i = j
	}
	return append(blocks, cur)
}

// ClientsMarkdown writes a clients report as a Markdown page: the server,
// the clients (library, version, API), the clients × cases matrix, and one
// line per result that is neither a match nor a skip, explaining it (the
// first note of its worst step, with the step's command). It is what
// docs/generated/client-matrix.md is made of.
func ClientsMarkdown(w io.Writer, rep *clients.Report, _ HumanOptions) error {
	sw := &stickyWriter{w: w}
	w = sw
	fmt.Fprintf(w, "# Client views on %s %s\n\n", rep.Server.Family, rep.Server.Version)
	fmt.Fprintf(w, "| client | version | API |\n|---|---|---|\n")
	for _, c := range rep.Clients {
		fmt.Fprintf(w, "| %s | %s | `%s` |\n", c.Name, c.Version, mdCell(c.API))
	}
	if rep.Cases != nil {
		fmt.Fprintf(w, "\n## The cases\n\nThe cases themselves, run as `respcheck run` runs them: %s.\n", summaryText(rep.Cases.Summary))
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
	clientsMatrix(w, rep, 0)
	fmt.Fprintf(w, "```\n\n## Findings and conversions\n\nOne line per result that is a mismatch, crash, hang, desync, error,\nconversion or inexpressible: the step's command and why.\n\n")
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
		rule := ""
		if r := res.Rule(); r != "" {
			rule = " (rule: " + r + ")"
		}
		fmt.Fprintf(w, "- **%s**%s `%s` [%s]: %s\n", res.Verdict, rule, res.Case.FullName(), res.Client, mdCell(explain(res)))
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
	return fmt.Sprintf("%s: %s; want %s, got %s", f.Where(), f.Message, short(f.Expected), short(resp.Escape(f.Actual)))
}

// explain is one line on why a result has its verdict: the command and the
// first note of its worst step, else the result's reason.
func explain(res *clients.Result) string {
	worst := worstStep(res)
	if worst == nil {
		return res.Reason
	}
	s := resp.EscapeCommand(worst.Args)
	if len(worst.Notes) > 0 {
		s += ": " + worst.Notes[0]
	}
	if worst.Canary != "" && worst.Canary != "ok" {
		s += "; canary: " + worst.Canary
	}
	return s
}

// worstStep is the first step of res with the result's verdict, or nil
// when none has it (the verdict is the result's own: its reason says why).
func worstStep(res *clients.Result) *clients.StepView {
	var worst *clients.StepView
	for i := range res.Steps {
		if worst == nil || res.Steps[i].Verdict > worst.Verdict {
			worst = &res.Steps[i]
		}
	}
	if worst == nil || worst.Verdict != res.Verdict {
		return nil
	}
	return worst
}

// finding is one line on a finding for the summary: where (the step's
// file:line:col, which names the case), the command's name, the rule that
// decided and why (the first note, and a canary that came back wrong);
// the case's name and reason when no step has the verdict.
func finding(res *clients.Result) string {
	worst := worstStep(res)
	if worst == nil {
		if r := res.Rule(); r != "" {
			return fmt.Sprintf("%s [%s]: %s (%s)", res.Case.Pos, r, res.Reason, res.Case.FullName())
		}
		return fmt.Sprintf("%s: %s (%s)", res.Case.Pos, res.Reason, res.Case.FullName())
	}
	s := worst.Step.Pos.String()
	if len(worst.Args) > 0 {
		s += " " + string(worst.Args[0])
	}
	if worst.Rule != "" {
		s += " [" + worst.Rule + "]"
	}
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
