package runner_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// load parses an inline case file.
func load(t *testing.T, src string) []*cases.File {
	t.Helper()
	f, err := cases.Load("inline.yaml", []byte(src))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return []*cases.File{f}
}

// runInline runs the inline case file src against a throwaway server of
// the pinned build server.
func runInline(t *testing.T, server, src string, opts runner.Options) *runner.Report {
	t.Helper()
	return run(t, servers.ForTest(t, server).Addr(), load(t, src), opts)
}

func run(t *testing.T, addr string, files []*cases.File, opts runner.Options) *runner.Report {
	t.Helper()
	opts.Addr = addr
	if opts.StepTimeout == 0 {
		opts.StepTimeout = 3 * time.Second
	}
	rep, err := runner.Run(context.Background(), files, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// result finds the result of a case by name and protocol.
func result(t *testing.T, rep *runner.Report, name string, proto int) *runner.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Case.Name == name && r.Proto == proto {
			return r
		}
	}
	t.Fatalf("no result for %q in RESP%d", name, proto)
	return nil
}

// rawClient is a minimal pipelining client for test fixtures.
type rawClient struct {
	nc net.Conn
	r  *resp.Reader
	w  *bufio.Writer
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{nc: nc, r: resp.NewReader(nc), w: bufio.NewWriterSize(nc, 1<<16)}
}

func (c *rawClient) send(args ...string) { c.w.Write(resp.AppendCommandString(nil, args...)) }

// do sends one command and returns its reply, cloned.
func (c *rawClient) do(t *testing.T, args ...string) resp.Value {
	t.Helper()
	c.send(args...)
	return c.flushRead(t, 1)[0]
}

// flushRead flushes and reads n replies; an error reply fails the test.
func (c *rawClient) flushRead(t *testing.T, n int) []resp.Value {
	t.Helper()
	if err := c.w.Flush(); err != nil {
		t.Fatal(err)
	}
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	out := make([]resp.Value, 0, n)
	for i := 0; i < n; i++ {
		v, err := c.r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if v.Kind == resp.SimpleError {
			t.Fatalf("reply %d: %s", i, v.Str)
		}
		out = append(out, v.Clone())
	}
	return out
}

// loadMixed writes n keys of every type (strings, hashes, lists, sets,
// sorted sets, streams; some with a TTL) in batches.
func loadMixed(t *testing.T, c *rawClient, n int) {
	t.Helper()
	const batch = 1000
	pending := 0
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("app:%d", i)
		switch i % 6 {
		case 0:
			c.send("SET", k, strings.Repeat("v", i%50))
		case 1:
			c.send("HSET", k, "f1", "a", "f2", fmt.Sprint(i))
		case 2:
			c.send("RPUSH", k, "x", "y", fmt.Sprint(i))
		case 3:
			c.send("SADD", k, "m1", fmt.Sprint(i))
		case 4:
			c.send("ZADD", k, "1.5", "a", fmt.Sprint(i), "b")
		case 5:
			c.send("SET", k, fmt.Sprint(i), "EX", "86400")
		}
		pending++
		if pending == batch {
			c.flushRead(t, pending)
			pending = 0
		}
	}
	c.flushRead(t, pending)
}

var updateMatrix = flag.Bool("update-matrix", false, "rewrite docs/generated/server-matrix.md from the bundled suite's results")

// TestBundledSuite runs the whole bundled suite against each pinned build,
// against a cluster (three primaries, one replica each) of Redis 8.6.3
// and of Valkey 9.1.2 (checkClusterRun), and against the embedded
// miniredis, in both protocols, and wants no failure and no error. It also keeps docs/generated/server-matrix.md, the table of
// which case files run, skip or differ on which server, up to date
// (-update-matrix rewrites it).
func TestBundledSuite(t *testing.T) {
	// The servers run side by side (two at a time: go test's -parallel),
	// and the matrix is compared once all have reported: each run waits
	// on its server about half of the time.
	var mu sync.Mutex
	reports := map[string]*runner.Report{}
	keep := func(name string, rep *runner.Report) {
		mu.Lock()
		reports[name] = rep
		mu.Unlock()
	}
	t.Cleanup(func() { compareServerMatrix(t, reports) })
	for _, name := range clusterBuilds {
		t.Run(name+" cluster", func(t *testing.T) {
			t.Parallel()
			cl := servers.ClusterForTest(t, name, servers.ClusterOptions{Primaries: 3, Replicas: 1})
			files, err := cases.Bundled()
			if err != nil {
				t.Fatal(err)
			}
			rep := run(t, cl.Nodes[0].Addr(), files, runner.Options{Jobs: 8})
			checkClusterRun(t, rep)
			keep(name+" cluster", rep)
		})
	}
	for _, name := range servers.Pinned {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := servers.ForTest(t, name)
			files, err := cases.Bundled()
			if err != nil {
				t.Fatal(err)
			}
			rep := run(t, srv.Addr(), files, runner.Options{Jobs: 2})
			if rep.Server.Family+"-"+rep.Server.Version != name {
				t.Errorf("identified %s %s, want %s", rep.Server.Family, rep.Server.Version, name)
			}
			wantNoFailures(t, name, rep)
			keep(name, rep)
		})
	}
	// The embedded emulator of --server miniredis, in this process: every
	// difference of it is a miniredis expectation, a known difference or a
	// gate in the cases.
	t.Run("miniredis", func(t *testing.T) {
		t.Parallel()
		files, err := cases.Bundled()
		if err != nil {
			t.Fatal(err)
		}
		rep := run(t, miniredis.RunT(t).Addr(), files, runner.Options{Jobs: 2})
		if rep.Server.Family != "miniredis" {
			t.Errorf("identified %s %s, want miniredis", rep.Server.Family, rep.Server.Version)
		}
		wantNoFailures(t, "miniredis", rep)
		keep("miniredis", rep)
	})
}

// compareServerMatrix checks docs/generated/server-matrix.md against the reports of
// every server (or rewrites it with -update-matrix); with a server missing
// or a failed run it says nothing.
func compareServerMatrix(t *testing.T, reports map[string]*runner.Report) {
	if len(reports) != len(matrixColumns()) || t.Failed() {
		return
	}
	got := serverMatrix(reports)
	const path = "../docs/generated/server-matrix.md"
	if *updateMatrix {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Errorf("docs/generated/server-matrix.md is stale; run: go test ./runner -run TestBundledSuite -update-matrix\n%s",
			diffLines(string(want), got))
	}
}

// wantNoFailures reports every failed or errored result of rep, and too few
// passes, and logs the summary.
func wantNoFailures(t *testing.T, name string, rep *runner.Report) {
	t.Helper()
	for _, r := range rep.Results {
		if r.Status == runner.Fail || r.Status == runner.Error {
			msg := r.Reason
			if r.Failure != nil {
				msg += "\n want: " + r.Failure.Expected + "\n  got: " + resp.Escape(r.Failure.Actual)
			}
			t.Errorf("%s [RESP%d]: %s", r.Case.FullName(), r.Proto, msg)
		}
	}
	if rep.Summary.Passed < 20 {
		t.Errorf("only %d results passed: %+v", rep.Summary.Passed, rep.Summary)
	}
	t.Logf("%s: %+v", name, rep.Summary)
}

// matrixColumns are the servers of docs/generated/server-matrix.md, in order: the
// pinned builds, the clusters, then the embedded miniredis.
func matrixColumns() []string {
	cols := slices.Clone(servers.Pinned)
	for _, b := range clusterBuilds {
		cols = append(cols, b+" cluster")
	}
	return append(cols, "miniredis")
}

// serverMatrix renders, per case file and server, how many results passed,
// were skipped (gates) and are known differences.
func serverMatrix(reports map[string]*runner.Report) string {
	var b strings.Builder
	b.WriteString("# Bundled suite × servers\n\n")
	b.WriteString("Generated by `go test ./runner -run TestBundledSuite -update-matrix` from real runs of\n")
	b.WriteString("the bundled suite in RESP2 and RESP3. Each cell counts results (a case in one protocol):\n")
	b.WriteString("passed / skipped by a gate / known differences. A skip means the server lacks the\n")
	b.WriteString("feature the case needs; a known difference is declared in the case with its reason.\n\n")
	b.WriteString("| case file |")
	for _, name := range matrixColumns() {
		b.WriteString(" " + name + " |")
	}
	b.WriteString("\n|---|")
	for range matrixColumns() {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	type counts struct{ pass, skip, known int }
	var files []string
	cells := map[string]map[string]*counts{}
	for _, name := range matrixColumns() {
		for _, r := range reports[name].Results {
			f := r.Case.File.Path
			if cells[f] == nil {
				cells[f] = map[string]*counts{}
				files = append(files, f)
			}
			c := cells[f][name]
			if c == nil {
				c = &counts{}
				cells[f][name] = c
			}
			switch r.Status {
			case runner.Pass:
				c.pass++
			case runner.Skip:
				c.skip++
			case runner.KnownDiff:
				c.known++
			}
		}
	}
	for _, f := range files {
		b.WriteString("| `" + f + "` |")
		for _, name := range matrixColumns() {
			c := cells[f][name]
			if c == nil {
				c = &counts{}
			}
			fmt.Fprintf(&b, " %d / %d / %d |", c.pass, c.skip, c.known)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// diffLines shows the lines of got that are not in want, and the reverse.
func diffLines(want, got string) string {
	w := map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	g := map[string]bool{}
	var out []string
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

func TestWrongExpectationIsAFailureWithTheDiff(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", `
suite: wrong
cases:
  - name: wrong bytes
    steps:
      - send: [SET, "{key}", original]
      - send: [GET, "{key}"]
        reply: "$8\r\norigin4l\r\n"
      - send: [PING]
        reply: "+PONG\r\n"
  - name: wrong error text
    steps:
      - send: [GET]
        error: "ERR wrong number of arguments"
  - name: error wanted, value got
    steps:
      - send: [PING]
        error_code: ERR
  - name: kind and pattern
    steps:
      - send: [ECHO, "x"]
        value: {type: simple string, match: x}
`, runner.Options{})
	if rep.Summary.Failed != 8 || rep.Summary.Passed != 0 {
		t.Fatalf("summary %+v, want 8 failed", rep.Summary)
	}
	for _, proto := range []int{2, 3} {
		r := result(t, rep, "wrong bytes", proto)
		f := r.Failure
		if f == nil {
			t.Fatalf("RESP%d: no failure: %s", proto, r.Reason)
		}
		if f.Offset != 10 {
			t.Errorf("offset %d, want 10", f.Offset)
		}
		if got := string(f.Actual); got != "$8\r\noriginal\r\n" {
			t.Errorf("actual %q", got)
		}
		if f.Expected != `"$8\r\norigin4l\r\n"` {
			t.Errorf("expected %s", f.Expected)
		}
		if f.Step.Pos.Line != 7 {
			t.Errorf("failing step at %s, want line 7", f.Step.Pos)
		}
		if len(r.Steps) != 2 {
			t.Errorf("ran %d steps, want to stop after the failing second", len(r.Steps))
		}
		if r := result(t, rep, "wrong error text", proto); r.Failure == nil || r.Failure.Message != "error text differs" {
			t.Errorf("wrong error text: %+v", r.Failure)
		}
		if r := result(t, rep, "kind and pattern", proto); r.Failure == nil || r.Failure.Message != "want simple string, got blob string" {
			t.Errorf("kind and pattern: %+v", r.Failure)
		}
		if r := result(t, rep, "error wanted, value got", proto); r.Failure == nil || !strings.Contains(r.Failure.Message, "want an error, got simple string") {
			t.Errorf("error wanted: %+v", r.Failure)
		}
	}
}

func TestMatchers(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", `
suite: matchers
cases:
  - name: typed values, patterns, captures
    exclusive: true
    steps:
      - send: [RPUSH, "{key:l}", a, "1"]
        value: 2
      - send: [LRANGE, "{key:l}", "0", "-1"]
        value: {array: [a, {blob: "1"}]}
      - send: [HSET, "{key:h}", f, v]
      - send: [HGETALL, "{key:h}"]
        value: {resp2: {array: [f, v]}, resp3: {map: [[f, v]]}}
      - send: [ECHO, "captured-value"]
        capture: c
      - send: [ECHO, "{cap:c}!"]
        reply: "$15\r\ncaptured-value!\r\n"
      - send: [FOO]
        error_match: "^ERR unknown command 'FOO'"
      - send: [GET, "{key:l}"]
        error_code: WRONGTYPE
      - send: [HELLO]
        value: {resp2: {type: array}, resp3: {type: map}}
      - send: [INCR, "{key:n}"]
        any: true
      - send: [SADD, "{key:s}", a, b, c]
      - send: [SMEMBERS, "{key:s}"]
        value: {resp2: {array_unordered: [c, {any: true}, a]}, resp3: {set_unordered: [c, {any: true}, a]}}
      - send: [INFO, stats]
        capture: {name: conns, match: 'total_connections_received:(\d+)'}
      - {conn: other, send: [PING]}
      - send: [INFO, stats]
        value: {match: 'total_connections_received:{add:1:{cap:conns}}\r'}
  - name: async send, read later, and a push out of band
    requires: {proto: 3}
    steps:
      - {conn: sub, send: [SUBSCRIBE, "{key:ch}"], value: {push: [{blob: subscribe}, {match: "ch$"}, 1]}}
      - {conn: pub, send: [PUBLISH, "{key:ch}", hi], reply: ":1\r\n"}
      - {conn: sub, push: {push: [{blob: message}, {type: blob string}, hi]}}
      - {conn: w, send: [BLPOP, "{key:q}", "2"], async: true}
      - {conn: p, send: [RPUSH, "{key:q}", x], value: 1}
      - {conn: w, read: true, value: {array: [{match: "q$"}, x]}}
`, runner.Options{})
	for _, r := range rep.Results {
		if r.Status != runner.Pass && r.Status != runner.Skip {
			t.Errorf("%s [RESP%d]: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
		}
	}
	if r := result(t, rep, "async send, read later, and a push out of band", 2); r.Status != runner.Skip || r.Reason != "runs in RESP3 only" {
		t.Errorf("RESP2 result %s %q, want a skip", r.Status, r.Reason)
	}
}

func TestGatesAndKnownDifferences(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", `
suite: gates
cases:
  - name: needs valkey
    requires: {server: valkey}
    steps: [{send: [PING]}]
  - name: needs a command this server lacks
    requires: {commands: [DIGEST]}
    steps: [{send: [PING]}]
  - name: needs a feature this server lacks
    requires: {probes: [[SET, "{key}", v, IFEQ, x]]}
    steps: [{send: [PING]}]
  - name: needs a feature this server has
    requires: {probes: [[SET, "{key}", v, GET]], commands: [GET], debug: true}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: a known difference that still fails
    known: [{server: "redis<8", reason: "seen on 7.0.15"}]
    steps: [{send: [PING], reply: "+PING\r\n"}]
  - name: a known difference that now passes
    known: [{server: "redis", reason: "was different once"}]
    steps: [{send: [PING], reply: "+PONG\r\n"}]
`, runner.Options{Protos: []int{2}})
	want := map[string]runner.Status{
		"needs valkey":                        runner.Skip,
		"needs a command this server lacks":   runner.Skip,
		"needs a feature this server lacks":   runner.Skip,
		"needs a feature this server has":     runner.Pass,
		"a known difference that still fails": runner.KnownDiff,
		"a known difference that now passes":  runner.Fail,
	}
	for name, st := range want {
		r := result(t, rep, name, 2)
		if r.Status != st {
			t.Errorf("%s: status %s (%s), want %s", name, r.Status, r.Reason, st)
		}
	}
	if r := result(t, rep, "needs a feature this server lacks", 2); !strings.Contains(r.Reason, "ERR syntax error") {
		t.Errorf("probe skip reason %q does not carry the server's answer", r.Reason)
	}
	if r := result(t, rep, "a known difference that now passes", 2); !strings.Contains(r.Reason, "no longer reproduces") {
		t.Errorf("xpass reason %q", r.Reason)
	}
	if rep.Failed() != true || rep.Summary.Known != 1 || rep.Summary.Skipped != 3 {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// TestServerKilledMidRun kills the server while a case waits on a reply:
// the case is an error, the run stops, and ServerLost is set, quickly.
func TestServerKilledMidRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		t.Run(sig.String(), func(t *testing.T) {
			srv := servers.ForTest(t, "redis-7.0.15")
			files := load(t, `
suite: dies
cases:
  - name: a slow step
    steps:
      - send: [BLPOP, "{key}", "0"]
  - {name: after 1, steps: [{send: [PING]}]}
  - {name: after 2, steps: [{send: [PING]}]}
  - {name: after 3, steps: [{send: [PING]}]}
`)
			go func() {
				time.Sleep(300 * time.Millisecond)
				srv.Signal(sig)
			}()
			if sig == syscall.SIGSTOP {
				t.Cleanup(func() { srv.Signal(syscall.SIGCONT) })
			}
			rep := run(t, srv.Addr(), files, runner.Options{Jobs: 1, Protos: []int{2}, StepTimeout: time.Second})
			if rep.ServerLost == nil {
				t.Fatalf("ServerLost not set: %+v", rep.Summary)
			}
			r := result(t, rep, "a slow step", 2)
			if r.Status != runner.Error {
				t.Errorf("slow step: %s %s, want error", r.Status, r.Reason)
			}
			if rep.Summary.Errors != 4 {
				t.Errorf("summary %+v, want 4 errors (the slow step and 3 not run)", rep.Summary)
			}
		})
	}
}

func TestTargetUnreachable(t *testing.T) {
	_, err := runner.Run(context.Background(), nil, runner.Options{Addr: "127.0.0.1:1", StepTimeout: time.Second})
	if _, ok := err.(*target.Error); !ok {
		t.Fatalf("err = %v, want a *target.Error", err)
	}
}

// TestCleanupStepsRunAfterAFailure: a case that fails still runs its
// cleanup steps, and a failing cleanup step makes a passing case an error.
func TestCleanupStepsRunAfterAFailure(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	rep := run(t, srv.Addr(), load(t, `
suite: cleanup
cases:
  - name: fails, then cleans up
    exclusive: true
    steps:
      - {send: [CONFIG, SET, maxmemory-samples, "7"], reply: "+OK\r\n"}
      - {send: [PING], reply: "+WRONG\r\n"}
      - {send: [PING], reply: "+PONG\r\n"}
    cleanup:
      - {send: [CONFIG, SET, maxmemory-samples, "5"], reply: "+OK\r\n"}
  - name: cleanup fails
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
    cleanup:
      - {send: [PING], reply: "+WRONG\r\n"}
`), runner.Options{Protos: []int{2}})
	r := result(t, rep, "fails, then cleans up", 2)
	if r.Status != runner.Fail || len(r.Steps) != 3 || r.Steps[2].Step.Pos.Line != 11 {
		t.Errorf("status %s, %d steps: want the failure and the cleanup step", r.Status, len(r.Steps))
	}
	c := dialRaw(t, srv.Addr())
	if v := c.do(t, "CONFIG", "GET", "maxmemory-samples"); string(v.Elems[1].Str) != "5" {
		t.Errorf("maxmemory-samples = %s after the cleanup", v.Elems[1].Str)
	}
	if r := result(t, rep, "cleanup fails", 2); r.Status != runner.Error || !strings.Contains(r.Reason, "cleanup step") {
		t.Errorf("cleanup fails: %s %s", r.Status, r.Reason)
	}
}

// TestStepDurationIsReported: a step's Duration is the time it took (it
// was always 0 while step's deferred assignment missed its return value).
func TestStepDurationIsReported(t *testing.T) {
	rep := runInline(t, "redis-7.0.15", `
suite: durations
cases:
  - name: slow step
    steps:
      - send: [DEBUG, SLEEP, "0.05"]
        reply: "+OK\r\n"
`, runner.Options{Protos: []int{2}})
	r := result(t, rep, "slow step", 2)
	if r.Status != runner.Pass || len(r.Steps) == 0 {
		t.Fatalf("status %v, %d steps: %s", r.Status, len(r.Steps), r.Reason)
	}
	if d := r.Steps[0].Duration; d < 50*time.Millisecond {
		t.Errorf("DEBUG SLEEP 0.05 step reported %v, want ≥ 50ms", d)
	}
}
