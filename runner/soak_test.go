package runner_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// BenchmarkSoak runs the bundled suite 50 times in a row against one
// server treated as shared (as --addr does: random run ids, keys deleted
// after each case) with 8 jobs, and reports what must not grow: keys left
// in the database, connections left open on the server (CLIENT LIST), and
// respcheck's resident memory at the first and the last run. It is a
// benchmark so that it runs only when asked (go test -bench Soak -benchtime 1x).
func BenchmarkSoak(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	files, err := cases.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	c := dialRaw(b, srv.Addr())
	dbBefore, clientsBefore := c.dbsize(b), c.clients(b)
	var rss1, rss50 float64
	for b.Loop() {
		for i := 1; i <= 50; i++ {
			rep, err := runner.Run(context.Background(), files, runner.Options{Addr: srv.Addr(), Jobs: 8,
				Shared: true, AllowDestructive: true, RunID: runner.NewRunID()})
			if err != nil || rep.Failed() {
				b.Fatalf("run %d: %v %+v", i, err, rep.Summary)
			}
			switch i {
			case 1:
				rss1 = rssMiB(b)
			case 50:
				rss50 = rssMiB(b)
			}
		}
	}
	b.ReportMetric(float64(c.dbsize(b)-dbBefore), "keys-left")
	b.ReportMetric(float64(c.clients(b)-clientsBefore), "conns-left")
	b.ReportMetric(rss1, "MiB-rss-run1")
	b.ReportMetric(rss50, "MiB-rss-run50")
}

// dbsize is DBSIZE.
func (c *rawClient) dbsize(b testing.TB) int {
	c.send("DBSIZE")
	c.w.Flush()
	v, err := c.r.Read()
	if err != nil {
		b.Fatal(err)
	}
	return int(v.Int)
}

// clients counts the lines of CLIENT LIST (this connection included).
func (c *rawClient) clients(b testing.TB) int {
	c.send("CLIENT", "LIST")
	c.w.Flush()
	v, err := c.r.Read()
	if err != nil {
		b.Fatal(err)
	}
	return strings.Count(string(v.Str), "\n")
}

// rssMiB is this process's resident set (VmRSS) in MiB.
func rssMiB(b testing.TB) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
