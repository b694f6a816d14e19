package clients

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// BenchmarkClientsCorpus runs the whole client corpus (testdata/clients)
// through every available client configuration against one throwaway
// redis-8.6.3, as TestClientMatrix does (8 jobs, 2 s steps): ns/op is the
// wall time of the run, and each configuration's metric
// "s/<configuration>" is the wall time of its sessions added up, in
// seconds (one session at a time per adapter process: what the
// configuration costs the run, both protocols together). The metric
// "s/longest" is the largest of them: no run can be shorter.
// $RESPCHECK_BENCH_CLIENTS limits the configurations (a --clients list).
// Run it with -benchtime=1x (one run takes minutes).
func BenchmarkClientsCorpus(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	files, err := cases.LoadPaths([]string{"../../testdata/clients/"})
	if err != nil {
		b.Fatal(err)
	}
	ds, _ := Available(AdapterSource{})
	b.Cleanup(func() { CloseDrivers(ds) })
	if sel := os.Getenv("RESPCHECK_BENCH_CLIENTS"); sel != "" {
		if ds, err = Select(ds, sel); err != nil {
			b.Fatal(err)
		}
	}
	busy := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds,
			Jobs: 8, StepTimeout: 2 * time.Second, RunID: "c11e7a1b"})
		if err != nil {
			b.Fatal(err)
		}
		for _, res := range rep.Results {
			busy[configurationOf(res.Client)] += res.Duration
		}
		logSlowest(b, rep.Results, 15)
	}
	b.StopTimer()
	var longest time.Duration
	labels := make([]string, 0, len(busy))
	for l, d := range busy {
		labels = append(labels, l)
		longest = max(longest, d)
	}
	sort.Strings(labels)
	for _, l := range labels {
		b.ReportMetric(busy[l].Seconds()/float64(b.N), "s/"+l)
	}
	b.ReportMetric(longest.Seconds()/float64(b.N), "s/longest")
}

// logSlowest logs the n results that took longest, with their verdicts
// and reasons: where a run's time goes.
func logSlowest(b *testing.B, results []*Result, n int) {
	rs := append([]*Result(nil), results...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Duration > rs[j].Duration })
	for _, r := range rs[:min(n, len(rs))] {
		b.Logf("%6.2fs %s %s: %s %s", r.Duration.Seconds(), r.Client, r.Case.Name, r.Verdict, r.Reason)
	}
}

// configurationOf is a client's configuration: its name without the
// protocol ("ioredis-6.0.0/pipeline/resp3" → "ioredis-6.0.0/pipeline").
func configurationOf(client string) string {
	return strings.TrimSuffix(strings.TrimSuffix(client, "/resp2"), "/resp3")
}

// BenchmarkAdapterStart measures one adapter process of each runtime from
// its start to its hello answered (ns/op), then ends it: Node (ioredis
// 6.0.0), Python (redis-py 4.3.4), hiredis, Ruby, PHP and the Go adapter
// (this test binary serving go-redis).
func BenchmarkAdapterStart(b *testing.B) {
	for _, a := range benchAdapters(b) {
		b.Run(a.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p := &Adapter{Name: a.Name, Cmd: a.Cmd, Env: a.Env, Suffix: a.Suffix}
				if _, _, err := p.Drivers(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				p.kill()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAdapterCall measures one "do" call (PING) through each
// runtime's adapter on an open connection to a redis-8.6.3, without the
// proxy: the cost of a step in the adapter protocol and the library
// (ns/op).
func BenchmarkAdapterCall(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	for _, a := range benchAdapters(b) {
		b.Run(a.Name, func(b *testing.B) {
			p := &Adapter{Name: a.Name, Cmd: a.Cmd, Env: a.Env, Suffix: a.Suffix}
			defer p.kill()
			ds, _, err := p.Drivers(context.Background())
			if err != nil || len(ds) == 0 {
				b.Fatalf("%v: %d libraries", err, len(ds))
			}
			sess, err := ds[0].Open(context.Background(), srv.Addr(), 2)
			if err != nil {
				b.Fatal(err)
			}
			c, _ := sess.Conn(context.Background(), "default")
			ping := [][]byte{[]byte("PING")}
			if n := c.Do(context.Background(), ping); n.Kind == "exception" {
				b.Fatal(n.String())
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Do(context.Background(), ping)
			}
			b.StopTimer()
			sess.Close()
		})
	}
}

// benchAdapters is one installed adapter of each runtime (see
// BenchmarkAdapterStart), named after the runtime.
func benchAdapters(b *testing.B) []*Adapter {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	ext, _ := externalAdapters(adaptersDir(""))
	all := append(GoAdapters(exe), ext...)
	var out []*Adapter
	for _, w := range []struct{ runtime, name string }{
		{"node", "node ioredis-6.0.0"}, {"python", "redis-py (system)"}, {"hiredis", "hiredis"},
		{"ruby", "ruby redis"}, {"php", "phpredis"}, {"go", "go go-redis"},
	} {
		for _, a := range all {
			if a.Name == w.name {
				out = append(out, &Adapter{Name: w.runtime, Cmd: a.Cmd, Env: a.Env, Suffix: a.Suffix})
			}
		}
	}
	if len(out) == 0 {
		b.Skip("no adapter installed (run scripts/install-clients.sh)")
	}
	return out
}
