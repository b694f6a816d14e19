package explore

import (
	"context"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// BenchmarkExplore measures generated commands compared per second:
// sequences of 20 drawn from Redis 8.6.3's grammar, each run (pipelined,
// after the keyspace's setup) on two throwaway Redis 8.6.3 servers (A and
// A2) and a Valkey 9.1.2 (B), in RESP3 and RESP2. The metric counts the
// sequences' commands once per protocol, as explore's summary does
// (setup, the sentinel and A2's runs not counted); shrinking is included
// for the differences first seen in the iteration.
func BenchmarkExplore(b *testing.B) {
	g, a := grammarOf(b, "redis-8.6.3")
	cfgs := []target.Config{a, {Addr: servers.ForTest(b, "redis-8.6.3").Addr()}, {Addr: servers.ForTest(b, "valkey-9.1.2").Addr()}}
	var ex [3]Exec
	for i, c := range cfgs {
		e, cl := ConnExec(c, 10*time.Second)
		ex[i] = e
		b.Cleanup(cl)
	}
	commands := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{A: ex[0], A2: ex[1], B: ex[2], Grammar: g, Seed: uint64(i), Sequences: 200})
		if err != nil {
			b.Fatal(err)
		}
		commands += rep.Commands
	}
	b.ReportMetric(float64(commands)/b.Elapsed().Seconds(), "commands/s")
}
