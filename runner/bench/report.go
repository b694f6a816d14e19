package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/respcheck/respcheck/runner/target"
)

// Report is the outcome of a bench run.
type Report struct {
	Server  target.Server `json:"server"`
	Proto   int           `json:"proto"`
	Machine machine       `json:"machine"`
	// Link describes the network between the bench and the server:
	// "loopback" or the injected latency, jitter and bandwidth
	// (LinkConfig.String).
	Link string `json:"link"`
	// RTT is the round trip of a PING on the bench's connection, in ms,
	// measured before the tables.
	RTT Stat `json:"rtt_ms"`
	// Config lists the server parameters that matter, "name=value"
	// (see configParams), or what INFO says where CONFIG is refused.
	Config     []string      `json:"config"`
	Trials     int           `json:"trials"`
	Warmup     int           `json:"warmup"`
	Started    time.Time     `json:"started"`
	Duration   time.Duration `json:"-"`
	DurationMS float64       `json:"duration_ms"`
	Tables     []*Table      `json:"tables"`
}

// Table is one experiment.
type Table struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Unit      string   `json:"unit"` // of every Stat's figures: "ms", "µs per item"
	Note      string   `json:"note,omitempty"`
	RowHeader string   `json:"row_header"`
	Columns   []string `json:"columns"`
	Rows      []Row    `json:"rows"`
	// ShowBytes prints the bytes on the wire per operation under the table.
	ShowBytes bool `json:"-"`
	// Trials, if not 0, is this table's number of trials per cell where it
	// differs from the report's (a contention trial is a whole run).
	Trials int `json:"trials,omitempty"`
	// Bars draws the table's chart panel as bars on a linear axis (rows
	// that are variants, cells that may be 0).
	Bars bool `json:"-"`
	// Claims are the seed articles' orderings for this table, each judged
	// on its medians (articleClaims): informational, never a pass or fail.
	Claims []Claim `json:"claims,omitempty"`
}

// Row is one size, batch size or variant.
type Row struct {
	Label string  `json:"label"`
	X     float64 `json:"x"` // the size or batch size; the index for variants
	Cells []Stat  `json:"cells"`
}

// Stat summarises the trials of one cell, in its table's unit.
type Stat struct {
	// Supported is false when the server lacks the method; Note says so.
	Supported bool    `json:"supported"`
	Note      string  `json:"note,omitempty"`
	N         int     `json:"n"`
	Median    float64 `json:"median"`
	P10       float64 `json:"p10"`
	P90       float64 `json:"p90"`
	// MAD is the median absolute deviation from the median.
	MAD float64 `json:"mad"`
	// RequestBytes and ReplyBytes are the bytes written and read per
	// operation (per item in the batch table).
	RequestBytes float64 `json:"request_bytes"`
	ReplyBytes   float64 `json:"reply_bytes"`
}

// summarize computes a Stat of xs.
func summarize(xs []float64) Stat {
	s := Stat{Supported: true, N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	s.Median = quantile(xs, 0.5)
	s.P10, s.P90 = quantile(xs, 0.1), quantile(xs, 0.9)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - s.Median)
	}
	slices.Sort(dev)
	s.MAD = quantile(dev, 0.5)
	return s
}

// quantile interpolates linearly between the closest ranks of sorted xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i] + f*(xs[i+1]-xs[i])
}

// machine describes where the bench ran.
type machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	CPUModel   string `json:"cpu_model,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// ClientCPUs and ServerCPUs are the CPUs each process may run on
	// (Cpus_allowed_list on Linux), empty when unknown.
	ClientCPUs string `json:"client_cpus,omitempty"`
	ServerCPUs string `json:"server_cpus,omitempty"`
	// Pinned reports that the client or the server is restricted to fewer
	// CPUs than the machine has.
	Pinned bool `json:"pinned"`
}

func newMachine(serverPID int) machine {
	m := machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	all := 0
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		all = cpuCount(strings.TrimSpace(string(b)))
	}
	m.ClientCPUs = allowedCPUs("self")
	if serverPID > 0 {
		m.ServerCPUs = allowedCPUs(strconv.Itoa(serverPID))
	}
	for _, l := range []string{m.ClientCPUs, m.ServerCPUs} {
		if l != "" && all > 0 && cpuCount(l) < all {
			m.Pinned = true
		}
	}
	return m
}

func allowedCPUs(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// cpuCount counts the CPUs of a list such as "0-3,6".
func cpuCount(list string) int {
	n := 0
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 == nil && err2 == nil && b >= a {
			n += b - a + 1
		}
	}
	return n
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	r.DurationMS = float64(r.Duration.Microseconds()) / 1000
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Describe returns the header lines of the text report: server, machine
// and trials.
func (r *Report) Describe() []string {
	m := r.Machine
	mach := fmt.Sprintf("machine: %s/%s, %d CPUs", m.OS, m.Arch, m.CPUs)
	if m.CPUModel != "" {
		mach += " (" + m.CPUModel + ")"
	}
	if m.ClientCPUs != "" {
		mach += ", client on CPUs " + m.ClientCPUs
	}
	if m.ServerCPUs != "" {
		mach += ", server on CPUs " + m.ServerCPUs
	}
	if m.Pinned {
		mach += " (pinned)"
	} else {
		mach += " (not pinned)"
	}
	conf := "server config: " + strings.Join(r.Config, ", ")
	if len(r.Config) == 0 {
		conf = "server config: unknown"
	}
	return []string{
		fmt.Sprintf("server: %s %s at %s, RESP%d", r.Server.Family, r.Server.Version, r.Server.Addr, r.Proto),
		fmt.Sprintf("link: %s; PING round trip %s ms [%s-%s]", r.Link, figure(r.RTT.Median), figure(r.RTT.P10), figure(r.RTT.P90)),
		conf,
		mach,
		fmt.Sprintf("%d timed trials per cell after %d warm-up %s; a cell is median [p10-p90]", r.Trials, r.Warmup, map[bool]string{true: "trial", false: "trials"}[r.Warmup == 1]),
	}
}

// WriteText writes the tables as aligned text.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, l := range r.Describe() {
		fmt.Fprintln(tw, l)
	}
	for _, t := range r.Tables {
		if t.Trials > 0 {
			fmt.Fprintf(tw, "\n%s (%s; %d trials per cell)\n", t.Title, t.Unit, t.Trials)
		} else {
			fmt.Fprintf(tw, "\n%s (%s)\n", t.Title, t.Unit)
		}
		fmt.Fprintf(tw, "%s\t%s\n", t.RowHeader, strings.Join(t.Columns, "\t"))
		for _, row := range t.Rows {
			cells := make([]string, len(row.Cells))
			for i, c := range row.Cells {
				cells[i] = c.text()
			}
			fmt.Fprintf(tw, "%s\t%s\n", row.Label, strings.Join(cells, "\t"))
		}
		if t.ShowBytes {
			fmt.Fprintf(tw, "\nbytes on the wire per operation (request written / reply read)\n")
			fmt.Fprintf(tw, "%s\t%s\n", t.RowHeader, strings.Join(t.Columns, "\t"))
			for _, row := range t.Rows {
				cells := make([]string, len(row.Cells))
				for i, c := range row.Cells {
					cells[i] = "-"
					if c.Supported {
						cells[i] = fmt.Sprintf("%.0f / %.0f", c.RequestBytes, c.ReplyBytes)
					}
				}
				fmt.Fprintf(tw, "%s\t%s\n", row.Label, strings.Join(cells, "\t"))
			}
		}
		if t.Note != "" {
			fmt.Fprintf(tw, "note: %s\n", t.Note)
		}
		for _, c := range t.Claims {
			if c.Measured != "" {
				fmt.Fprintf(tw, "article %q: %s: %s (%s)\n", c.Article, c.Text, c.Holds, c.Measured)
			} else {
				fmt.Fprintf(tw, "article %q: %s: %s here\n", c.Article, c.Text, c.Holds)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return tw.Flush()
}

func (s Stat) text() string {
	if !s.Supported {
		return s.Note
	}
	return fmt.Sprintf("%s [%s-%s]", figure(s.Median), figure(s.P10), figure(s.P90))
}

// figure prints three significant digits at most, without exponent.
func figure(f float64) string {
	switch {
	case f >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f >= 10:
		return strconv.FormatFloat(f, 'f', 1, 64)
	case f >= 1:
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
