package clients

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// Benchmarks of the judge as a reply's nesting and width grow: ns/node and
// visits/node stay flat when its work is linear in the reply's size (the
// old judge doubled its work per level under a contract with conversions,
// and tried each element of a set or each key of a map against every
// other).
//
//	go test -run X -bench 'Judge(Depth|Width)' ./runner/clients/

func benchJudge(b *testing.B, client, wire string, n Native, nodes int) {
	_, v, err := resp.ParseLimits([]byte(wire), resp.Limits{MaxDepth: 10_000})
	if err != nil {
		b.Fatal(err)
	}
	c := contractFor(client)
	var visits int64
	for b.Loop() {
		j := judger{c: c, frames: []resp.Value{v}, ctx: context.Background()}
		if vd := j.judge(&v, &n, nil, false); vd.Finding() {
			b.Fatalf("%s: %v", vd, j.notes)
		}
		visits = j.visits
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/node")
	b.ReportMetric(float64(visits)/float64(nodes), "visits/node")
}

func BenchmarkJudgeDepth(b *testing.B) {
	leaf := tx("int", "int64", "1")
	for _, client := range []string{"go-redis/resp2", "redis-py-6.4.0/resp3"} {
		for _, d := range []int{1, 10, 100, 1000, 8000} {
			b.Run(strings.ReplaceAll(client, "/", "-")+"/depth="+strconv.Itoa(d), func(b *testing.B) {
				benchJudge(b, client, nestedWire("*1\r\n", ":1\r\n", d), nestedNative(leaf, d, list("list")), d)
			})
		}
	}
}

func BenchmarkJudgeWidth(b *testing.B) {
	for _, n := range []int{1, 100, 10_000, 1_000_000} {
		var arr, m strings.Builder
		arr.WriteString("*" + strconv.Itoa(n) + "\r\n")
		m.WriteString("%" + strconv.Itoa(n) + "\r\n")
		elems := make([]Native, n)
		pairs := make([][2]Native, n)
		for i := range n {
			s := strconv.Itoa(i)
			arr.WriteString(":" + s + "\r\n")
			m.WriteString("$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n:" + s + "\r\n")
			elems[i] = tx("int", "int64", s)
			pairs[i] = [2]Native{stringNative("string", s), tx("int", "int64", s)}
		}
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
		b.Run("array/elements="+strconv.Itoa(n), func(b *testing.B) {
			benchJudge(b, "go-redis/resp2", arr.String(), Native{Kind: "list", Type: "[]interface {}", Elems: elems}, n+1)
		})
		b.Run("map-shuffled/pairs="+strconv.Itoa(n), func(b *testing.B) {
			benchJudge(b, "go-redis/resp3", m.String(), Native{Kind: "map", Type: "map[interface {}]interface {}", Pairs: pairs}, 2*n+1)
		})
	}
}
