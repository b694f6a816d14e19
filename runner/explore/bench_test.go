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

// BenchmarkShrink measures shrinking one difference found at the end of a
// sequence of 100 commands (ns/op: one shrink): 99 commands Redis 8.6.3
// and Valkey 9.1.2 answer alike (reads and writes of the keyspace), then
// BITCOUNT of a key with one index (Redis 8.6.3: "-ERR syntax error",
// Valkey 9.1.2: the count), run on two throwaway Redis 8.6.3 servers (A,
// A2) and a Valkey 9.1.2 (B) in RESP3. It must end with BITCOUNT alone
// (every sequence starts from the keyspace's setup). 2.8 ms a shrink
// here (-benchtime 3x, 2026-12-07).
func BenchmarkShrink(b *testing.B) {
	g, a := grammarOf(b, "redis-8.6.3")
	cfgs := []target.Config{a, {Addr: servers.ForTest(b, "redis-8.6.3").Addr()}, {Addr: servers.ForTest(b, "valkey-9.1.2").Addr()}}
	ex := map[string]Exec{}
	for i, c := range cfgs {
		e, cl := ConnExec(c, 10*time.Second)
		ex[[]string{"A", "A2", "B"}[i]] = e
		b.Cleanup(cl)
	}
	alike := [][]string{{"GET", KeyPrefix + "str"}, {"APPEND", KeyPrefix + "str", "x"}, {"LPUSH", KeyPrefix + "list", "z"},
		{"SADD", KeyPrefix + "set", "d"}, {"HSET", KeyPrefix + "hash", "f4", "v"}, {"INCR", KeyPrefix + "int"},
		{"LLEN", KeyPrefix + "list"}, {"SCARD", KeyPrefix + "set"}, {"SET", KeyPrefix + "new", "1"}}
	var seq [][]string
	for i := range 99 {
		seq = append(seq, alike[i%len(alike)])
	}
	seq = append(seq, []string{"BITCOUNT", KeyPrefix + "bits", "0"})
	e := &explorer{opts: Options{Protos: []int{3}}, noise: map[string]bool{}, noisyAt: connIDFields(), setsInside: map[string]bool{},
		unordered: map[string]bool{}, pairs: map[string]bool{}, words: map[string]int{}, writes: map[string]bool{}, cmds: map[string]Command{},
		found: map[string]*Finding{}, ex: ex}
	for _, c := range g {
		e.words[c.Name], e.cmds[c.Name], e.writes[c.Name] = len(c.Words()), c, c.Flags["write"]
	}
	ctx := context.Background()
	d, err := e.diff(ctx, 3, seq)
	if err != nil || d == nil || d.i != len(seq)-1 {
		b.Fatalf("the planted difference is not the sequence's first: %+v, %v", d, err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := e.shrink(ctx, 3, seq, d.sig); len(got) != 1 || got[0][0] != "BITCOUNT" {
			b.Fatalf("shrunk to %q", got)
		}
	}
}
