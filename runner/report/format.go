package report

import (
	"io"
	"path"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// Format is one report format: its name (the value of --format), a
// one-line description for help texts, and its writers. Adding a format is
// one entry in the registry (Formats) and its writers in this package.
type Format struct {
	// Name is what --format takes: "human", "json"...
	Name string
	// Description is one line for the help texts.
	Description string
	// Ext is the file name extension (".json") that selects the format
	// for -o FILE when no --format is given; "" for none.
	Ext string
	// Run writes the report of respcheck run; nil where the format has
	// none.
	Run func(w io.Writer, rep *runner.Report, o HumanOptions) error
	// Clients writes the report of respcheck clients; nil where the format
	// has none.
	Clients func(w io.Writer, rep *clients.Report, o HumanOptions) error
	// Also lists the other kinds of report (bench, coverage, ...) that
	// the format is a --format of; their packages write them.
	Also []Kind
}

// Kind is which report a format is asked to write.
type Kind int

// The reports respcheck writes. Run and clients reports have their writers
// in the registry (Format.Run, Format.Clients); the others are one
// document each, written by their own package in the formats whose Also
// lists their kind (human and json).
const (
	RunReports        Kind = iota // respcheck run: cases against a server
	ClientsReports                // respcheck clients: cases through client libraries
	BenchReports                  // respcheck bench: the measurement tables
	CoverageReports               // respcheck coverage: commands and the cases that send them
	DiffReports                   // respcheck diff: two golden directories compared
	SchemaReports                 // respcheck schema: recorded replies against reply schemas
	ClientListReports             // respcheck clients --list-clients: the client configurations
)

// documents are the kinds written by their own package (see Kind).
var documents = []Kind{BenchReports, CoverageReports, DiffReports, SchemaReports, ClientListReports}

// Writes reports whether f writes reports of kind k.
func (f Format) Writes(k Kind) bool {
	switch k {
	case RunReports:
		return f.Run != nil
	case ClientsReports:
		return f.Clients != nil
	}
	return slices.Contains(f.Also, k)
}

// registry is every format, the default (human) first. The writers that
// take no options ignore them.
var registry = []Format{
	{Name: "human", Description: "text for a terminal: each finding at its file:line:col, then a summary",
		Run: Human, Clients: ClientsHuman, Also: documents},
	{Name: "json", Ext: ".json", Description: "one indented JSON document: every result and step (schema: runner/report/schema)",
		Run:     func(w io.Writer, rep *runner.Report, _ HumanOptions) error { return JSON(w, rep) },
		Clients: func(w io.Writer, rep *clients.Report, _ HumanOptions) error { return ClientsJSON(w, rep) },
		Also:    documents},
	{Name: "junit", Ext: ".xml", Description: "JUnit XML for CI: findings are failures, skips are skipped",
		Run:     func(w io.Writer, rep *runner.Report, _ HumanOptions) error { return JUnit(w, rep) },
		Clients: func(w io.Writer, rep *clients.Report, _ HumanOptions) error { return clientsJUnit(w, rep) }},
	{Name: "jsonl", Ext: ".jsonl", Description: "JSON lines as the run goes: a \"result\" line per case and protocol as it finishes, then a \"summary\" line (Event)",
		Run: jsonl},
	{Name: "tap", Ext: ".tap", Description: "TAP version 13: one test point per result, skips as # SKIP",
		Run: func(w io.Writer, rep *runner.Report, _ HumanOptions) error { return TAP(w, rep) }},
	{Name: "markdown", Ext: ".md", Description: "a Markdown page: clients, the verdict matrix, one line explaining each verdict but match and skip",
		Clients: ClientsMarkdown},
}

// Register adds a format to the registry, after the others: for writers
// in packages that import this one (runner/report/page registers html in
// its init). A name already registered panics.
func Register(f Format) {
	for _, o := range registry {
		if o.Name == f.Name {
			panic("report: format " + f.Name + " registered twice")
		}
	}
	registry = append(registry, f)
}

// Formats lists the formats that write reports of kind k, in registry
// order (human, the default, first).
func Formats(k Kind) []Format {
	var out []Format
	for _, f := range registry {
		if f.Writes(k) {
			out = append(out, f)
		}
	}
	return out
}

// Lookup returns the format called name if it writes reports of kind k.
// For bench, "text" (its human format's old name) is human.
func Lookup(name string, k Kind) (Format, bool) {
	if name == "text" && k == BenchReports {
		name = "human"
	}
	for _, f := range Formats(k) {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Choices names the formats of kind k for a help text or an error
// message: "human, json, junit or tap".
func Choices(k Kind) string {
	var names []string
	for _, f := range Formats(k) {
		names = append(names, f.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ForFile returns the format of kind k that a file name's extension
// selects (".json" json, ".xml" junit, ".tap" tap, ".md" markdown, and
// ".html" html where runner/report/page is linked in), and false for none.
func ForFile(name string, k Kind) (Format, bool) {
	ext := strings.ToLower(path.Ext(name))
	for _, f := range Formats(k) {
		if f.Ext != "" && f.Ext == ext {
			return f, true
		}
	}
	return Format{}, false
}
