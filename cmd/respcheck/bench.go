package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner/bench"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

const benchLong = `Bench times four published articles' experiments against one server, as
repeatable measurements (never pass or fail; docs/bench.md names the articles):

  - a conditional overwrite by value size (100 B, 10 KB, 100 KB, 1 MB):
    GET then SET, a Lua compare-and-set, and SET IFDEQ with a digest held
    client-side, with the bytes each sends and receives;
  - DIGEST latency by value size (100 B to 10 MB);
  - a rate limiter's INCR and EXPIRE: blocking, pipelined, one Lua script,
    and INCREX;
  - the per-item cost of SET and HSET against MSET and HMSET by batch size
    (1, 2, 10, 100, 1000), of GET and HGET against MGET and HMGET beside it,
    and the write table again against a second throwaway server started
    with appendonly yes and appendfsync always (only when respcheck starts
    the server: a server given by --addr or -u is never reconfigured);
  - contention: 1, 5, 25, 50 and 100 clients sharing 1,000 updates of one
    key with GET then SET, WATCH/MULTI/EXEC (100 attempts), one Lua script,
    INCR, and WATCH with a random backoff up to 100 ms: updates lost,
    commands per update (INFO commandstats), total time, updates given up,
    p50 and p99 per update; through --latency, the Lua article's remote shape
    (200 updates; 1, 5 and 25 clients);
  - INCREX: 20 clients x 100 increments of one key (final value and TTL)
    and a crash simulation (a fresh key per request, a client crashing
    between INCR and EXPIRE with probability 0.02: crashes, keys left
    without TTL), with INCR+EXPIRE, MULTI, Lua and INCREX (where COMMAND
    INFO lists it);
  - slow scripts: another client's GET+SET pairs per second while 10, 50
    or 200 ms scripts run back to back, and the drop against none; the
    longest PING wait beside one 1 s script; the BUSY errors another client
    gets past busy-reply-threshold (set to 100 ms, and restored, on a
    throwaway server; a given server's own value, never changed, the table
    not run above 2 s); SCRIPT KILL on a read-only script and on one that
    wrote first (throwaway server only).

--latency D puts a relay on 127.0.0.1 in front of the target that delivers
each chunk D after it arrived, in each direction (a round trip gains 2D;
the Lua article's remote table at ~58 ms of round trip is --latency 29ms);
--jitter adds a random 0-J without reordering, --bandwidth paces each
direction. The header names the target, the link with the PING round trip
measured through it, the server's appendonly, appendfsync, io-threads and
save (CONFIG GET, or INFO where CONFIG is refused), and the trial counts.
--tables runs some tables only (overwrite, digest, incr-expire, batch,
batch-read, batch-aof-always, contention, increx, scripts).

A method the server lacks is reported as "not supported by this server".
Each cell is the median and the p10-p90 spread of --trials timed trials after
--warmup untimed ones. The target flags are those of run; with none,
respcheck starts a throwaway server.`

func newBenchCmd() *cobra.Command {
	return newCommand("bench [flags]", "Measure overwrites, DIGEST, INCR+EXPIRE, batch reads and writes, and contention",
		benchLong, cobra.NoArgs, runBench)
}

func runBench(ctx context.Context, stdout, stderr io.Writer, f benchFlags, _ []string) error {
	format, err := reportFormat(f.format, report.BenchReports)
	if err != nil {
		return err
	}
	proto := 2
	switch f.proto {
	case "2":
	case "3":
		proto = 3
	default:
		return usageErr("bad --proto %q: want 2 or 3", f.proto)
	}
	if f.trials < 1 {
		return usageErr("bad --trials %d: want 1 or more", f.trials)
	}
	if f.warmup < 0 {
		return usageErr("bad --warmup %d: want 0 or more", f.warmup)
	}
	link := bench.LinkConfig{Latency: f.latency, Jitter: f.jitter}
	if f.latency < 0 || f.jitter < 0 {
		return usageErr("bad --latency or --jitter: want 0 or more")
	}
	if f.bandwidth != "" {
		bw, err := bench.ParseBandwidth(f.bandwidth)
		if err != nil {
			return usageErr("%v", err)
		}
		link.Bandwidth = bw
	}
	for _, id := range f.tables {
		if !slices.Contains(bench.TableIDs, id) {
			return usageErr("bad --tables %q: want some of %s", id, strings.Join(bench.TableIDs, ", "))
		}
	}
	if t, err := f.resolve(); err != nil {
		return err
	} else if t.TLS != nil {
		return usageErr("bench does not support TLS yet")

	} else if t.Addr == "" && f.serverBin == "" && f.server == "miniredis" {
		return usageErr("bench does not run against --server miniredis: the embedded emulator has no INFO server " +
			"(bench identifies its target by it) and runs inside respcheck, so its timings would not be a server's; " +
			"start an installed build with --server (see scripts/install-servers.sh --list) or give --addr")
	}
	t, stopServer, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer stopServer()
	t.printNotes(stderr)
	o := bench.Options{Target: t.Config, Proto: proto, Trials: f.trials, Warmup: f.warmup, Quick: f.quick,
		Link: link, Tables: f.tables}
	o.Target.Timeout = f.timeout
	if f.quick && !f.set.Changed("trials") {
		o.Trials = 0 // bench's quick default
	}
	switch {
	case f.quick && !f.set.Changed("warmup"):
		o.Warmup = 0 // bench's quick default
	case f.warmup == 0:
		o.Warmup = -1 // none, as asked (0 would mean the default)
	}
	if t.spawned != nil {
		o.ServerPID = t.spawned.Pid()
	}
	_, o.Throwaway = t.spawned.(*servers.Server)
	durable, stopDurable, err := startDurable(ctx, t, f.tables, stderr)
	if err != nil {
		return serverErr(err)
	}
	defer stopDurable()
	o.Durable = durable
	if isTerminal(stderr) {
		o.Progress = func(title string) { fmt.Fprintf(stderr, "bench: %s...\n", title) }
	}
	rep, err := bench.Run(ctx, o)
	if err != nil {
		return benchError(ctx, t, err)
	}
	var buf bytes.Buffer
	if format.Name == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		err = rep.WriteText(&buf)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(stdout, f.out, buf.Bytes(), true); err != nil || f.chart == "" {
		return err
	}
	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		return err
	}
	return writeOutput(stdout, f.chart, svg.Bytes(), true)
}

// startDurable starts, for the table batch-aof-always, a second throwaway
// server of the spawned server's build with --appendonly yes
// --appendfsync always, and returns its address and how to stop it. On a
// target respcheck did not start (--addr, -u, a cluster) it starts
// nothing and, when the table was asked for by --tables, says on stderr
// that the table is left out: the user's server is never reconfigured,
// and the header reports its configuration.
func startDurable(ctx context.Context, t endpoint, tables []string, stderr io.Writer) (string, func(), error) {
	none := func() {}
	if len(tables) > 0 && !slices.Contains(tables, "batch-aof-always") {
		return "", none, nil
	}
	srv, ok := t.spawned.(*servers.Server)
	if !ok {
		if len(tables) > 0 {
			fmt.Fprintln(stderr, "respcheck: note: batch-aof-always needs a throwaway server (--server): left out; "+
				"the header reports this server's appendonly and appendfsync")
		}
		return "", none, nil
	}
	d, err := servers.Start(ctx, srv.Build(), servers.Options{ExtraArgs: []string{"--appendonly", "yes", "--appendfsync", "always"}})
	if err != nil {
		return "", none, fmt.Errorf("the appendfsync always server: %w", err)
	}
	return d.Addr(), func() { d.Stop() }, nil
}

// benchError is the exit error of a bench that failed: interrupted (130),
// or the server lost (3: said so when it no longer answers, with the
// first of the clients' errors only), or another server error.
func benchError(ctx context.Context, t endpoint, err error) error {
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted; the bench's keys were removed")}
	}
	if !target.New(t.Config, target.Server{}).Alive() {
		first, rest, _ := strings.Cut(err.Error(), "\n")
		if rest != "" {
			first += fmt.Sprintf(", and %d more", strings.Count(rest, "\n")+1)
		}
		return serverErr(fmt.Errorf("the server at %s stopped answering during the bench (%s); no table was written%s", t.Config.Addr, first, spawnedLog(t)))
	}
	var te *target.Error
	if errors.As(err, &te) {
		return serverErr(fmt.Errorf("%v%s", err, spawnedLog(t)))
	}
	return serverErr(err)
}
