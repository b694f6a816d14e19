package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

const recordLong = `Record runs case files (by default the bundled suite) against a target, like
run, and writes one golden file per case file into DIR: DIR/<file>.golden
holds, for every case, protocol (RESP2 then RESP3) and step, the exact bytes
sent, the exact reply and any out-of-band pushes, escaped so a diff is
readable (a file whose only changes are in volatile steps is kept as it is); DIR/_server.golden holds the server's identity and its replies to
HELLO 2 and HELLO 3. Key prefixes are stored as rc:{________}:, so a golden
compares with runs of any run id. docs/goldens.md describes the format.

With --cluster N [--replicas R] (or --addr/-u of a cluster node) it records
a cluster: the goldens say "topology cluster NxR", and the node ids,
addresses and ports of the topology and the case's slot are stored as
placeholders named after each node's place relative to the case's slot
({node-id:owner}___..., {addr:other1}, {port:owner.r0}, {slot}; see
docs/goldens.md), so that two recordings of a build's clusters
compare equal and a run on another cluster of that shape compares with
them. A cluster's goldens compare with a standalone run (and the other way
round) except for the cases one of them skips for its topology and the
steps whose expectation names cluster or standalone.

The suite runs --passes times (each on a fresh throwaway server when
respcheck starts it); a step whose reply differs between passes is marked
volatile and later compared by its case expectation only.

Use the goldens with "respcheck run --golden DIR", "respcheck diff" and
"respcheck serve". A file is rewritten only when its content changed (a
case keeps the key prefix of its first recording, and _server.golden is kept
when only the HELLO replies' connection ids differ). Each golden names its
case file as given here (a relative path stays relative) and keeps a hash of
every case: when cases change, "respcheck run --golden DIR" compares the
others, reports the changed and added ones stale and prints the record
command that records DIR again (on this target: --server, or the --addr, -u
or --server-bin flags given here, never a password), to run from this
directory.
Exit status: 0 recorded, 1 some case could not be judged (an error; the
goldens are written anyway), 2 usage or case-file error, 3 server problem.`

func newRecordCmd() *cobra.Command {
	return newCommand("record --out DIR [flags] [files or dirs...]", "Record the exact bytes a server sends for every case (goldens)",
		recordLong, nil, runRecord)
}

func runRecord(ctx context.Context, stdout, stderr io.Writer, f recordFlags, paths []string) error {
	if f.dir == "" {
		return usageErr("record needs --out DIR")
	}
	if f.passes < 1 {
		return usageErr("bad --passes %d: want 1 or more", f.passes)
	}
	protos, runRE, err := f.selection()
	if err != nil {
		return err
	}
	if f.timeout <= 0 {
		return usageErr("bad --timeout %v: want a positive duration", f.timeout)
	}
	if f.jobs <= 0 {
		f.jobs = runtime.NumCPU()
	}
	files, err := loadFiles(paths, f.vars...)
	if err != nil {
		return err
	}
	t, err := f.resolve()
	if err != nil {
		return err
	}
	if err := t.pickSeed(ctx); err != nil {
		return err
	}
	t.printNotes(stderr)
	external := t.Addr != ""
	if external && f.allowDestructive {
		// As run: cases reaching beyond their keys (FLUSHALL, SWAPDB...)
		// on a server holding data need --confirm-destructive or a "yes".
		if err := confirmDestructive(ctx, stderr, t.Config, cases.Select(files, runRE, f.tags), f.confirmDestructive); err != nil {
			return err
		}
	}

	var first []*golden.File
	var srv golden.Server
	var nErr int
	for pass := 1; pass <= f.passes; pass++ {
		rep, hello, err := recordPass(ctx, f, t, external, files, protos, runRE, pass == 1)
		if err != nil {
			return err
		}
		g := golden.FromReport(rep, files, "recorded")
		if pass == 1 {
			first, srv = g, hello
			srv.Family, srv.Version, srv.RedisVersion = rep.Server.Family, rep.Server.Version, rep.Server.RedisVersion
			srv.Topology = golden.TopologyOf(rep.Topology)
			nErr = rep.Summary.Errors
			fmt.Fprintf(stdout, "recorded %s: %d passed, %d failed, %d known, %d skipped, %d errors (%.1fs)\n",
				srv.Name(), rep.Summary.Passed, rep.Summary.Failed, rep.Summary.Known,
				rep.Summary.Skipped, rep.Summary.Errors, rep.Duration.Seconds())
			if rep.Summary.Errors > 0 {
				report.Human(stderr, rep, report.HumanOptions{})
			}
			protectionNote(stdout, stderr, rep.Protection)
			continue
		}
		aclLeftWarning(stderr, rep.Protection)
		n := golden.MarkDiffering(first, g)
		fmt.Fprintf(stdout, "pass %d: %d steps replied differently and are marked volatile\n", pass, n)
	}
	srv.Source = "recorded"
	srv.Target = f.targetFlags.recordedWith()
	wrote := 0
	for i, g := range first {
		g.Server.Target = srv.Target
		path := filepath.Join(f.dir, g.Base()+golden.Ext)
		// Keep the recordings of the cases this run left out (--run,
		// --tags, --proto), and a golden whose only changes are in
		// volatile steps, so that re-recording does not churn timings and
		// ids.
		if data, err := os.ReadFile(path); err == nil {
			old, err := golden.Parse(path, data)
			if err == nil {
				golden.Carry(old, g, files[i])
			}
			if err == nil && golden.Merge(old, g) == nil {
				continue
			}
		}
		changed, err := golden.Write(path, g.Marshal())
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if changed {
			wrote++
			fmt.Fprintf(stdout, "wrote %s (%s)\n", path, caseCount(g))
		}
	}
	sp := filepath.Join(f.dir, golden.ServerFile)
	if old, err := golden.Load(f.dir); err == nil && old.Server.Equivalent(srv) {
		srv = old.Server // only the HELLO replies' connection ids changed: keep the file
	}
	if changed, err := golden.Write(sp, srv.Marshal()); err != nil {
		return &exitError{code: exitUsage, err: err}
	} else if changed {
		wrote++
		fmt.Fprintf(stdout, "wrote %s\n", sp)
	}
	fmt.Fprintf(stdout, "%d of %d golden files written in %s (new or changed; the others unchanged, or changed in volatile steps only)\n", wrote, len(first)+1, f.dir)
	if nErr > 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("%d results could not be judged (errors); their goldens stop at the error", nErr)}
	}
	return nil
}

// recordPass runs the files once: on a fresh throwaway server, or on the
// external target with per-case cleanup. With hello it also records the
// HELLO 2 and HELLO 3 replies.
func recordPass(ctx context.Context, f recordFlags, t endpoint, external bool, files []*cases.File,
	protos []int, runRE *regexp.Regexp, hello bool) (*runner.Report, golden.Server, error) {
	var srv golden.Server
	addr := t.Addr
	if !external {
		var s throwaway
		var err error
		if f.cluster.primaries > 0 {
			s, err = spawnCluster(ctx, f.serverBin, f.server, f.cluster)
		} else {
			s, err = spawn(ctx, f.serverBin, f.server)
		}
		if err != nil {
			return nil, srv, serverErr(err)
		}
		defer s.Stop()
		addr = s.Addr()
	}
	opts := runner.Options{
		Addr: addr, Username: t.Username, Password: t.Password, DB: t.DB, TLS: t.TLS,
		Protos: protos, Run: runRE, Tags: f.tags, Jobs: f.jobs, StepTimeout: f.timeout,
		Shared: true, AllowDestructive: !external || f.allowDestructive, NoACLUser: f.noACLUser, Limits: f.limits(),
	}
	if external {
		opts.RunID = runner.NewRunID()
	}
	if hello {
		// Before the run, so that a fresh server's connection ids (in the
		// replies) are the same from one recording to the next.
		var err error
		cfg := t.Config
		cfg.Addr, cfg.Timeout = addr, f.timeout
		if srv.Hello2, err = cfg.HelloReply(ctx, 2); err != nil {
			return nil, srv, serverErr(err)
		}
		if srv.Hello3, err = cfg.HelloReply(ctx, 3); err != nil || isErrorReply(srv.Hello3) {
			srv.Hello3 = nil // a server without RESP3
		}
	}
	rep, err := runner.Run(ctx, files, opts)
	if err != nil {
		var te *target.Error
		if errors.As(err, &te) {
			return nil, srv, serverErr(err)
		}
		return nil, srv, err
	}
	if rep.Fault() != nil {
		return nil, srv, serverErr(rep.Fault())
	}
	if ctx.Err() != nil {
		return nil, srv, &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	}
	return rep, srv, nil
}

func isErrorReply(b []byte) bool { return len(b) > 0 && (b[0] == '-' || b[0] == '!') }

// caseCount says how many cases a golden holds and in how many recordings
// (a case recorded in both protocols is two): "3 cases, 6 recordings".
func caseCount(g *golden.File) string {
	names := map[string]bool{}
	for _, c := range g.Cases {
		names[c.Name] = true
	}
	word := "cases"
	if len(names) == 1 {
		word = "case"
	}
	return fmt.Sprintf("%d %s, %d recordings", len(names), word, len(g.Cases))
}
