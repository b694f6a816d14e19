package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

// HumanOptions tune the human format.
type HumanOptions struct {
	// Verbose lists passing and skipped results too, and every step of a
	// failing case rather than the failing one alone.
	Verbose bool
	// VeryVerbose is Verbose, and every step of every case that ran (passes
	// and known differences too) with the command sent and the reply's
	// bytes, escaped: what went over the wire.
	VeryVerbose bool
	// Color adds ANSI colours; set it only when writing to a terminal.
	Color bool
	// Streamed says every result was already written as it finished
	// (HumanResult): Human writes the lines about the run and the summary.
	Streamed bool
	// Matrix adds the cases × clients matrix to a clients report
	// (ClientsHuman), in blocks that fit 100 columns.
	Matrix bool
}

// HumanResult writes one result as Human does (with Verbose, passes and
// skips too): for a run that shows each case as it finishes.
func HumanResult(w io.Writer, res *runner.Result, o HumanOptions) error {
	o.Verbose = o.Verbose || o.VeryVerbose
	p := &printer{w: w, o: o}
	if !res.NotRun || o.Verbose {
		p.result(res)
	}
	return p.err
}

// Human writes one block per failing or erroring result (every result with
// Verbose), then a summary line "N passed, N failed, N skipped".
func Human(w io.Writer, rep *runner.Report, o HumanOptions) error {
	o.Verbose = o.Verbose || o.VeryVerbose
	p := &printer{w: w, o: o}
	notRun, reason := 0, ""
	for _, res := range rep.Results {
		if res.NotRun && !o.Verbose {
			notRun, reason = notRun+1, res.Reason
			continue
		}
		if !o.Streamed {
			p.result(res)
		}
	}
	if notRun > 0 {
		p.line(fmt.Sprintf("%s %s", Count(notRun, "result", "results"), reason))
	}
	if !o.Verbose {
		p.skipReasons(rep)
	}
	p.redirects(rep)
	p.restarts(rep.Restarts)
	if rep.ServerLost != nil {
		p.line(p.red("server lost: ") + rep.ServerLost.Error())
	}
	if len(rep.KeysLeft) > 0 {
		p.line(p.red("keys left: ") + fmt.Sprintf("the keys of %s could not be deleted; delete them with redis-cli --scan --pattern P | xargs redis-cli unlink, for each P of: %s",
			Count(len(rep.KeysLeft), "case", "cases"), strings.Join(rep.KeysLeft, " ")))
	}
	if rep.Schema != nil {
		rep.Schema.Write(p.w, o.Verbose) // run --check-schema
	}
	where := "at " + rep.Server.Addr
	if rep.Topology != nil {
		// A cluster says so: "cluster 3x1 at ADDR" (shards x replicas).
		where = "cluster " + rep.Topology.Shape() + " " + where
	}
	p.line(fmt.Sprintf("%s %s %s: %s%s (%.2fs)", rep.Server.Family, rep.Server.Version, where,
		summaryText(rep.Summary), knownNamed(rep.Results), rep.Duration.Seconds()))
	return p.err
}

// maxKnownNamed is how many known differences the summary line names.
const maxKnownNamed = 3

// knownNamed names the cases whose known differences held, for the
// summary line: " (strings/INCR overflow [RESP2, RESP3]; ...)", the
// first maxKnownNamed cases and then how many more; "" for none.
func knownNamed(results []*runner.Result) string {
	var names []string
	protos := map[string][]string{}
	for _, r := range results {
		if r.Status != runner.KnownDiff {
			continue
		}
		n := r.Case.FullName()
		if protos[n] == nil {
			names = append(names, n)
		}
		protos[n] = append(protos[n], fmt.Sprintf("RESP%d", r.Proto))
	}
	if len(names) == 0 {
		return ""
	}
	var parts []string
	for _, n := range names[:min(len(names), maxKnownNamed)] {
		parts = append(parts, n+" ["+strings.Join(protos[n], ", ")+"]")
	}
	if more := len(names) - maxKnownNamed; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// summaryText is a run's counts as its summary line says them: "230
// passed, 0 failed, 18 skipped", then the errors, the results not run and
// the known differences there are.
func summaryText(s runner.Summary) string {
	parts := []string{fmt.Sprintf("%d passed", s.Passed), fmt.Sprintf("%d failed", s.Failed), fmt.Sprintf("%d skipped", s.Skipped)}
	if s.Errors > 0 {
		parts = append(parts, Count(s.Errors, "error", "errors"))
	}
	if s.NotRun > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", s.NotRun))
	}
	if s.Known > 0 {
		parts = append(parts, Count(s.Known, "known difference", "known differences"))
	}
	return strings.Join(parts, ", ")
}

type printer struct {
	w   io.Writer
	o   HumanOptions
	err error
}

func (p *printer) line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}

func (p *printer) paint(code, s string) string {
	if !p.o.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
func (p *printer) red(s string) string    { return p.paint("31", s) }
func (p *printer) green(s string) string  { return p.paint("32", s) }
func (p *printer) yellow(s string) string { return p.paint("33", s) }
func (p *printer) dim(s string) string    { return p.paint("2", s) }

// restarts writes a line per server restarted, but one line for all the
// restarts after known crashes (runner.KnownCrashRestart): crashes the
// cases declare, which print no log.
func (p *printer) restarts(rs []string) {
	var known []string
	for _, r := range rs {
		if k, ok := strings.CutPrefix(r, runner.KnownCrashRestart); ok {
			known = append(known, k)
			continue
		}
		p.line(p.red("server restarted: ") + r)
	}
	switch len(known) {
	case 0:
	case 1:
		p.line("server restarted: " + runner.KnownCrashRestart + known[0])
	default:
		p.line(fmt.Sprintf("server restarted %d times after known crashes: %s", len(known), strings.Join(known, " | ")))
	}
}

// title is how a result is named in every format: "file/case [RESP2]".
func title(res *runner.Result) string {
	return fmt.Sprintf("%s [RESP%d]", res.Case.FullName(), res.Proto)
}

func (p *printer) result(res *runner.Result) {
	title := title(res)
	if p.o.Verbose && len(res.Metrics) > 0 { // a scenario's figures, under its line
		defer p.line("      " + p.dim(res.Metrics.String()))
	}
	switch res.Status {
	case runner.Pass:
		if p.o.Verbose {
			p.line(p.green("pass ") + " " + title)
		}
		p.wire(res)
		return
	case runner.Skip:
		if p.o.Verbose {
			p.line(p.yellow("skip ") + " " + title + p.dim(" ("+res.Reason+")"))
		}
		return
	case runner.KnownDiff:
		if p.o.Verbose {
			p.line(p.yellow("known") + " " + title + p.dim(" (known difference: "+res.Reason+")"))
		}
		p.wire(res)
		return
	case runner.Error:
		p.line(p.red("ERROR") + " " + title)
		p.line("      " + res.Reason)
	case runner.Fail:
		p.line(p.red("FAIL ") + " " + title)
		if res.Failure == nil {
			p.line("      " + res.Reason)
		}
	}
	steps := res.Steps
	switch {
	case p.o.Verbose:
	case res.Failure != nil:
		// The step that failed: the case may have gone on after it.
		steps = []runner.StepResult{stepOf(res, res.Failure)}
	case len(steps) > 0:
		steps = steps[len(steps)-1:]
	}
	for _, sr := range steps {
		p.step(sr)
	}
	if f := res.Failure; f != nil {
		p.failure(f)
	}
	p.more(res)
}

// maxMoreShown is how many of a continue_on_failure case's later
// failures the human report writes out (Verbose: all); the groups
// (runner.Result.Differences) count every one.
const maxMoreShown = 9

// more writes the later failures of a case that went on after its first
// (runner.Result.More), then its failures grouped by command and kind.
func (p *printer) more(res *runner.Result) {
	if len(res.More) == 0 {
		return
	}
	shown := res.More
	if !p.o.Verbose && len(shown) > maxMoreShown {
		shown = shown[:maxMoreShown]
	}
	for _, f := range shown {
		if !p.o.Verbose {
			p.step(stepOf(res, f))
		}
		p.failure(f)
	}
	if left := len(res.More) - len(shown); left > 0 {
		p.line(fmt.Sprintf("      … %s (-v shows every one)", Count(left, "more failing step", "more failing steps")))
	}
	p.line(fmt.Sprintf("      %s, by command and kind:", Count(1+len(res.More), "failing step", "failing steps")))
	for _, d := range res.Differences() {
		p.line(fmt.Sprintf("      %6d× %s: %s (first at %s)", d.Count, d.Command, d.Kind, d.First))
	}
}

// failure writes where f is, its message, and the expected and actual
// bytes around the first that differs.
func (p *printer) failure(f *runner.Failure) {
	p.line(fmt.Sprintf("      %s: %s", f.Where(), f.Message))
	if f.ExpectedBytes != nil && f.Offset >= 0 {
		p.line(aroundOffset("      want: ", f.ExpectedBytes, f.Offset)[0])
	} else {
		p.line("      want: " + short(f.Expected))
	}
	if cli := CLI(f.ExpectedBytes); cli != "" {
		p.line(indent("            ", short(cli)))
	}
	for _, l := range aroundOffset("       got: ", f.Actual, f.Offset) {
		p.line(l)
	}
	if cli := CLI(f.Actual); cli != "" {
		p.line(indent("            ", short(cli)))
	}
}

// stepOf is the result of the step f failed at (the last one run for
// that step: a step may repeat in a scenario), or one naming only it.
func stepOf(res *runner.Result, f *runner.Failure) runner.StepResult {
	for i := len(res.Steps) - 1; i >= 0; i-- {
		if res.Steps[i].Step == f.Step {
			return res.Steps[i]
		}
	}
	return runner.StepResult{Step: f.Step, Conn: "default"}
}

// wire writes every step of a case that did not fail, with VeryVerbose.
func (p *printer) wire(res *runner.Result) {
	if p.o.VeryVerbose {
		for _, sr := range res.Steps {
			p.step(sr)
		}
	}
}

func (p *printer) step(sr runner.StepResult) {
	prefix := fmt.Sprintf("      %s ", sr.Step.Pos)
	if sr.Conn != "default" {
		prefix += "[" + sr.Conn + "] "
	}
	switch {
	case sr.Args != nil:
		p.line(prefix + "> " + resp.EscapeCommand(sr.Args))
	case sr.Sent != nil:
		p.line(prefix + "> raw " + resp.Escape(sr.Sent))
	default:
		p.line(prefix + "> " + sr.Step.Action.String())
	}
	for _, push := range sr.Pushes {
		p.line("        push " + resp.Escape(push))
	}
	if sr.Reply != nil && p.o.Verbose {
		p.line("        < " + resp.Escape(sr.Reply))
	}
}

// CLI renders reply bytes as redis-cli text, or "" if they are not one
// complete frame (a truncated or malformed reply).
func CLI(b []byte) string {
	n, v, err := resp.Parse(b)
	if err != nil || n == 0 {
		return ""
	}
	return v.CLI()
}

// offsetContext is how many bytes aroundOffset shows before the first
// differing byte of a long reply (and twice as many after it).
const offsetContext = 32

// aroundOffset renders b escaped after label and, when off is a byte of
// b (or its end), a second line with a caret under that byte: "^ byte
// N". A rendering longer than maxShown shows offsetContext bytes before
// off and twice as many after, "…" marking what it leaves out.
func aroundOffset(label string, b []byte, off int) []string {
	esc := resp.Escape(b)
	if off < 0 || off > len(b) {
		return []string{label + short(esc)}
	}
	lead, start, end := "", 0, len(b)
	if len(esc) > maxShown {
		start, end = max(0, off-offsetContext), min(len(b), off+2*offsetContext)
		if start > 0 {
			lead = fmt.Sprintf("…(%d bytes) ", start)
		}
	}
	text := label + lead + resp.Escape(b[start:end])
	if end < len(b) {
		text += fmt.Sprintf(" …(%d more bytes)", len(b)-end)
	}
	col := utf8.RuneCountInString(label+lead) + len(resp.Escape(b[start:off])) - 1
	return []string{text, strings.Repeat(" ", col) + fmt.Sprintf("^ byte %d", off)}
}

// maxShown is the most characters of one escaped reply or expectation the
// human report prints (the JSON report and goldens keep more).
const maxShown = 2048

// short cuts s to maxShown characters, saying how much was left out.
func short(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + fmt.Sprintf("…(%d more characters)", len(s)-maxShown)
}

// indent puts prefix before every line of s, a trailing newline dropped.
func indent(prefix, s string) string { return prefix + continued(prefix, s) }

// continued is s, a trailing newline dropped, with prefix before every line
// but the first (which goes after a label).
func continued(prefix, s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// redirects lists every MOVED and ASK reply the run followed on a cluster
// (runner.Redirect): a finding about the topology, whatever the status.
func (p *printer) redirects(rep *runner.Report) {
	for _, res := range rep.Results {
		for _, sr := range res.Steps {
			for _, r := range sr.Redirects {
				p.line(p.yellow("redirect: ") + fmt.Sprintf("%s at %s [%s]: %s, followed to %s", title(res), sr.Step.Pos, sr.Conn, r.Reply, r.Node))
				if r.Refresh != "" {
					p.line(p.yellow("topology: ") + r.Refresh)
				}
			}
		}
	}
}

// maxSkipReasons is how many skip reasons the summary lists without -v.
const maxSkipReasons = 8

// skipReasons summarises the skips by reason, most frequent first (-v
// lists each case with its reason instead).
func (p *printer) skipReasons(rep *runner.Report) {
	count := map[string]int{}
	for _, res := range rep.Results {
		if res.Status == runner.Skip && !res.NotRun {
			first, _, _ := strings.Cut(res.Reason, "\n")
			count[first]++
		}
	}
	reasons := slices.SortedFunc(maps.Keys(count), func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	for i, r := range reasons {
		if i == maxSkipReasons {
			p.line(p.dim(fmt.Sprintf("skipped: %d more reasons (-v lists every case)", len(reasons)-i)))
			break
		}
		p.line(p.dim(fmt.Sprintf("skipped: %d × %s", count[r], r)))
	}
}

// Count is n followed by the singular or plural noun: "1 error", "2 errors".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, cases.Plural(n, one, many))
}
