package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

const runLong = `Run executes YAML case files against a server and reports, case by case
and protocol by protocol, whether every reply is exactly what the case expects.

With no paths it runs the bundled suite (embedded in the binary). Directories
are searched for *.yaml and *.yml files. Every case-file error is reported, with
file:line:col, before anything is sent; then respcheck exits 2.

The target is --addr, or -u redis://[user:pass@]host:port[/db] (rediss:// for
TLS), or the REDIS_URL environment variable; with none of them respcheck starts
a throwaway server on 127.0.0.1 with a free port, no persistence and DEBUG
enabled, and stops it at the end. As with redis-cli, redis://secret@host means
a password alone; redis://user:@host names a user whose password comes from
--password-file or REDISCLI_AUTH.

An existing server is treated as holding data that is not respcheck's: every
key a case touches is named after the run and the case, each case's keys are
deleted when it ends (also after a failure, a timeout or Ctrl-C), cases that
send commands reaching beyond their own keys (FLUSHALL, CONFIG SET, DEBUG SLEEP,
SCRIPT KILL, ...) are skipped unless --allow-destructive, and the database size
is compared before and after the run.

The password comes from the URL, --password-file or REDISCLI_AUTH, never from
a flag, and is redacted from every report.

`

func newRunCmd() *cobra.Command {
	return newCommand("run [flags] [files or dirs...]", "Run case files against a server",
		runLong+formatsHelp(report.RunReports), nil, runRun)
}

func runRun(ctx context.Context, stdout, stderr io.Writer, f runFlags, paths []string) error {
	protos, runRE, format, err := f.reportSelection(report.RunReports)
	if err != nil {
		return err
	}
	if err := f.checkNumbers(); err != nil {
		return err
	}
	files, err := loadFiles(paths, f.vars...)
	if err != nil {
		return err
	}
	shard, err := cases.ParseShard(f.shard)
	if err != nil {
		return usageErr("--shard: %v", err)
	}
	selected := cases.Select(files, runRE, f.tags)
	if len(selected) == 0 {
		return noCases(paths, f.run, f.tags)
	}
	selected = slices.DeleteFunc(slices.Clone(selected), func(c *cases.Case) bool {
		return !shard.Has(slices.Index(selected, c))
	})

	t, fl, err := f.openFleet(ctx, f.servers)
	if err != nil {
		return err
	}
	defer fl.stop()
	t.printNotes(stderr)
	external := t.spawned == nil
	if external && f.allowDestructive {
		if err := confirmDestructive(ctx, stderr, t.Config, selected, f.confirmDestructive); err != nil {
			return err
		}
	}
	runID := f.runID
	if runID == "" && external {
		runID = runner.NewRunID()
	}

	opts := runner.Options{
		Addr: t.Addr, Username: t.Username, Password: t.Password, DB: t.DB,
		TLS:    t.TLS,
		Protos: protos, Run: runRE, Tags: f.tags, Shard: shard, Jobs: f.jobs, StepTimeout: f.timeout,
		RunID: runID, Shared: external, AllowDestructive: f.allowDestructive, NoACLUser: f.noACLUser, Pool: fl.pool(),
		Limits: f.limits(), FailFast: f.failFast,
	}
	if fl != nil && fl.spawn != nil { // a throwaway cluster is not started again
		opts.Respawn, opts.Kill = fl.respawn, fl.kill
	}
	var gold *goldenRun
	if f.golden != "" {
		if gold, err = openGolden(f.golden, f.update, files); err != nil {
			return err
		}
		opts.Golden = gold.hook()
	} else if f.update {
		return usageErr("--update needs --golden DIR")
	}
	isTTY := isTerminal(stderr)
	var bar *progress
	if isTTY && f.format == "human" {
		bar = newProgress(stderr)
		opts.OnStart = bar.start
		opts.OnDone = bar.result
	}
	streamed := streamTo(stdout, f, &opts)
	rep, err := runner.Run(ctx, files, opts)
	if bar != nil {
		bar.wait()
	}
	if err != nil {
		var te *target.Error
		switch {
		case ctx.Err() != nil:
			return interruptedErr("interrupted while connecting to the server; nothing was run")
		case errors.As(err, &te):
			return serverErr(fmt.Errorf("%v%s", err, spawnedLog(t)))
		}
		return err
	}

	if f.checkSchema {
		rep.Schema = checkRunSchemas(rep)
	}
	if err := writeReport(stdout, rep, format, f, isTerminal(stdout), streamed); err != nil {
		return err
	}
	// A machine-readable report on stdout (json, jsonl, junit...) stays
	// parseable: the lines about goldens and cleanup go to stderr then.
	note := stdout
	if f.format != "human" && f.out == "" {
		note = stderr
	}
	var goldErr error
	if gold != nil {
		goldErr = gold.finish(note, rep)
	}
	if rep.Shared() {
		cleanupNote(note, stderr, rep)
	}
	protectionNote(note, stderr, rep.Protection)
	switch {
	case rep.Fault() != nil:
		return &exitError{code: exitServer, err: fmt.Errorf("%v%s", rep.Fault(), spawnedLog(t))}
	case ctx.Err() != nil:
		return interruptedErr("interrupted; the report above has the results gathered so far")
	case rep.Failed():
		return &exitError{code: exitFindings, err: errSilent}
	}
	return goldErr
}

// checkNumbers refuses a non-positive --timeout and a negative --jobs or
// --servers (usage errors, exit 2).
func (f runFlags) checkNumbers() error {
	switch {
	case f.timeout <= 0:
		return usageErr("bad --timeout %v: want a positive duration", f.timeout)
	case f.jobs < 0:
		return usageErr("bad --jobs %d: want 0 (4 per CPU, at most 8 against --addr/-u) or more", f.jobs)
	case f.servers < 0:
		return usageErr("bad --servers %d: want 0 (one per CPU, at least 4) or more", f.servers)
	}
	return nil
}

// cleanupNote says, after a run on a shared server, how many of the run's
// keys were removed and the database size before and after (to note), and
// warns on stderr when the size changed.
func cleanupNote(note, stderr io.Writer, rep *runner.Report) {
	after := "unknown after (the server stopped answering)"
	if rep.DBSize[1] >= 0 {
		after = fmt.Sprintf("%d after", rep.DBSize[1])
	}
	fmt.Fprintf(note, "cleanup: removed %d keys of this run; database size %d before, %s\n",
		rep.KeysRemoved, rep.DBSize[0], after)
	if d := rep.DBSize[1] - rep.DBSize[0]; rep.DBSize[0] >= 0 && rep.DBSize[1] >= 0 && d != 0 {
		if ran := ranDestructive(rep); ran != "" {
			fmt.Fprintf(stderr, "respcheck: note: the database size changed by %+d during the run; cases reaching beyond their keys ran (--allow-destructive): %s\n", d, ran)
		} else {
			fmt.Fprintf(stderr, "respcheck: warning: the database size changed by %+d during the run: something other than respcheck wrote to it\n", d)
		}
	}
}

// protectionNote says, after a guarded run on a shared server, which
// protection it had: the guard and the run's ACL user, or the guard alone
// and why; it warns on stderr when the user could not be deleted.
func protectionNote(note, stderr io.Writer, p *runner.Protection) {
	switch {
	case p == nil:
	case p.ACLUser != "":
		denied := 0
		for _, r := range p.ACLRules {
			if strings.HasPrefix(r, "-") {
				denied++
			}
		}
		scope := strings.Join(aclPatterns(p.ACLRules), " ")
		for _, r := range p.ACLRules {
			if db, ok := strings.CutPrefix(r, "db="); ok {
				scope += ", database " + db + " only"
			}
		}
		fmt.Fprintf(note, "protection: the guard, and ACL user %s (keys and channels %s, %d commands denied; what the server then refuses itself: docs/running.md)\n",
			p.ACLUser, scope, denied)
	default:
		fmt.Fprintf(note, "protection: the guard alone (no ACL user of the run: %s)\n", p.ACLRefused)
	}
	aclLeftWarning(stderr, p)
}

// aclLeftWarning warns when the run's ACL user could not be deleted.
func aclLeftWarning(stderr io.Writer, p *runner.Protection) {
	if p != nil && p.ACLLeft != "" {
		fmt.Fprintf(stderr, "respcheck: warning: the run's ACL user %s could not be deleted (%s): delete it with ACL DELUSER %s\n", p.ACLUser, p.ACLLeft, p.ACLUser)
	}
}

// aclPatterns are the key (~) and channel (&) patterns among rules.
func aclPatterns(rules []string) []string {
	var out []string
	for _, r := range rules {
		if strings.HasPrefix(r, "~") || strings.HasPrefix(r, "&") {
			out = append(out, r)
		}
	}
	return out
}

func spawnedLog(t endpoint) string {
	if t.spawned == nil {
		return ""
	}
	return logTail(t.spawned)
}

// noCases is the usage error for a selection that holds no case: a typo in
// --run, --tags or a path must not pass as an empty green run.
func noCases(paths []string, run string, tags []string) error {
	what := "the bundled suite"
	if len(paths) > 0 {
		what = strings.Join(paths, " ")
	}
	var filters []string
	if run != "" {
		filters = append(filters, "--run "+strconv.Quote(run))
	}
	if len(tags) > 0 {
		filters = append(filters, "--tags "+strings.Join(tags, ","))
	}
	if len(filters) > 0 {
		return caseErr(fmt.Errorf("no case of %s matches %s ('respcheck list' shows the names)", what, strings.Join(filters, " ")))
	}
	return caseErr(fmt.Errorf("no case in %s", what))
}

// selection parses --proto and --run.
// limits are the reader's limits with --max-depth (0 or less: the
// default); the other fields are zero, the defaults of each reader.
func (f runFlags) limits() resp.Limits {
	return resp.Limits{MaxDepth: max(f.maxDepth, 0)}
}

func (f runFlags) selection() ([]int, *regexp.Regexp, error) {
	protos, err := parseProto(f.proto)
	if err != nil {
		return nil, nil, err
	}
	var runRE *regexp.Regexp
	if f.run != "" {
		if runRE, err = regexp.Compile(f.run); err != nil {
			return nil, nil, usageErr("bad --run: %v", err)
		}
	}
	return protos, runRE, nil
}

// reportSelection is selection and the --format of a command writing
// reports of kind k (run, clients).
func (f *runFlags) reportSelection(k report.Kind) ([]int, *regexp.Regexp, report.Format, error) {
	protos, runRE, err := f.selection()
	if err != nil {
		return nil, nil, report.Format{}, err
	}
	if err := f.checkOutput(k); err != nil {
		return nil, nil, report.Format{}, err
	}
	format, err := reportFormat(f.format, k)
	return protos, runRE, format, err
}

// checkOutput checks -o before anything runs: its directory must exist
// (else the report of a whole run would be lost at the end), and without
// --format its extension picks the format (report.ForFile: -o r.json is
// JSON, not human text in a .json file).
func (f *runFlags) checkOutput(k report.Kind) error {
	if f.out == "" {
		return nil
	}
	if err := checkDir(f.out); err != nil {
		return err
	}
	if f.format == "human" {
		if format, ok := report.ForFile(f.out, k); ok {
			f.format = format.Name
		}
	}
	return nil
}

func parseProto(s string) ([]int, error) {
	switch s {
	case "2":
		return []int{2}, nil
	case "3":
		return []int{3}, nil
	case "both", "2,3":
		return []int{2, 3}, nil
	}
	return nil, usageErr("bad --proto %q: want 2, 3 or both", s)
}

// loadFiles loads the named files and directories, or the bundled suite.
// Every error of every file is reported before anything is sent.
// vars are the --var flags, the values of {var:NAME}.
func loadFiles(paths []string, vars ...string) ([]*cases.File, error) {
	set, err := parseVars(vars)
	if err != nil {
		return nil, err
	}
	files, err := cases.LoadOrBundledWith(paths, cases.Options{Vars: set})
	if err != nil {
		return nil, caseErr(err)
	}
	return files, nil
}

// writeReport writes the report in its format to stdout or -o; with -o,
// stdout still gets the human report. streamed says the results were
// already shown on stdout as they finished (streamResults, in file order).
func writeReport(stdout io.Writer, rep *runner.Report, format report.Format, f runFlags, tty, streamed bool) error {
	var buf bytes.Buffer
	err := format.Run(&buf, rep, report.HumanOptions{Verbose: f.verbose, VeryVerbose: f.veryVerbose, Color: tty && !f.noColor && os.Getenv("NO_COLOR") == "" && f.out == "",
		Streamed: streamed && f.out == ""})
	if err != nil {
		return err
	}
	if err := writeOutput(stdout, f.out, buf.Bytes(), false); err != nil || f.out == "" {
		return err
	}
	// With -o, stdout still gets the human report (its summary line last).
	return report.Human(stdout, rep, report.HumanOptions{Verbose: f.verbose && f.format != "human", VeryVerbose: f.veryVerbose && f.format != "human", Color: tty && !f.noColor && os.Getenv("NO_COLOR") == "",
		Streamed: streamed})
}

// streamTo sets opts.OnResult to show each result on stdout as it ends,
// and reports whether it did: on a pipe or a CI log (failures always,
// every case with -v), so that a slow server never looks like a frozen
// tool, and JSON lines for --format jsonl on stdout, terminal or not; in
// file order, each case's protocols together (Options.OnResult holds a
// result back until the earlier ones are shown).
func streamTo(stdout io.Writer, f runFlags, opts *runner.Options) bool {
	switch {
	case f.format == "jsonl" && f.out == "":
		opts.OnResult = report.EventStream(stdout)
		return true
	case !isTerminal(stdout) && (f.format == "human" || f.out != ""):
		opts.OnResult = streamResults(stdout, report.HumanOptions{Verbose: f.verbose, VeryVerbose: f.veryVerbose})
		return true
	}
	return false
}

// streamResults returns an Options.OnResult that writes each result to w
// (report.HumanResult) as o says.
func streamResults(w io.Writer, o report.HumanOptions) func(*runner.Result) {
	return func(res *runner.Result) {
		report.HumanResult(w, res, o)
	}
}

func isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		return term.IsTerminal(int(f.Fd()))
	}
	return false
}
