package runner_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

const pingSteps = 10000

// BenchmarkPing compares, on one throwaway server in one run, a case of
// 10,000 PING steps executed by the runner with a bare raw-socket loop doing
// the same round trips. ns/op is per round trip in both, so the ratio of the
// two is the runner's overhead (target: at most 1.10).
func BenchmarkPing(b *testing.B) {
	srv := servers.ForTest(b, "redis-7.0.15")
	var src strings.Builder
	src.WriteString("suite: bench\ncases:\n  - name: pings\n    steps:\n")
	for i := 0; i < pingSteps; i++ {
		src.WriteString("      - {send: [PING], reply: \"+PONG\\r\\n\"}\n")
	}
	f, err := cases.Load("bench.yaml", []byte(src.String()))
	if err != nil {
		b.Fatal(err)
	}
	files := []*cases.File{f}

	b.Run("runner", func(b *testing.B) {
		opts := runner.Options{Addr: srv.Addr(), Protos: []int{2}, Jobs: 1, StepTimeout: 5 * time.Second}
		for b.Loop() {
			rep, err := runner.Run(context.Background(), files, opts)
			if err != nil || rep.Summary.Passed != 1 {
				b.Fatalf("run: %v %+v", err, rep.Summary)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pingSteps), "ns/roundtrip")
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			nc, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				b.Fatal(err)
			}
			r := bufio.NewReader(nc)
			for i := 0; i < pingSteps; i++ {
				if _, err := nc.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
					b.Fatal(err)
				}
				line, err := r.ReadString('\n')
				if err != nil || line != "+PONG\r\n" {
					b.Fatalf("%q %v", line, err)
				}
			}
			nc.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pingSteps), "ns/roundtrip")
	})
}

// BenchmarkBundledSuite is the bundled suite's wall time on one server with
// one job (the old default on 1 CPU) and with the default jobs, and on a pool
// of runner.DefaultServers() servers with the default jobs (run's default on
// a throwaway server).
func BenchmarkBundledSuite(b *testing.B) {
	n := runner.DefaultServers()
	pool := make([]string, n-1)
	srv := servers.ForTest(b, "redis-8.6.3")
	for i := range pool {
		pool[i] = servers.ForTest(b, "redis-8.6.3").Addr()
	}
	files, err := cases.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		jobs int
		pool []string
	}{
		{"servers=1/jobs=1", 1, nil},
		{"servers=1/jobs=default", 0, nil},
		{fmt.Sprintf("servers=%d/jobs=default", n), 0, pool},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				// A fresh run id each time: the keys of the previous run are still
				// on the server.
				rep, err := runner.Run(context.Background(), files, runner.Options{Addr: srv.Addr(), Jobs: tc.jobs, Pool: tc.pool, RunID: runner.NewRunID()})
				if err != nil || rep.Failed() {
					b.Fatalf("run: %v %+v", err, rep.Summary)
				}
			}
		})
	}
}

// smallCases builds n small cases of three round trips each (a write, a
// read, a delete), like a decoded-value corpus of several hundred cases.
func smallCases(b testing.TB, n int) []*cases.File {
	return casesOf(b, "small", n, []string{
		`[SET, "{key}", v] +OK|[GET, "{key}"] $1 v|[DEL, "{key}"] :1`,
		`[RPUSH, "{key}", a, b] :2|[LRANGE, "{key}", 0, -1] *2|[DEL, "{key}"] :1`,
		`[HSET, "{key}", f, v] :1|[HGET, "{key}", f] $1 v|[DEL, "{key}"] :1`,
	})
}

// BenchmarkSmallCases is the wall time of 350 small cases (1,050 round
// trips) in one protocol by --jobs, on one throwaway server.
func BenchmarkSmallCases(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	files := smallCases(b, 350)
	for _, jobs := range []int{0, 2, 8, 16, 32} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			for b.Loop() {
				rep, err := runner.Run(context.Background(), files, runner.Options{Addr: srv.Addr(), Jobs: jobs, Protos: []int{3}, RunID: runner.NewRunID()})
				if err != nil || rep.Failed() || rep.Summary.Passed != 350 {
					b.Fatalf("run: %v %+v", err, rep.Summary)
				}
			}
		})
	}
}

// BenchmarkSharedSmallCases is 350 small cases (1,050 case commands, see
// smallCases) in one protocol against an existing server (Options.Shared:
// each case's keys deleted after it) that holds 0 or 200,000 keys of
// its own, with the server's command calls per case command (INFO
// commandstats, CONFIG RESETSTAT before each run) as calls/cmd: what a
// run costs the server beyond the cases' own commands.
func BenchmarkSharedSmallCases(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	files := smallCases(b, 350)
	c, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for _, keys := range []int{0, 200000} {
		if keys > 0 {
			if v, err := c.Do("EVAL", fmt.Sprintf("for i = 1, %d do redis.call('SET', 'user:' .. i, 'x') end", keys), "0"); err != nil || target.IsError(v) {
				b.Fatal(v, err)
			}
		}
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			var calls int64
			for b.Loop() {
				c.Do("CONFIG", "RESETSTAT")
				rep, err := runner.Run(context.Background(), files, runner.Options{Addr: srv.Addr(), Shared: true, Protos: []int{3}, RunID: runner.NewRunID()})
				if err != nil || rep.Failed() || rep.Summary.Passed != 350 {
					b.Fatalf("run: %v %+v", err, rep.Summary)
				}
				calls += commandCalls(b, c)
			}
			b.ReportMetric(float64(calls)/float64(b.N*350*3), "calls/cmd")
		})
	}
}

// peerLike are the kinds of case of peerLikeCases: commands of a peer's
// corpus (resp-compatibility's cts.json: literal key names, several
// commands a case, keys found by COMMAND INFO's key range or, for movable
// keys, the key specifications).
var peerLike = []string{
	"[SET, k, v] +OK|[GET, k] $1 v|[DEL, k] :1",
	"[RPUSH, mylist, a, b] :2|[LRANGE, mylist, 0, -1] *2|[LPOP, mylist] $1 a",
	"[HSET, h, f, v] :1|[HGETALL, h] *2",
	"[ZADD, z1, 1, a] :1|[ZADD, z2, 2, a] :1|[ZUNIONSTORE, out, 2, z1, z2] :1|[ZSCORE, out, a] $1 3",
	"[RPUSH, l1, x] :1|[LMPOP, 2, l1, l2, LEFT] *2",
	"[XADD, s1, 1-1, f, v] $3 1-1|[XREAD, COUNT, 1, STREAMS, s1, 0] *1",
	"[SADD, s1, a, b] :2|[SADD, s2, b] :1|[SINTERCARD, 2, s1, s2] :1",
	"[INCR, counter] :1|[INCRBY, counter, 5] :6|[EXPIRE, counter, 100] :1|[TTL, counter] :100",
	"[GEOADD, g, 13.361389, 38.115556, Palermo] :1|[GEODIST, g, Palermo, Palermo] $6 0.0000",
	"[MSET, a, 1, b, 2] +OK|[MGET, a, b] *2",
	"[SET, n, 10] +OK|[DECR, n] :9|[GETDEL, n] $1 9",
}

// peerLikeCases builds n cases of the kinds of peerLike, in turn, with
// their keys written literally (moved into each case's namespace by the
// runner).
func peerLikeCases(b testing.TB, n int) []*cases.File { return casesOf(b, "peer-like", n, peerLike) }

// casesOf builds a suite of n cases of kinds, in turn. A kind is its steps
// joined by "|", each a YAML flow sequence to send, a space and its
// reply's first line, then its blob's text if any: "[GET, k] $1 v" expects
// "$1\r\nv\r\n"; a reply of an aggregate (`*`) is any value.
func casesOf(b testing.TB, suite string, n int, kinds []string) []*cases.File {
	var src strings.Builder
	fmt.Fprintf(&src, "suite: %s\ncases:\n", suite)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "  - name: case %d\n    steps:\n", i)
		for _, step := range strings.Split(kinds[i%len(kinds)], "|") {
			send, reply, _ := strings.Cut(step, "] ")
			first, text, blob := strings.Cut(reply, " ")
			switch {
			case strings.HasPrefix(first, "*"):
				fmt.Fprintf(&src, "      - {send: %s], value: {any: true}}\n", send)
			case blob:
				fmt.Fprintf(&src, "      - {send: %s], reply: %q}\n", send, first+"\r\n"+text+"\r\n")
			default:
				fmt.Fprintf(&src, "      - {send: %s], reply: %q}\n", send, first+"\r\n")
			}
		}
	}
	f, err := cases.Load(suite+".yaml", []byte(src.String()))
	if err != nil {
		b.Fatal(err)
	}
	return []*cases.File{f}
}

// BenchmarkPeerLikeCorpus is 352 cases of peerLike (960 case commands)
// in RESP2 against an existing server with --allow-destructive, as a
// peer's corpus is run (issue 36): wall time per run, and the server's
// calls per case command (INFO commandstats) as calls/cmd. Measured
// side by side on redis-8.6.3 (2026-12-06, 10 runs each, medians): before
// plain cases shared connections and key specifications answered key
// positions, see docs/architecture.md ("A case costs its own round
// trips").
func BenchmarkPeerLikeCorpus(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	files := peerLikeCases(b, 352)
	c, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var calls, cmds int64
	for _, st := range files[0].Cases {
		cmds += int64(len(st.Steps))
	}
	for b.Loop() {
		c.Do("CONFIG", "RESETSTAT")
		rep, err := runner.Run(context.Background(), files, runner.Options{Addr: srv.Addr(), Shared: true, AllowDestructive: true, Protos: []int{2}, RunID: runner.NewRunID()})
		if err != nil || rep.Failed() || rep.Summary.Passed != 352 {
			b.Fatalf("run: %v %+v %v", err, rep.Summary, firstFailure(rep))
		}
		calls += commandCalls(b, c)
	}
	b.ReportMetric(float64(calls)/float64(int64(b.N)*cmds), "calls/cmd")
}

// firstFailure is the reason of rep's first result that did not pass.
func firstFailure(rep *runner.Report) string {
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			return r.Case.Name + ": " + r.Reason
		}
	}
	return ""
}

// commandCalls is the number of commands the server ran since CONFIG
// RESETSTAT (INFO commandstats), the RESETSTAT and this INFO left out.
func commandCalls(b testing.TB, c *target.Conn) int64 {
	v, err := c.Do("INFO", "commandstats")
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, line := range strings.Split(string(v.Str), "\r\n") {
		if _, rest, ok := strings.Cut(line, ":calls="); ok && strings.HasPrefix(line, "cmdstat_") {
			calls, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			n += calls
		}
	}
	return n - 1 // CONFIG RESETSTAT
}
