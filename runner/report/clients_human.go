package report

import (
	"fmt"
	"io"
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
	for _, res := range rep.Results {
		if res.Verdict < clients.Mismatch && !(o.Verbose && res.Verdict == clients.Erased) && !(res.Verdict == clients.Skip && res.Reason != "" && o.Verbose) {
			continue
		}
		fmt.Fprintf(w, "\n%s  %s  [%s]", strings.ToUpper(res.Verdict.String()), runner.FullName(res.Case), rep.Client(res.Client).Label())
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
	fmt.Fprintln(w)
	clientsMatrix(w, rep)
	counts := map[clients.Verdict]int{}
	for _, res := range rep.Results {
		counts[res.Verdict]++
	}
	var parts []string
	for v := clients.Skip; v <= clients.Error; v++ {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(w, "\n%d results: %s (%.1fs)\n", len(rep.Results), strings.Join(parts, ", "), rep.Duration.Seconds())
	return sw.err
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
	if sv.Canary != "" {
		fmt.Fprintf(w, "    canary: %s\n", sv.Canary)
	}
}

// clientsWire writes the proxy's transcript of each connection, one frame
// a line, escaped and cut at 160 characters.
func clientsWire(w io.Writer, conns []clients.WireConn) {
	for _, c := range conns {
		fmt.Fprintf(w, "  wire, connection %d:\n", c.ID)
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
		}
	}
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
