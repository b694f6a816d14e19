package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/report"
)

// formatFlag registers --format, defaulting to human, for a command writing
// reports of kind k; its usage names the formats of the registry.
func formatFlag(fl *pflag.FlagSet, p *string, k report.Kind) {
	fl.StringVar(p, "format", "human", "report format: "+report.Choices(k))
	var names []string
	for _, f := range report.Formats(k) {
		names = append(names, f.Name)
	}
	choices(fl, "format", names...)
}

// outFlag registers -o for reports of kind k; its help lists the
// extensions that pick a format of that kind.
func outFlag(fl *pflag.FlagSet, p *string, k report.Kind) {
	var exts []string
	for _, f := range report.Formats(k) {
		if f.Ext != "" {
			exts = append(exts, f.Ext+" ("+f.Name+")")
		}
	}
	fl.StringVarP(p, "out", "o", "", "write the report to `file` (a human summary still goes to stdout); without --format, a name ending in "+strings.Join(exts, ", ")+" picks the format")
}

// reportFormat is the format --format names, or a usage error (exit 2)
// naming the formats that write reports of kind k.
func reportFormat(name string, k report.Kind) (report.Format, error) {
	f, ok := report.Lookup(name, k)
	if !ok {
		return f, usageErr("bad --format %q: want %s", name, report.Choices(k))
	}
	return f, nil
}

// formatsHelp lists the formats of kind k with their descriptions, for the
// end of a command's long help.
func formatsHelp(k report.Kind) string {
	formats := report.Formats(k)
	width := 0
	for _, f := range formats {
		width = max(width, len(f.Name))
	}
	lines := []string{"Report formats (--format):"}
	for _, f := range formats {
		lines = append(lines, fmt.Sprintf("  %-*s  %s", width, f.Name, f.Description))
	}
	return strings.Join(lines, "\n")
}
