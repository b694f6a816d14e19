package resp_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// Benchmarks of the reader and the walks over a reply as its nesting and
// its width grow: each reports ns/node, which stays flat when the cost is
// linear in the reply's size (a quadratic walk's ns/node grows with n).
//
//	go test -run X -bench 'Depth|Width' ./resp/

// depths and widths are the sizes measured: nesting up to 8,000 levels
// (servers send 7,997), arrays up to 1,000,000 elements.
var (
	depths = []int{1, 10, 100, 1000, 8000}
	widths = []int{1, 100, 10_000, 1_000_000}
)

// nestedReply is depth-1 arrays of one element around an integer.
func nestedReply(depth int) []byte {
	return []byte(strings.Repeat("*1\r\n", depth-1) + ":1\r\n")
}

// wideReply is an array of n integers.
func wideReply(n int) []byte {
	var b bytes.Buffer
	b.WriteString("*" + strconv.Itoa(n) + "\r\n")
	for i := range n {
		b.WriteString(":" + strconv.Itoa(i) + "\r\n")
	}
	return b.Bytes()
}

// benchWalks measures the reader and the walks of one reply of nodes
// values.
func benchWalks(b *testing.B, in []byte, nodes int) {
	lim := resp.Limits{MaxDepth: 10_000}
	perNode := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/node")
	}
	b.Run("reader", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		r := resp.NewReader(bytes.NewReader(in))
		r.SetLimits(lim)
		for b.Loop() {
			r.Reset(bytes.NewReader(in))
			if _, err := r.Read(); err != nil {
				b.Fatal(err)
			}
		}
		perNode(b)
	})
	_, v, err := resp.ParseLimits(in, lim)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name string
		f    func()
	}{
		{"append", func() { resp.Append(nil, v) }},
		{"json", func() { v.MarshalJSON() }},
		{"cli", func() { v.CLI() }},
		{"equal", func() { resp.Equal(v, v) }},
		{"depth", func() { v.Depth() }},
	} {
		b.Run(w.name, func(b *testing.B) {
			for b.Loop() {
				w.f()
			}
			perNode(b)
		})
	}
}

func BenchmarkDepth(b *testing.B) {
	for _, d := range depths {
		b.Run("depth="+strconv.Itoa(d), func(b *testing.B) { benchWalks(b, nestedReply(d), d) })
	}
}

func BenchmarkWidth(b *testing.B) {
	for _, n := range widths {
		b.Run("elements="+strconv.Itoa(n), func(b *testing.B) { benchWalks(b, wideReply(n), n+1) })
	}
}
