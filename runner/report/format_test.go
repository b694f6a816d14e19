package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func names(fs []Format) string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return strings.Join(n, " ")
}

func TestRegistry(t *testing.T) {
	if got := names(Formats(RunReports)); got != "human json junit jsonl tap" {
		t.Errorf("run formats: %s", got)
	}
	if got := names(Formats(ClientsReports)); got != "human json junit markdown" {
		t.Errorf("clients formats: %s", got)
	}
	if got := Choices(RunReports); got != "human, json, junit, jsonl or tap" {
		t.Errorf("run choices: %q", got)
	}
	if got := Choices(ClientsReports); got != "human, json, junit or markdown" {
		t.Errorf("clients choices: %q", got)
	}
	if _, ok := Lookup("tap", ClientsReports); ok {
		t.Error("tap found for clients reports, which it cannot write")
	}
	if _, ok := Lookup("markdown", RunReports); ok {
		t.Error("markdown found for run reports, which it cannot write")
	}
	if _, ok := Lookup("nope", RunReports); ok {
		t.Error(`"nope" found`)
	}
	// The one-document reports (bench, coverage, diff, schema, the
	// client list) are human or json, and bench takes "text" for human.
	for _, k := range []Kind{BenchReports, CoverageReports, DiffReports, SchemaReports, ClientListReports} {
		if got := Choices(k); got != "human or json" {
			t.Errorf("kind %d: choices %q, want human or json", k, got)
		}
		if f, ok := Lookup("text", k); ok != (k == BenchReports) || ok && f.Name != "human" {
			t.Errorf("kind %d: text is %v %v, want human for bench only", k, f.Name, ok)
		}
	}
	if _, ok := Lookup("text", RunReports); ok {
		t.Error("text found for run reports")
	}
	for _, f := range Formats(RunReports) {
		if f.Description == "" || strings.Contains(f.Description, "\n") {
			t.Errorf("%s: description %q, want one line", f.Name, f.Description)
		}
	}
}

// TestRegistryWriters: each registered writer is the format's own writer,
// with the options passed on to the human ones.
func TestRegistryWriters(t *testing.T) {
	rep, crep := runReport(t), clientsReport(t)
	o := HumanOptions{Verbose: true}
	run := map[string]func(io.Writer) error{
		"human": func(w io.Writer) error { return Human(w, rep, o) },
		"json":  func(w io.Writer) error { return JSON(w, rep) },
		"junit": func(w io.Writer) error { return JUnit(w, rep) },
		"jsonl": func(w io.Writer) error { return jsonl(w, rep, o) },
		"tap":   func(w io.Writer) error { return TAP(w, rep) },
	}
	cl := map[string]func(io.Writer) error{
		"human":    func(w io.Writer) error { return ClientsHuman(w, crep, o) },
		"json":     func(w io.Writer) error { return ClientsJSON(w, crep) },
		"junit":    func(w io.Writer) error { return clientsJUnit(w, crep) },
		"markdown": func(w io.Writer) error { return ClientsMarkdown(w, crep, o) },
	}
	for _, k := range []Kind{RunReports, ClientsReports} {
		want := run
		if k == ClientsReports {
			want = cl
		}
		for _, f := range Formats(k) {
			var got bytes.Buffer
			var err error
			if k == RunReports {
				err = f.Run(&got, rep, o)
			} else {
				err = f.Clients(&got, crep, o)
			}
			w := write(t, func(b *bytes.Buffer) error { return want[f.Name](b) })
			if err != nil || got.String() != w || w == "" {
				t.Errorf("kind %d, %s: the registry's writer wrote %d bytes (%v), the format's writer %d", k, f.Name, got.Len(), err, len(w))
			}
		}
	}
}
