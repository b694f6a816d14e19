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
func smallCases(b *testing.B, n int) []*cases.File {
	var src strings.Builder
	src.WriteString("suite: small\ncases:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "  - name: case %d\n    steps:\n", i)
		switch i % 3 {
		case 0:
			src.WriteString("      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n      - {send: [GET, \"{key}\"], value: v}\n")
		case 1:
			src.WriteString("      - {send: [RPUSH, \"{key}\", a, b], reply: \":2\\r\\n\"}\n      - {send: [LRANGE, \"{key}\", 0, -1], value: {array: [a, b]}}\n")
		default:
			src.WriteString("      - {send: [HSET, \"{key}\", f, v], reply: \":1\\r\\n\"}\n      - {send: [HGET, \"{key}\", f], value: v}\n")
		}
		src.WriteString("      - {send: [DEL, \"{key}\"], reply: \":1\\r\\n\"}\n")
	}
	f, err := cases.Load("small.yaml", []byte(src.String()))
	if err != nil {
		b.Fatal(err)
	}
	return []*cases.File{f}
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

// commandCalls is the number of commands the server ran since CONFIG
// RESETSTAT (INFO commandstats), the RESETSTAT and this INFO left out.
func commandCalls(b *testing.B, c *target.Conn) int64 {
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
