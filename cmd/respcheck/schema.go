package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/schema"
)

const schemaLong = `Schema checks every RESP3 reply recorded in golden directories (respcheck
record) against the reply schemas of the build that recorded it: the
reply_schema of the server's own command files (src/commands/*.json of the
Redis or Valkey source tree), which scripts/install-schemas.sh extracts from
the cached source tarballs into ~/.cache/respcheck/schemas/<build>
($RESPCHECK_CACHE). Builds from binary packages (redis-7.0.15, valkey-8.0.1)
have none. Nothing is sent to a server.

A reply is mapped to JSON as Redis's own validator does
(utils/req-res-log-validator.py): map → object, set and push → array, double
→ number, big number and verbatim string → string, null → null; error replies
and +QUEUED are skipped (the schemas do not describe them), and each reply in
EXEC's array is checked against the queued command's schema. A container's
subcommand takes its own file (CLIENT LIST: client-list.json); arguments that
do not fit the command's arity have no schema.

Each reply that fits none of the schema's branches is printed with the
command, the reply escaped, the schema path that failed and each failing
check, then one line of counts per directory: replies checked, findings,
replies without a schema, replies skipped. RESP2 replies are not checked (the
schemas describe RESP3).

Exit status: 0 (findings included: a finding is a server or a schema bug to
read), 1 with --fail-on-findings when there is one, 2 usage error, a golden
directory that cannot be read, or no directory whose build's schemas are
installed (a directory without them is reported as such and the others are
checked).`

// schemaFlags are the flags of respcheck schema.
type schemaFlags struct {
	format  string
	dir     string
	verbose bool
	fail    bool
}

func (f *schemaFlags) register(fl *pflag.FlagSet) {
	formatFlag(fl, &f.format, report.SchemaReports)
	fl.StringVar(&f.dir, "schemas", "", "read the command files from this `directory` instead of the cache's schemas/<build>")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also list the commands without a schema and the schema branches no reply took")
	fl.BoolVar(&f.fail, "fail-on-findings", false, "exit 1 when a reply does not fit its schema")
}

func newSchemaCmd() *cobra.Command {
	return newCommand("schema [flags] GOLDEN-DIR...", "Check recorded RESP3 replies against the servers' reply schemas",
		schemaLong, cobra.MinimumNArgs(1), runSchema)
}

func runSchema(_ context.Context, stdout, _ io.Writer, f schemaFlags, dirs []string) error {
	format, err := reportFormat(f.format, report.SchemaReports)
	if err != nil {
		return err
	}
	var reps []*schema.Report
	var missing []error
	findings := 0
	for _, dir := range dirs {
		d, err := golden.Load(dir)
		if err != nil {
			return caseErr(err)
		}
		if len(d.Files) == 0 {
			return usageErr("%s holds no golden files (*.golden, written by respcheck record)", dir)
		}
		sdir := f.dir
		if sdir == "" {
			sdir = schema.Dir(d.Build())
		}
		set, err := schema.Load(sdir)
		if err != nil {
			// The other directories are still checked; the report says
			// why this one was not.
			missing = append(missing, fmt.Errorf("%s: %w", dir, err))
			rep := schema.NewReport(d.Build(), nil, err)
			rep.Source = dir
			reps = append(reps, rep)
			continue
		}
		rep := d.CheckSchemas(set)
		rep.Source = dir
		findings += len(rep.Findings)
		reps = append(reps, rep)
	}
	if len(missing) == len(dirs) {
		return caseErr(errors.Join(missing...))
	}
	var buf bytes.Buffer
	if format.Name == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reps); err != nil {
			return err
		}
	} else {
		for _, r := range reps {
			r.Write(&buf, f.verbose)
		}
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if f.fail && findings > 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("%d replies do not fit their reply schema", findings)}
	}
	return nil
}

// checkRunSchemas checks every RESP3 reply of rep with the reply schemas
// of the build that ran (schema.Dir of "family-version"), or records in
// the report why it could not (not installed: the message names
// scripts/install-schemas.sh).
func checkRunSchemas(rep *runner.Report) *schema.Report {
	build := strings.ToLower(rep.Server.Family) + "-" + rep.Server.Version
	set, err := schema.Load(schema.Dir(build))
	out := schema.NewReport(build, set, err)
	if set == nil {
		return out
	}
	for _, res := range rep.Results {
		out.StartCase(res.Proto)
		for _, sr := range res.Steps {
			if sr.Step.Action == cases.ActPush {
				continue
			}
			io := schema.StepIO{Conn: sr.Conn, Async: sr.Step.Async, Sent: sr.Sent, SentCut: sr.SentSize > len(sr.Sent),
				Reply: sr.Reply, ReplyCut: sr.ReplySize > len(sr.Reply)}
			at := schema.Located{Pos: sr.Step.Pos.String(), Case: filepath.ToSlash(res.Case.File.Path) + ": " + res.Case.Name, Step: sr.Step.Index}
			out.Step(set, io, at)
		}
	}
	return out
}
