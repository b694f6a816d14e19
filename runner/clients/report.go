package clients

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

// HumanOptions tune Human.
type HumanOptions struct {
	// Verbose adds every step of every non-matching result and the wire
	// transcripts (handshakes and pushes included).
	Verbose bool
}

// Human writes the findings, then the clients × cases matrix and a
// summary.
func Human(w io.Writer, rep *Report, o HumanOptions) error {
	fmt.Fprintf(w, "server: %s %s at %s\n", rep.Server.Family, rep.Server.Version, rep.Server.Addr)
	fmt.Fprintf(w, "clients:")
	for _, c := range rep.Clients {
		fmt.Fprintf(w, " %s(%s)", c.Name, c.Version)
	}
	fmt.Fprintln(w)
	for _, res := range rep.Results {
		if res.Verdict < Mismatch && !(o.Verbose && res.Verdict == Erased) && !(res.Verdict == Skip && res.Reason != "" && o.Verbose) {
			continue
		}
		fmt.Fprintf(w, "\n%s  %s  [%s]", strings.ToUpper(res.Verdict.String()), runner.FullName(res.Case), res.Client)
		if res.Reason != "" {
			fmt.Fprintf(w, "  (%s)", res.Reason)
		}
		fmt.Fprintln(w)
		for _, sv := range res.Steps {
			if sv.Verdict == Match && !o.Verbose || sv.Verdict == Skip && !o.Verbose {
				continue
			}
			writeStep(w, sv)
		}
		if o.Verbose {
			writeWire(w, res.Wire)
		}
	}
	fmt.Fprintln(w)
	writeMatrix(w, rep)
	counts := map[Verdict]int{}
	for _, res := range rep.Results {
		counts[res.Verdict]++
	}
	var parts []string
	for v := Skip; v <= Desync; v++ {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(w, "\n%d results: %s (%.1fs)\n", len(rep.Results), strings.Join(parts, ", "), rep.Duration.Seconds())
	return nil
}

func writeStep(w io.Writer, sv StepView) {
	fmt.Fprintf(w, "  step %s (conn %s) %s: %s", sv.Step.Pos, sv.Conn, FormatArgs(sv.Args), sv.Verdict)
	if sv.Typed != "" {
		fmt.Fprintf(w, " via %s", sv.Typed)
	}
	fmt.Fprintln(w)
	if sv.Reply != nil {
		fmt.Fprintf(w, "    bytes received: %s\n", resp.Escape(sv.Reply))
		if _, v, err := resp.Parse(sv.Reply); err == nil {
			fmt.Fprintf(w, "    redis-cli:      %s\n", strings.ReplaceAll(strings.TrimRight(v.CLI(), "\n"), "\n", "\n                    "))
		}
	}
	for _, p := range sv.Pushes {
		fmt.Fprintf(w, "    push before:    %s\n", resp.Escape(p))
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

func writeWire(w io.Writer, conns []WireConn) {
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
			if e.Dir == ToClient {
				arrow = "←"
			}
			fmt.Fprintf(w, "    %s %s\n", arrow, s)
		}
	}
}

// Matrix returns the worst verdict per case (rows, "file/name") and client
// (columns), in report order.
func Matrix(rep *Report) (rows []string, cols []string, cell map[[2]string]Verdict) {
	cell = map[[2]string]Verdict{}
	seenR, seenC := map[string]bool{}, map[string]bool{}
	for _, res := range rep.Results {
		r, c := runner.FullName(res.Case), res.Client
		if !seenR[r] {
			seenR[r] = true
			rows = append(rows, r)
		}
		if !seenC[c] {
			seenC[c] = true
			cols = append(cols, c)
		}
		k := [2]string{r, c}
		if old, ok := cell[k]; !ok || res.Verdict > old {
			cell[k] = res.Verdict
		}
	}
	return rows, cols, cell
}

func writeMatrix(w io.Writer, rep *Report) {
	rows, cols, cell := Matrix(rep)
	if len(rows) == 0 {
		return
	}
	width := 0
	for _, r := range rows {
		width = max(width, min(len(r), 60))
	}
	fmt.Fprintf(w, "matrix (. match  ~ erased  X mismatch  C crash  H hang  D desync  - skip):\n")
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

// JSONReport is the JSON form of a Report.
type JSONReport struct {
	Server   Server         `json:"server"`
	Clients  []ClientInfo   `json:"clients"`
	Worst    Verdict        `json:"worst"`
	Counts   map[string]int `json:"counts"`
	Results  []JSONResult   `json:"results"`
	Duration float64        `json:"duration_seconds"`
}

// JSONResult is one case through one client.
type JSONResult struct {
	ID      string     `json:"id"`
	Name    string     `json:"name"`
	Client  string     `json:"client"`
	Proto   int        `json:"proto"`
	Verdict Verdict    `json:"verdict"`
	Reason  string     `json:"reason,omitempty"`
	Steps   []JSONStep `json:"steps,omitempty"`
	Wire    []JSONWire `json:"wire,omitempty"`
}

// JSONStep is one step's view.
type JSONStep struct {
	Pos     string      `json:"pos"`
	Conn    string      `json:"conn"`
	Command string      `json:"command,omitempty"`
	Wire    string      `json:"wire,omitempty"`
	Reply   string      `json:"reply,omitempty"`
	CLI     string      `json:"reply_cli,omitempty"`
	Value   *resp.Value `json:"reply_value,omitempty"`
	Pushes  []string    `json:"pushes,omitempty"`
	Native  *Native     `json:"decoded,omitempty"`
	Verdict Verdict     `json:"verdict"`
	Notes   []string    `json:"notes,omitempty"`
	Canary  string      `json:"canary,omitempty"`
	Typed   string      `json:"typed_wrapper,omitempty"`
}

// JSONWire is one proxied connection's transcript, handshake included.
type JSONWire struct {
	Conn   int         `json:"conn"`
	Frames []JSONFrame `json:"frames"`
}

// JSONFrame is one recorded frame.
type JSONFrame struct {
	Dir   Dir    `json:"dir"`
	Bytes string `json:"bytes"`
	Kind  string `json:"kind,omitempty"`
	Bad   bool   `json:"not_resp,omitempty"`
}

// ToJSON converts a report.
func ToJSON(rep *Report) JSONReport {
	jr := JSONReport{Server: rep.Server, Clients: rep.Clients, Worst: rep.Worst(), Counts: map[string]int{},
		Duration: rep.Duration.Seconds()}
	for _, res := range rep.Results {
		jr.Counts[res.Verdict.String()]++
		r := JSONResult{ID: res.Case.ID(), Name: runner.FullName(res.Case), Client: res.Client, Proto: res.Proto,
			Verdict: res.Verdict, Reason: res.Reason}
		for _, sv := range res.Steps {
			js := JSONStep{Pos: sv.Step.Pos.String(), Conn: sv.Conn, Native: sv.Native, Verdict: sv.Verdict,
				Notes: sv.Notes, Canary: sv.Canary, Typed: sv.Typed}
			if sv.Args != nil {
				js.Command = FormatArgs(sv.Args)
			}
			if sv.Wire != nil {
				js.Wire = resp.Escape(sv.Wire)
			}
			if sv.Reply != nil {
				js.Reply = resp.Escape(sv.Reply)
				if _, v, err := resp.Parse(sv.Reply); err == nil {
					js.CLI = v.CLI()
					vv := v.Clone()
					js.Value = &vv
				}
			}
			for _, p := range sv.Pushes {
				js.Pushes = append(js.Pushes, resp.Escape(p))
			}
			r.Steps = append(r.Steps, js)
		}
		for _, c := range res.Wire {
			jw := JSONWire{Conn: c.ID}
			for _, e := range c.Events {
				f := JSONFrame{Dir: e.Dir}
				if e.Bad != nil {
					f.Bytes, f.Bad = resp.Escape(e.Bad), true
				} else {
					f.Bytes, f.Kind = resp.Escape(e.Value.Raw), e.Value.Kind.String()
				}
				jw.Frames = append(jw.Frames, f)
			}
			r.Wire = append(r.Wire, jw)
		}
		jr.Results = append(jr.Results, r)
	}
	return jr
}

// JSON writes the report as indented JSON.
func JSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ToJSON(rep))
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	Failure   *junitFail `xml:"failure,omitempty"`
	Skipped   *junitSkip `xml:"skipped,omitempty"`
	SystemOut string     `xml:"system-out,omitempty"`
}

type junitFail struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkip struct {
	Message string `xml:"message,attr"`
}

// JUnit writes one test suite per client, one test case per case; findings
// are failures, erased results pass with their notes in system-out.
func JUnit(w io.Writer, rep *Report) error {
	bySuite := map[string]*junitSuite{}
	var order []string
	top := junitSuites{Name: "respcheck clients"}
	for _, res := range rep.Results {
		s := bySuite[res.Client]
		if s == nil {
			s = &junitSuite{Name: res.Client}
			bySuite[res.Client] = s
			order = append(order, res.Client)
		}
		jc := junitCase{Name: runner.FullName(res.Case), Classname: res.Client}
		var b strings.Builder
		for _, sv := range res.Steps {
			if sv.Verdict > Match {
				writeStep(&b, sv)
			}
		}
		switch {
		case res.Verdict.Finding():
			jc.Failure = &junitFail{Message: res.Verdict.String(), Type: res.Verdict.String(), Text: b.String()}
			s.Failures++
		case res.Verdict == Skip && res.Reason != "":
			jc.Skipped = &junitSkip{Message: res.Reason}
			s.Skipped++
		default:
			jc.SystemOut = b.String()
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	for _, n := range order {
		s := bySuite[n]
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Skipped += s.Skipped
		top.Suites = append(top.Suites, *s)
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
