package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

// TAP writes TAP version 13: one test point per case and protocol; skips
// carry "# SKIP reason", known differences "# TODO known difference: …",
// and failures a YAML diagnostic block.
func TAP(w io.Writer, rep *runner.Report) error {
	var b strings.Builder
	b.WriteString("TAP version 13\n")
	fmt.Fprintf(&b, "1..%d\n", len(rep.Results))
	for i, res := range rep.Results {
		title := oneLine(strings.ReplaceAll(title(res), "#", `\#`))
		switch res.Status {
		case runner.Pass:
			fmt.Fprintf(&b, "ok %d - %s\n", i+1, title)
		case runner.Skip:
			fmt.Fprintf(&b, "ok %d - %s # SKIP %s\n", i+1, title, oneLine(res.Reason))
		case runner.KnownDiff:
			fmt.Fprintf(&b, "not ok %d - %s # TODO known difference: %s\n", i+1, title, oneLine(res.Reason))
		default:
			fmt.Fprintf(&b, "not ok %d - %s\n", i+1, title)
			b.WriteString("  ---\n")
			fmt.Fprintf(&b, "  status: %s\n", res.Status)
			fmt.Fprintf(&b, "  message: %q\n", res.Reason)
			if f := res.Failure; f != nil {
				fmt.Fprintf(&b, "  at: %q\n", f.Where().String())
				fmt.Fprintf(&b, "  wanted: %q\n", f.Expected)
				fmt.Fprintf(&b, "  found: %q\n", resp.Escape(f.Actual))
			}
			if len(res.More) > 0 {
				b.WriteString("  more:\n")
				for _, f := range res.More {
					fmt.Fprintf(&b, "    - at: %q\n      wanted: %q\n      found: %q\n", f.Where().String(), f.Expected, resp.Escape(f.Actual))
				}
			}
			b.WriteString("  ...\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine keeps a test point on one line: a newline in a case name or a
// reason would start a line TAP reads as its own.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
