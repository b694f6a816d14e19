package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

const clientsLong = `Clients replays the send steps of case files through client libraries
(go-redis, rueidis, valkey-go, redigo, radix, ioredis, node-redis, iovalkey,
valkey-glide, redis-py, hiredis, Ruby's redis gem and phpredis, each in an
adapter process of its own) and the command-line clients of the installed
server builds (redis-cli, valkey-cli: one process per connection, raw and
--no-raw, their printed text judged), on pinned connections that mirror the
cases' named connections, in every protocol each library supports. A
recording proxy between each library and the server
keeps the exact bytes the library received; every decoded value is judged
against them under the library's decoding contract:

  match      an acceptable decoding
  converted  a documented, lossless reshaping (an array of pairs as a dict,
             an attribute kept beside the value): informational
  erased     the library cannot express a distinction (simple vs blob
             string, nil kinds, set vs array): informational
  inexpressible
             a typed API cannot send a command the case expects the
             server to accept, or sends it respelled (its own option
             order): informational, the API's source cited
  mismatch   a wrong value or a wrong type
  crash      an exception, a panic or a dead process on a valid reply
  hang       no result before the step deadline (for a command-line client,
             not while its process still works: up to 20 s more)
  desync     after a surprise, a canary (ECHO, or PING on a RESP2
             subscribed connection) came back wrong: later replies shifted
  error      not the library's fault: the server stopped answering, or a
             gate could not be checked

The target is --addr or -u, with AUTH and TLS as for run: the proxy opens
each server connection with them. Raw and push steps are not sent through
libraries; typed drivers skip what they have no wrapper for.

On a cluster (--cluster N [--replicas R], or --addr of a cluster node) the
proxy listens once per node and rewrites the node addresses the servers
announce (CLUSTER SHARDS, SLOTS and NODES, MOVED and ASK) into its own, so
that a cluster client keeps talking through it; the view shows what it
rewrote, and a MOVED or ASK the library followed. The /cluster
configurations (go-redis/cluster, rueidis/cluster, valkey-go/cluster,
ioredis, node-redis and valkey-glide cluster clients, redis-py RedisCluster)
run there only; the others connect to the node that owns the case's hash
slot. A case that touches a key outside its hash tag is skipped on a
cluster, and the steps of a connection the case places on a node (conn:
{name, node: owner|other|replica}) are sent by respcheck itself, unjudged. External
adapters are installed by scripts/install-clients.sh; missing ones are left
out with a note (use --clients to require one).

The cases themselves are checked too, as run checks them, in the protocols
the libraries speak (on a throwaway server of their own beside the
libraries, or on an existing server after them): a reply that does not meet
its case is listed apart, as the case's finding, and the libraries are
judged against the bytes the server sent all the same.

The report has one row per client with its counts by verdict and its worst
findings, one line each; -v adds each finding's steps (the bytes, the
decoding, the judge's notes, the wire) and --matrix the cases x clients
matrix.

Exit status: 0 no finding, 1 a mismatch, crash, hang, desync or error, or a
case whose server reply does not meet it, 2 usage or case-file error, 3 the
server could not be reached or started, or stopped answering.

`

func newClientsCmd() *cobra.Command {
	return newCommand("clients [flags] [files or dirs...]", "Diff what client libraries decode against the exact reply bytes",
		clientsLong+formatsHelp(report.ClientsReports), nil, runClients)
}

func runClients(ctx context.Context, stdout, stderr io.Writer, f clientsFlags, paths []string) error {
	protos, runRE, format, err := f.reportSelection(report.ClientsReports)
	if err != nil {
		return err
	}
	// What needs no adapter is checked before the adapters start (they
	// take seconds): the case files, and an existing server without
	// --allow-destructive.
	if f.explain != "" {
		return explainClients(ctx, stdout, f, protos)
	}
	if err := f.generate.check(paths); err != nil {
		return err
	}
	if !f.list {
		if early, err := f.resolve(); err != nil {
			return err
		} else if early.Addr != "" && !f.allowDestructive {
			return errSharedClients
		}
	}
	files, err := loadFiles(paths, f.vars...)
	if err != nil && !f.list {
		return err
	}
	if f.list {
		return listClientsCommand(stdout, f)
	}
	// Only the adapter processes of the libraries --clients names start.
	all, drivers, notes, err := startSelected(ctx, f.clients, func(list string) ([]clients.Driver, []string) {
		return clients.AvailableFor(ctx, f.adapterSource(), list)
	})
	defer func() { clients.CloseDrivers(all) }()
	if ctx.Err() != nil {
		rep := notRunReport(ctx, f, files, drivers, protos, runRE)
		if err := writeClientsReport(stdout, rep, format, f); err != nil {
			return err
		}
		return interruptedErr("interrupted while the client adapters started; nothing was run")
	}
	if err != nil {
		// When some adapters are missing, the name may be one of theirs.
		missing := false
		for _, n := range notes {
			switch {
			case f.userAdapterNote(n): // why the user's own adapter gave nothing
				fmt.Fprintln(stderr, "respcheck: note: "+n)
			case strings.Contains(n, "missing") || strings.Contains(n, "not on PATH"):
				fmt.Fprintln(stderr, "respcheck: note: "+n)
				missing = true
			}
		}
		if missing {
			return usageErr("%v; the adapters are looked for in --adapters DIR, $RESPCHECK_ADAPTERS, ./adapters and the cache scripts/install-clients.sh fills", err)
		}
		return usageErr("%v", err)
	}
	for _, n := range notes {
		// Every note when every library was asked for; a stale copy of
		// the adapters whatever was asked (its libraries run other code
		// than the checkout's).
		if f.clients == "" || f.clients == "all" || strings.HasPrefix(n, clients.StaleAdaptersNote) {
			fmt.Fprintln(stderr, "respcheck: note: "+n)
		}
	}
	if err := speaksOne(drivers, protos); err != nil {
		return err
	}
	t, stopServer, err := f.open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			if werr := writeClientsReport(stdout, notRunReport(ctx, f, files, drivers, protos, runRE), format, f); werr != nil {
				return werr
			}
		}
		return err
	}
	defer stopServer()
	t.printNotes(stderr)
	external := t.spawned == nil
	if err := allowExisting(ctx, stderr, f, t, cases.Select(files, runRE, nil)); err != nil {
		return err
	}
	if f.generate.on() {
		return runGenerated(ctx, stdout, stderr, f, t, drivers, protos)
	}
	runID := f.runID
	if runID == "" && external {
		runID = runner.NewRunID()
	}
	t.Config.Limits = f.limits()
	// The check's own servers end with it: on an error of the libraries'
	// run it is cancelled and waited for.
	cctx, cancelCheck := context.WithCancel(ctx)
	defer cancelCheck()
	check := checkCases(cctx, f, t, files, checkProtos(drivers, protos), runRE, runID)
	rep, err := clients.Run(ctx, files, clients.Options{Target: t.Config, Drivers: drivers, Protos: protos,
		Run: runRE, StepTimeout: f.timeout, RunID: runID, Jobs: f.jobs, Fault: clients.Fault{Split: f.split, ExtraAfter: f.extra},
		Existing: external})
	if err != nil {
		if !external {
			cancelCheck()
			check()
		}
		var te *target.Error
		if errors.As(err, &te) {
			return serverErr(fmt.Errorf("%v%s", err, spawnedLog(t)))
		}
		return err
	}
	if !external || rep.ServerLost == "" && ctx.Err() == nil {
		// On an existing server, after the libraries; a throwaway
		// target's check ran on a server of its own meanwhile.
		crep, cerr := check()
		addCaseCheck(ctx, rep, crep, cerr)
	}
	return endClients(ctx, stdout, stderr, f, t, rep, format)
}

// allowExisting refuses an existing server (one respcheck did not start)
// without --allow-destructive, and with it asks for confirmation of the
// cases that reach beyond their keys: libraries send the cases' commands
// themselves, so run's guard (no key outside the namespace, no CONFIG
// SET...) and its per-case key cleanup do not apply.
func allowExisting(ctx context.Context, stderr io.Writer, f clientsFlags, t endpoint, cs []*cases.Case) error {
	if t.spawned != nil {
		return nil
	}
	if !f.allowDestructive {
		return errSharedClients
	}
	return confirmDestructive(ctx, stderr, t.Config, cs, f.confirmDestructive)
}

// endClients writes the report of a clients run that ran, and returns its
// exit: 3 when the server (or the check's) stopped answering, 130 when
// interrupted, 1 on a finding or a case that fails its own check.
func endClients(ctx context.Context, stdout, stderr io.Writer, f clientsFlags, t endpoint, rep *clients.Report, format report.Format) error {
	if f.extra != "" && rep.InjectedFrames() == 0 {
		fmt.Fprintf(stderr, "respcheck: note: --extra-after %s injected nothing: no library received a reply to %s in the cases run\n", f.extra, f.extra)
	}
	if err := writeClientsReport(stdout, rep, format, f); err != nil {
		return err
	}
	switch {
	case rep.ServerLost != "":
		return serverErr(fmt.Errorf("%s%s", rep.ServerLost, spawnedLog(t)))
	case ctx.Err() != nil:
		return interruptedErr("interrupted; the report above has the results gathered so far")
	case rep.Failed():
		return &exitError{code: exitFindings, err: errSilent}
	}
	return nil
}

// writeClientsReport writes rep in format to stdout or -o; with -o and
// another format, stdout still gets the human report.
func writeClientsReport(stdout io.Writer, rep *clients.Report, format report.Format, f clientsFlags) error {
	var buf bytes.Buffer
	if err := format.Clients(&buf, rep, report.HumanOptions{Verbose: f.verbose, Matrix: f.matrix}); err != nil {
		return err
	}
	if err := writeOutput(stdout, f.out, buf.Bytes(), true); err != nil {
		return err
	}
	if f.out != "" && f.format != "human" {
		return report.ClientsHuman(stdout, rep, report.HumanOptions{Verbose: f.verbose, Matrix: f.matrix})
	}
	return nil
}

// notRunReport is the report of a clients run interrupted before it ran
// anything (its adapters or its server starting): every selected case
// through every client that started (or, when none had, each name
// --clients gives), in each protocol, not run.
func notRunReport(ctx context.Context, f clientsFlags, files []*cases.File, drivers []clients.Driver, protos []int, runRE *regexp.Regexp) *clients.Report {
	rep := &clients.Report{Started: time.Now()}
	why := "not run: " + context.Cause(ctx).Error()
	if len(protos) == 0 {
		protos = []int{2, 3}
	}
	if len(drivers) == 0 {
		// No adapter answered yet: the clients --clients names.
		for _, name := range strings.Split(cmp.Or(f.clients, "all"), ",") {
			for _, p := range protos {
				client := fmt.Sprintf("%s/resp%d", name, p)
				rep.Clients = append(rep.Clients, clients.ClientInfo{Name: client, Library: name, Proto: p})
				for _, c := range cases.Select(files, runRE, nil) {
					rep.Results = append(rep.Results, &clients.Result{Client: client, Proto: p, Case: c, Verdict: clients.Skip, Reason: why, NotRun: true})
				}
			}
		}
	}
	for _, d := range drivers {
		for _, p := range d.Protos() {
			if !slices.Contains(protos, p) {
				continue
			}
			name := clients.ClientName(d, p)
			rep.Clients = append(rep.Clients, clients.ClientInfo{Name: name, Library: d.Library(), Version: d.Version(), Proto: p, API: d.API()})
			for _, c := range cases.Select(files, runRE, nil) {
				rep.Results = append(rep.Results, &clients.Result{Client: name, Proto: p, Case: c, Verdict: clients.Skip, Reason: why, NotRun: true})
			}
		}
	}
	return rep
}

// speaksOne is a usage error when none of the chosen libraries speaks any
// of the chosen protocols (redigo with --proto 3): the run would judge
// nothing.
func speaksOne(ds []clients.Driver, protos []int) error {
	if len(protos) == 0 {
		return nil
	}
	var names []string
	for _, d := range ds {
		for _, p := range d.Protos() {
			if slices.Contains(protos, p) {
				return nil
			}
		}
		names = append(names, d.Library()+" speaks "+protoList(d.Protos()))
	}
	return usageErr("none of the chosen clients speaks %s: %s", protoList(protos), strings.Join(names, ", "))
}

// protoList writes protocols as "RESP2" or "RESP2 and RESP3".
func protoList(ps []int) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("RESP%d", p))
	}
	return strings.Join(s, " and ")
}

// listClientsCommand is clients --list-clients: a format it cannot print
// is a usage error before the some fifty adapter processes start (it took
// 9 s to say so).
func listClientsCommand(stdout io.Writer, f clientsFlags) error {
	lf, ok := report.Lookup(f.format, report.ClientListReports)
	if !ok {
		return usageErr("--list-clients prints %s, not %s", report.Choices(report.ClientListReports), f.format)
	}
	all, notes := clients.Listed(context.Background(), f.adapterSource())
	defer clients.CloseDrivers(all)
	return listClients(stdout, clients.Configurations(all, notes), lf)
}

// startSelected starts the adapter processes the client names of list may
// select (start(list)) and selects list's drivers of them (clients.Select);
// when list selects none of them, it starts every adapter (start("all")),
// for the error to list what there is. all is every driver started, for
// the caller to close; notes are start's.
func startSelected(ctx context.Context, list string, start func(list string) ([]clients.Driver, []string)) (all, selected []clients.Driver, notes []string, err error) {
	all, notes = start(list)
	selected, err = clients.Select(all, list)
	if err != nil && ctx.Err() == nil {
		clients.CloseDrivers(all)
		all, notes = start("all")
		selected, err = clients.Select(all, list)
	}
	return all, selected, notes, err
}

// explainClients prints the decoding contract of the clients --explain
// selects, in the protocols of protos each speaks (--explain): human text,
// or with --format json one JSON document.
func explainClients(ctx context.Context, stdout io.Writer, f clientsFlags, protos []int) error {
	lf, ok := report.Lookup(f.format, report.ClientListReports)
	if !ok {
		return usageErr("--explain prints %s, not %s", report.Choices(report.ClientListReports), f.format)
	}
	all, ds, _, err := startSelected(ctx, f.explain, func(list string) ([]clients.Driver, []string) {
		return clients.ListedFor(ctx, f.adapterSource(), list)
	})
	defer func() { clients.CloseDrivers(all) }()
	if err != nil {
		return usageErr("--explain: %v", err)
	}
	var es []clients.Explanation
	for _, d := range ds {
		for _, p := range d.Protos() {
			if len(protos) == 0 || slices.Contains(protos, p) {
				es = append(es, clients.Explain(d, p))
			}
		}
	}
	if len(es) == 0 && len(protos) > 0 {
		return usageErr("--explain %q: no client configuration that it selects speaks %s", f.explain, protoList(protos))
	} else if len(es) == 0 {
		return usageErr("--explain %q selects no client configuration", f.explain)
	}
	if lf.Name == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"contracts": es, "rules": clients.Rules})
	}
	for i, e := range es {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		writeExplanation(stdout, e)
	}
	fmt.Fprintln(stdout, "\nthe rules a verdict names (a finding's \"rule\"):")
	for _, r := range clients.Rules {
		fmt.Fprintf(stdout, "  %-13s %s\n", r.ID, r.Text)
	}
	return nil
}

// writeExplanation writes one client's contract as text.
func writeExplanation(w io.Writer, e clients.Explanation) {
	fmt.Fprintf(w, "%s %s via %s\n  source: %s\n", e.Client, e.Version, e.API, orUnknown(e.Source))
	if e.Text {
		fmt.Fprintln(w, "  its printed text is judged against the text the reply should print (a command-line client)")
	} else {
		fmt.Fprintln(w, "  a RESP type decoded as a kind not listed is a mismatch, unless a conversion below applies:")
		for _, r := range e.Rules {
			var parts []string
			for _, n := range r.Natives {
				parts = append(parts, n.Native+" "+n.Verdict.String())
			}
			fmt.Fprintf(w, "    %-16s %s\n", r.Type, strings.Join(parts, ", "))
		}
	}
	for _, n := range e.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, c := range e.Conversions {
		fmt.Fprintf(w, "  conversion: %s\n    source: %s\n", c.Name, c.Source)
	}
	for _, c := range e.Callbacks {
		fmt.Fprintf(w, "  callback on %s: %s\n    source: %s\n", strings.Join(c.Commands, " "), c.Name, c.Source)
	}
}

// listClients prints the client configurations (--list-clients) in f (one
// of report.ClientListReports): each
// with its version, configuration, API, source and protocols, or why it is
// not installed; --format json prints them as one JSON document.
func listClients(w io.Writer, cs []clients.Configuration, f report.Format) error {
	if f.Name == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"clients": cs})
	}
	installed := 0
	for _, c := range cs {
		if !c.Installed {
			label := "not installed"
			if c.Name+": " == clients.StaleAdaptersNote {
				label = "note"
			}
			fmt.Fprintf(w, "%s\n  %s: %s\n", c.Name, label, c.Reason)
			continue
		}
		installed++
		fmt.Fprintf(w, "%s\n  version:       %s\n  configuration: %s\n  api:           %s\n  source:        %s\n  protocols:     %s\n",
			c.Name, c.Version, configurationText(c), c.API, orUnknown(c.Source), protoList(c.Protos))
		for _, n := range c.Notes {
			fmt.Fprintf(w, "  note:          %s\n", n)
		}
	}
	fmt.Fprintf(w, "%d configurations installed, %d not\n", installed, len(cs)-installed)
	return nil
}

// configurationText is a configuration's parser, options and API variant
// ("+hiredis [replyMapping=resp3] /pipeline"), or "default".
func configurationText(c clients.Configuration) string {
	var parts []string
	if c.Parser != "" {
		parts = append(parts, "+"+c.Parser)
	}
	if len(c.Options) > 0 {
		parts = append(parts, "["+strings.Join(c.Options, ",")+"]")
	}
	if c.Variant != "" {
		parts = append(parts, "/"+c.Variant)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

func orUnknown(s string) string {
	if s == "" {
		return "(not given)"
	}
	return s
}

// errSharedClients refuses an existing server without --allow-destructive:
// libraries send the cases' commands themselves, without run's
// shared-server guard (no key outside the namespace, no CONFIG SET...).
var errSharedClients = usageErr("clients runs cases through client libraries without the shared-server guard of run (each case's keys are still deleted after it): use a throwaway server (--server NAME, --server-bin PATH), or --allow-destructive on a server whose data does not matter")
