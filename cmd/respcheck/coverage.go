package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/coverage"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

const coverageLong = `Coverage lists every command and container subcommand the target's
COMMAND DOCS knows, with the number of cases and steps of the case files
(by default the bundled suite) that send it and the protocols those cases
run in, and the entries no case sends. Nothing is sent but COMMAND DOCS
and INFO: the cases are read, not run.

With --golden DIR the commands counted are those a golden directory
recorded (respcheck record): every command each recorded step sent, in
the protocols it was recorded in; the target is then by default a
throwaway server of the build the directory was recorded from. Its RESP3
replies are also checked against the build's reply schemas (respcheck
schema), and the oneOf/anyOf branches of each command's schema that no
reply took are counted ("reply-schema branches"; -v lists them per
command, the JSON under schema_branches); when the build's schemas are
not installed (scripts/install-schemas.sh) the output says so and goes on.

A container command (CLIENT, CONFIG, OBJECT, ...) counts by its
subcommands; a step counts for the command its first argument names, with
the second for a container (CLIENT LIST), and raw steps holding a command
array count too. The human output groups the entries by command group
(-v: one line per command); --format json gives every entry.

Exit status: 0, or 1 when the share of entries sent is under
--fail-under PCT; 2 usage or case-file error; 3 the server could not be
reached or started.`

// coverageFlags are the flags of respcheck coverage.
type coverageFlags struct {
	targetFlags
	format    string
	out       string
	failUnder float64
	verbose   bool
	golden    string
	vars      []string
}

func (f *coverageFlags) register(fl *pflag.FlagSet) {
	f.targetFlags.register(fl)
	formatFlag(fl, &f.format, report.CoverageReports)
	fl.StringVarP(&f.out, "out", "o", "", "write the output to `file` instead of stdout")
	fl.Float64Var(&f.failUnder, "fail-under", 0, "exit 1 when less than this `percent` of the commands and subcommands is sent")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "one line per command instead of one per group")
	registerVars(fl, &f.vars)
	fl.StringVar(&f.golden, "golden", "", "count the commands this golden `directory` recorded instead of the case files'")
}

func newCoverageCmd() *cobra.Command {
	return newCommand("coverage [flags] [files or dirs...]", "List the server's commands and how many cases send each",
		coverageLong, nil, runCoverage)
}

func runCoverage(ctx context.Context, stdout, stderr io.Writer, f coverageFlags, paths []string) error {
	format, err := reportFormat(f.format, report.CoverageReports)
	if err != nil {
		return err
	}
	if f.failUnder < 0 || f.failUnder > 100 {
		return usageErr("bad --fail-under %v: want a percent from 0 to 100", f.failUnder)
	}
	measure, err := coverageSource(&f, paths)
	if err != nil {
		return err
	}
	t, stopServer, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer stopServer()
	t.printNotes(stderr)
	tg, err := target.Open(ctx, t.Config)
	if err != nil {
		return serverErr(err)
	}
	c, err := t.Config.Dial(ctx, 2)
	if err != nil {
		return serverErr(fmt.Errorf("%s: %w", t.Addr, err))
	}
	defer c.Close()
	docs, err := coverage.Docs(c)
	if err != nil {
		return serverErr(fmt.Errorf("%s: %w", t.Addr, err))
	}
	rep := measure(tg.Server.Family+" "+tg.Server.Version, docs)
	var buf bytes.Buffer
	if format.Name == "json" {
		err = coverage.WriteJSON(&buf, rep)
	} else {
		err = coverage.WriteHuman(&buf, rep, f.verbose)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(stdout, f.out, buf.Bytes(), false); err != nil {
		return err
	}
	if rep.Percent < f.failUnder {
		return &exitError{code: exitFindings, err: fmt.Errorf("%.1f%% of %s's commands and subcommands sent, under --fail-under %v", rep.Percent, rep.Server, f.failUnder)}
	}
	return nil
}

// coverageSource loads what coverage counts: the case files of paths, or
// the golden directory of --golden (whose build becomes the default
// target when none is named).
func coverageSource(f *coverageFlags, paths []string) (func(server string, docs []coverage.Command) *coverage.Report, error) {
	if f.golden == "" {
		files, err := loadFiles(paths, f.vars...)
		if err != nil {
			return nil, err
		}
		return func(server string, docs []coverage.Command) *coverage.Report {
			return coverage.Measure(server, docs, files)
		}, nil
	}
	if len(paths) > 0 {
		return nil, usageErr("give case files or --golden DIR, not both")
	}
	d, err := golden.Load(f.golden)
	if err != nil {
		return nil, usageErr("--golden: %v", err)
	}
	if len(d.Files) == 0 {
		return nil, usageErr("--golden %s holds no golden files", f.golden)
	}
	if !f.named() && f.server == "" && f.serverBin == "" && d.Server.Family != "" {
		f.server = d.Build()
	}
	return func(server string, docs []coverage.Command) *coverage.Report {
		rep := coverage.MeasureGolden(server, docs, d)
		rep.Branches = coverage.GoldenBranches(d)
		return rep
	}, nil
}
