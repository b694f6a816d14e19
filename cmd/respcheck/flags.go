package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report"
)

// The flags of the subcommands that take more than one or two: each struct
// with the method that registers its flags (run, record and clients share
// runFlags; every command that talks to a server, targetFlags).

type runFlags struct {
	targetFlags
	proto   string
	run     string
	tags    []string
	jobs    int
	servers int // run only
	timeout time.Duration
	format  string
	out     string
	verbose bool
	// veryVerbose is --very-verbose: -v and the wire of passing cases.
	veryVerbose bool
	// shard is --shard i/n (cases.ParseShard).
	shard   string
	noColor bool
	runID   string

	allowDestructive bool
	// noACLUser is --no-acl-user (runner.Options.NoACLUser).
	noACLUser bool
	// confirmDestructive confirms --allow-destructive on a server that
	// holds keys (destructive.go).
	confirmDestructive bool
	failFast           bool   // run only
	checkSchema        bool   // run only (schema.go)
	golden             string // run --golden DIR (golden.go)
	update             bool
	vars               []string // --var NAME=VALUE (run, record, clients)
	maxDepth           int      // --max-depth (run, record, clients)
}

// register registers the flags of respcheck run.
func (f *runFlags) register(fl *pflag.FlagSet) {
	f.targetFlags.register(fl)
	f.cluster.register(fl)
	f.registerSelection(fl, "run", "")
	fl.StringSliceVar(&f.tags, "tags", nil, "run only cases with one of these tags")
	fl.IntVar(&f.jobs, "jobs", 0, "cases run at once, each on its own connections (0: 4 per CPU, at most 8 against --addr/-u)")
	fl.IntVar(&f.servers, "servers", 0, "throwaway servers of the build to spread the cases over, so that a case that must run alone does not stop the others (0: one per CPU, at least 4; ignored against --addr/-u)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "deadline of one step")
	registerMaxDepth(fl, &f.maxDepth)
	formatFlag(fl, &f.format, report.RunReports)
	outFlag(fl, &f.out, report.RunReports)
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "list every case and every step of failures")
	fl.BoolVar(&f.veryVerbose, "very-verbose", false, "-v, and every step of every case, passes too, with the bytes sent and received")
	fl.BoolVar(&f.noColor, "no-color", false, "never use colours")
	fl.BoolVar(&f.checkSchema, "check-schema", false, "also check every RESP3 reply against the build's reply schemas (installed by scripts/install-schemas.sh); findings are listed, they do not change the exit status")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the first case that fails or errs (the running ones finish and clean up); exit 1")
	fl.BoolVar(&f.allowDestructive, "allow-destructive", false, "against --addr/-u, also run cases that send commands reaching beyond the run's keys (FLUSHALL, CONFIG SET, DEBUG SLEEP, SCRIPT KILL, ...)")
	fl.BoolVar(&f.confirmDestructive, "confirm-destructive", false, "with --allow-destructive, run the cases that reach beyond their keys although the database holds keys (else respcheck lists them and asks, or refuses without a terminal)")
	registerNoACLUser(fl, &f.noACLUser)
	fl.StringVar(&f.golden, "golden", "", "also compare every reply with the goldens in this `directory` (see respcheck record)")
	fl.BoolVar(&f.update, "update", false, "with --golden: rewrite the goldens whose replies changed instead of failing (the target must be the build the directory was recorded on)")
	fl.StringVar(&f.runID, "run-id", "", "key-name salt (default: random against --addr/-u, fixed for a throwaway server)")
	fl.StringVar(&f.shard, "shard", "", "run part `i/n` of the selected cases (every n-th case from the i-th, in file order), to split a run across CI machines; respcheck report makes the parts' JSON reports one column")
}

// registerSelection registers --proto and --run, which selection parses,
// for a command that does verb to the cases; about follows --run's usage.
func (f *runFlags) registerSelection(fl *pflag.FlagSet, verb, about string) {
	fl.StringVar(&f.proto, "proto", "both", "protocols to "+verb+": 2, 3 or both")
	choices(fl, "proto", "2", "3", "both")
	fl.StringVar(&f.run, "run", "", verb+" only cases whose file/name matches this `regexp`"+about)
	registerVars(fl, &f.vars)
}

// registerMaxDepth registers --max-depth, the reader's nesting limit.
func registerMaxDepth(fl *pflag.FlagSet, depth *int) {
	fl.IntVar(depth, "max-depth", resp.DefaultLimits.MaxDepth, "read replies nested at most this many levels deep (a deeper reply is an error of its step, not malformed RESP; Lua scripts on Redis 8.6 and Valkey 9.1 nest up to 7,996)")
}

// registerVars registers --var, the values of the {var:NAME} templates.
func registerVars(fl *pflag.FlagSet, vars *[]string) {
	fl.StringArrayVar(vars, "var", nil, "set the template variable {var:NAME} to VALUE (`NAME=VALUE`, repeatable; VALUE may hold '=' and ',')")
}

// parseVars parses --var NAME=VALUE flags into cases.Options.Vars; a name
// given twice is a usage error.
func parseVars(flags []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, f := range flags {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, usageErr("bad --var %q: want NAME=VALUE", f)
		}
		if _, dup := vars[name]; dup {
			return nil, usageErr("--var %s given twice", name)
		}
		vars[name] = value
	}
	return vars, nil
}

type clientsFlags struct {
	runFlags
	clients  string
	split    []int
	extra    string
	list     bool
	adapters string
	// adapterCmds are the user's own adapters (--adapter), as given.
	adapterCmds []string
	matrix      bool
	explain     string
	generate    generateFlags
}

// register registers the flags of respcheck clients.
func (f *clientsFlags) register(fl *pflag.FlagSet) {
	f.targetFlags.register(fl)
	f.cluster.register(fl)
	fl.BoolVar(&f.allowDestructive, "allow-destructive", false, "run against an existing server (--addr/-u) although client libraries run the cases without run's shared-server guard and key cleanup")
	fl.BoolVar(&f.confirmDestructive, "confirm-destructive", false, "with --allow-destructive, run the cases that reach beyond their keys although the database holds keys (else respcheck lists them and asks, or refuses without a terminal)")
	f.registerSelection(fl, "run", "")
	fl.IntVar(&f.jobs, "jobs", 0, "(client, case) pairs run at once, and cases at once in the check of the cases (0: 8 per CPU); with --generate, sessions at once (0: 24 per CPU)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "deadline of one library call (verdict hang; with --generate 1s unless given)")
	registerMaxDepth(fl, &f.maxDepth)
	formatFlag(fl, &f.format, report.ClientsReports)
	outFlag(fl, &f.out, report.ClientsReports)
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show every step of non-matching results and the wire (handshakes, pushes), and the matrix")
	fl.BoolVar(&f.matrix, "matrix", false, "also show the cases × clients matrix, one symbol a result, in blocks that fit 100 columns")
	fl.StringVar(&f.runID, "run-id", "", "key-name salt (default: random against --addr/-u, fixed for a throwaway server)")
	fl.StringVar(&f.clients, "clients", "all", "comma-separated libraries: "+strings.Join(clientNames, ", ")+" (a name selects each of its versions and configurations: ioredis selects ioredis-5.11.1, ioredis-6.0.0[replyMapping=resp3], ioredis-6.0.0/pipeline...; --list-clients lists them)")
	fl.IntSliceVar(&f.split, "split", nil, "proxy fault: split every server→client frame at these byte `offsets`")
	fl.StringVar(&f.extra, "extra-after", "", "proxy fault: after the first reply to this `command` on each connection, send an extra +respcheck-extra reply no command asked for (every later reply is one behind)")
	fl.BoolVar(&f.list, "list-clients", false, "list every client configuration (version, configuration, API, source, protocols), or why it is not installed, and exit (--format human or json)")
	fl.StringVar(&f.explain, "explain", "", "print the decoding contract of the clients this `name` selects (as --clients reads it): what the judge accepts each RESP type decoded as, and the documented conversions with their sources; and exit (--format human or json)")
	fl.StringVar(&f.adapters, "adapters", "", "the adapters `directory` (default: ./adapters or $RESPCHECK_ADAPTERS)")
	fl.StringArrayVar(&f.adapterCmds, "adapter", nil, "also drive the libraries of your own adapter: a `command` and its arguments, split at spaces, that speaks the adapter protocol of docs/adapters.md (repeatable)")
	f.generate.register(fl)
}

// adapterSource is where the adapter processes come from: --adapters and
// each --adapter command line, split at spaces.
func (f *clientsFlags) adapterSource() clients.AdapterSource {
	src := clients.AdapterSource{Dir: f.adapters}
	for _, c := range f.adapterCmds {
		if fields := strings.Fields(c); len(fields) > 0 {
			src.Commands = append(src.Commands, fields)
		}
	}
	return src
}

// userAdapterNote reports whether note n is about one of the --adapter
// commands (it names the command line).
func (f *clientsFlags) userAdapterNote(n string) bool {
	for _, c := range f.adapterSource().Commands {
		if strings.Contains(n, strings.Join(c, " ")) {
			return true
		}
	}
	return false
}

type recordFlags struct {
	runFlags
	dir    string
	passes int
}

// register registers the flags of respcheck record.
func (f *recordFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.dir, "out", "", "write the goldens into this `directory` (required), e.g. testdata/golden/redis-7.0.15")
	fl.IntVar(&f.passes, "passes", 2, "run the suite this many times; steps whose replies differ are marked volatile")
	f.targetFlags.register(fl)
	f.cluster.register(fl)
	f.registerSelection(fl, "record", " (the goldens then hold only those)")
	fl.StringSliceVar(&f.tags, "tags", nil, "record only cases with one of these tags")
	fl.IntVar(&f.jobs, "jobs", 0, "cases run at once (0: the number of CPUs)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "deadline of one step")
	registerMaxDepth(fl, &f.maxDepth)
	fl.BoolVar(&f.allowDestructive, "allow-destructive", false, "against --addr/-u, also record cases that reach beyond the run's keys")
	fl.BoolVar(&f.confirmDestructive, "confirm-destructive", false, "with --allow-destructive, record the cases that reach beyond their keys although the database holds keys (else respcheck lists them and asks, or refuses without a terminal)")
	registerNoACLUser(fl, &f.noACLUser)
}

// registerNoACLUser registers --no-acl-user (run and record).
func registerNoACLUser(fl *pflag.FlagSet, v *bool) {
	fl.BoolVar(v, "no-acl-user", false, "against --addr/-u, connect with the given credentials only: by default the run creates an ACL user of its own (where they allow ACL SETUSER) that may reach only the run's keys and channels, and deletes it at the end")
}

type benchFlags struct {
	targetFlags
	proto   string
	trials  int
	warmup  int
	quick   bool
	format  string
	out     string
	chart   string
	timeout time.Duration
	// latency, jitter and bandwidth configure the delaying link
	// (bench.LinkConfig); tables picks tables by ID.
	latency   time.Duration
	jitter    time.Duration
	bandwidth string
	tables    []string
	// set is the flag set: --quick does not override --trials and
	// --warmup when they were given.
	set *pflag.FlagSet
}

// register registers the flags of respcheck bench.
func (f *benchFlags) register(fl *pflag.FlagSet) {
	f.set = fl
	f.targetFlags.register(fl)
	fl.StringVar(&f.proto, "proto", "2", "protocol of the connection: 2 or 3")
	choices(fl, "proto", "2", "3")
	fl.IntVar(&f.trials, "trials", 50, "timed trials per cell")
	fl.IntVar(&f.warmup, "warmup", 5, "untimed trials before them")
	fl.BoolVar(&f.quick, "quick", false, "few trials (5 after 1 warm-up, unless --trials or --warmup is given; contention: 2 runs of a fifth of the updates): a smoke run of every table")
	formatFlag(fl, &f.format, report.BenchReports)
	fl.StringVarP(&f.out, "out", "o", "", "write the output to `file` instead of stdout")
	fl.StringVar(&f.chart, "chart", "", "also draw the tables as an SVG chart in `file`")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "deadline of one command")
	fl.DurationVar(&f.latency, "latency", 0, "add this one-way latency to each direction through a relay on 127.0.0.1 (a round trip gains twice it)")
	fl.DurationVar(&f.jitter, "jitter", 0, "with the relay: add a random 0 to this to each chunk's latency (never reordering)")
	fl.StringVar(&f.bandwidth, "bandwidth", "", "with the relay: limit each direction to this `rate` (10MB/s, 500KB/s)")
	fl.StringSliceVar(&f.tables, "tables", nil, "run only these tables (overwrite, digest, incr-expire, batch, batch-read, batch-aof-always, contention)")
}

type diffFlags struct {
	volatile bool
	verbose  bool
	format   string
}

// register registers the flags of respcheck diff.
func (f *diffFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.volatile, "volatile", false, "also compare steps marked volatile")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show every change in full, steps in one recording only and long replies too")
	formatFlag(fl, &f.format, report.DiffReports)
}

type serveFlags struct {
	dir        string
	listen     string
	proto      string
	split      string
	splitDelay time.Duration
	trickle    time.Duration
	closeAfter int
}

// register registers the flags of respcheck serve.
func (f *serveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.dir, "golden", "", "the golden `directory` to serve (required)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:6390", "listen on this `host:port`")
	fl.StringVar(&f.proto, "proto-of-recording", "auto", "answer from the RESP2 or RESP3 recordings (2, 3), or follow the client's HELLO (auto)")
	fl.StringVar(&f.split, "split", "", "write each reply in parts cut at these byte `offsets` (e.g. 1,5)")
	fl.DurationVar(&f.splitDelay, "split-delay", 5*time.Millisecond, "pause between the parts of a split reply")
	fl.DurationVar(&f.trickle, "trickle", 0, "write replies one byte at a time with this pause (e.g. 1ms)")
	fl.IntVar(&f.closeAfter, "close-after", 0, "close the connection after the first N bytes of any reply longer than N")
}
