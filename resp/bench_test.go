package resp_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/tidwall/redcon"
)

// Benchmarks, side by side in one binary so that one run compares them
// under the same machine load:
//
//   - BenchmarkMixed: the mixed corpus of small RESP2 replies (benchCorpus)
//     decoded by respcheck's Reader (every node walked), by redcon's
//     ReadNextRESP with every element visited through ForEach (a full-tree
//     walk, so the comparison is fair), and the floor: a loop that only
//     finds every \n with bytes.IndexByte.
//   - BenchmarkBlobs64x1MiB: 64 back-to-back 1 MiB blob strings decoded by
//     the Reader, against a plain copy of the same bytes, frame by frame,
//     into one reused buffer (the one copy any reader must make).
//
// All report MB/s (b.SetBytes) and allocations (per op and per reply).
// go-redis's reader (internal/proto) and rueidis's reader live in internal
// packages, which cannot be imported from this module; their code is not
// copied here either, so they are not measured in this binary.

type corpus struct {
	data []byte
	n    int // replies
}

// benchReplies is the number of replies in benchCorpus.
const benchReplies = 1000

// benchCorpus builds a deterministic mix of benchReplies (1,000) realistic
// small RESP2 replies: status replies, errors, integers, short and nil blob
// strings, arrays of 1-20 short blobs (MGET/LRANGE/HGETALL-like), SCAN-like
// nested arrays.
func benchCorpus() corpus {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz0123456789:_"
		b := make([]byte, 3+rng.IntN(20))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var c corpus
	for c.n = 0; c.n < benchReplies; c.n++ {
		switch k := rng.IntN(100); {
		case k < 20:
			c.data = append(c.data, "+OK\r\n"...)
		case k < 25:
			c.data = append(c.data, "-ERR wrong number of arguments for 'get' command\r\n"...)
		case k < 45:
			c.data = append(c.data, ':')
			c.data = strconv.AppendInt(c.data, rng.Int64N(1e9), 10)
			c.data = append(c.data, '\r', '\n')
		case k < 65:
			c.data = resp.Append(c.data, resp.Value{Kind: resp.BlobString, Str: []byte(word())})
		case k < 70:
			c.data = append(c.data, "$-1\r\n"...)
		case k < 92:
			n := 1 + rng.IntN(20)
			c.data = append(c.data, '*')
			c.data = strconv.AppendInt(c.data, int64(n), 10)
			c.data = append(c.data, '\r', '\n')
			for range n {
				if rng.IntN(10) == 0 {
					c.data = append(c.data, "$-1\r\n"...)
				} else {
					c.data = resp.Append(c.data, resp.Value{Kind: resp.BlobString, Str: []byte(word())})
				}
			}
		default:
			n := rng.IntN(10)
			c.data = append(c.data, "*2\r\n$4\r\n1234\r\n*"...)
			c.data = strconv.AppendInt(c.data, int64(n), 10)
			c.data = append(c.data, '\r', '\n')
			for range n {
				c.data = resp.Append(c.data, resp.Value{Kind: resp.BlobString, Str: []byte(word())})
			}
		}
	}
	return c
}

// blobCorpus is one blob string of size bytes.
func blobCorpus(size int) corpus { return blobsCorpus(1, size) }

// blobsCorpus is count back-to-back blob strings of size bytes each.
func blobsCorpus(count, size int) corpus {
	frame := fmt.Appendf(nil, "$%d\r\n", size)
	frame = append(frame, bytes.Repeat([]byte{'x'}, size)...)
	frame = append(frame, '\r', '\n')
	return corpus{data: bytes.Repeat(frame, count), n: count}
}

var sink int

func walk(v *resp.Value) int {
	n := len(v.Str)
	for i := range v.Elems {
		n += walk(&v.Elems[i])
	}
	return n
}

func walkRedcon(r redcon.RESP) int {
	n := len(r.Data)
	if r.Type == redcon.Array {
		n = 0
		r.ForEach(func(e redcon.RESP) bool {
			n += walkRedcon(e)
			return true
		})
	}
	return n
}

func benchRespcheck(b *testing.B, c corpus) {
	br := bytes.NewReader(c.data)
	r := resp.NewReader(br)
	timeCorpus(b, c, func() {
		br.Reset(c.data)
		readWalk(b, r)
	})
}

// benchRespcheckInto is benchRespcheck decoding with ReadInto into one
// reused Value.
func benchRespcheckInto(b *testing.B, c corpus) {
	br := bytes.NewReader(c.data)
	r := resp.NewReader(br)
	var v resp.Value
	timeCorpus(b, c, func() {
		br.Reset(c.data)
		for {
			if err := r.ReadInto(&v); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			sink += walk(&v)
		}
	})
}

// timeCorpus times pass, one read of the whole corpus c, and reports the
// bytes per second and the allocations per reply.
func timeCorpus(b *testing.B, c corpus, pass func()) {
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N)/float64(c.n), "allocs/reply")
}

func benchRedcon(b *testing.B, c corpus) {
	timeCorpus(b, c, func() {
		data := c.data
		for len(data) > 0 {
			n, v := redcon.ReadNextRESP(data)
			if n == 0 {
				b.Fatal("redcon: bad corpus")
			}
			sink += walkRedcon(v)
			data = data[n:]
		}
	})
}

// benchIndexByte is the floor for line-oriented decoding: find every \n
// with bytes.IndexByte and nothing else.
func benchIndexByte(b *testing.B, c corpus) {
	timeCorpus(b, c, func() {
		data := c.data
		lines := 0
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			lines++
			data = data[i+1:]
		}
		sink += lines
	})
}

// benchMemmove is the floor for a stream of equal frames: copy each frame
// of c, in turn, into one reused buffer of one frame's size.
func benchMemmove(b *testing.B, c corpus) {
	frame := len(c.data) / c.n
	dst := make([]byte, frame)
	timeCorpus(b, c, func() {
		for off := 0; off+frame <= len(c.data); off += frame {
			copy(dst, c.data[off:off+frame])
			sink += int(dst[frame-1])
		}
	})
}

func BenchmarkMixed(b *testing.B) {
	c := benchCorpus()
	b.Run("impl=respcheck", func(b *testing.B) { benchRespcheck(b, c) })
	b.Run("impl=respcheck-into", func(b *testing.B) { benchRespcheckInto(b, c) })
	b.Run("impl=redcon", func(b *testing.B) { benchRedcon(b, c) })
	b.Run("impl=indexbyte", func(b *testing.B) { benchIndexByte(b, c) })
}

func BenchmarkBlob1MiB(b *testing.B) {
	c := blobCorpus(1 << 20)
	b.Run("impl=respcheck", func(b *testing.B) { benchRespcheck(b, c) })
	b.Run("impl=redcon", func(b *testing.B) { benchRedcon(b, c) })
}

// BenchmarkBlobs64x1MiB decodes 64 back-to-back 1 MiB blob strings per op:
// from a bytes.Reader (reads as large as the Reader asks), from a reader
// returning 64 KiB per Read (as a socket does), and the memmove floor.
// impl=respcheck-after-OK puts a +OK reply before each blob (128 replies
// per op), so that the blobs no longer line up with the buffer.
func BenchmarkBlobs64x1MiB(b *testing.B) {
	c := blobsCorpus(64, 1<<20)
	b.Run("impl=respcheck", func(b *testing.B) { benchRespcheck(b, c) })
	b.Run("impl=respcheck-into", func(b *testing.B) { benchRespcheckInto(b, c) })
	b.Run("impl=respcheck-64KiB-reads", func(b *testing.B) { benchRespcheckChunked(b, c, 64<<10) })
	b.Run("impl=respcheck-after-OK", func(b *testing.B) { benchRespcheck(b, okBlobsCorpus(64, 1<<20)) })
	b.Run("impl=memmove", func(b *testing.B) { benchMemmove(b, c) })
}

// okBlobsCorpus is count pairs of a +OK reply and a blob of size bytes.
func okBlobsCorpus(count, size int) corpus {
	frame := append([]byte("+OK\r\n"), blobCorpus(size).data...)
	return corpus{data: bytes.Repeat(frame, count), n: 2 * count}
}

// benchRespcheckChunked is benchRespcheck with at most n bytes per Read.
func benchRespcheckChunked(b *testing.B, c corpus, n int) {
	src := &chunkReader{n: n}
	r := resp.NewReader(src)
	timeCorpus(b, c, func() {
		src.data = c.data
		readWalk(b, r)
	})
}

// BenchmarkParseMixed measures the allocating, pure Parse on the same corpus.
func BenchmarkParseMixed(b *testing.B) {
	c := benchCorpus()
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	for b.Loop() {
		data := c.data
		for len(data) > 0 {
			n, v, err := resp.Parse(data)
			if err != nil || n == 0 {
				b.Fatal(err)
			}
			sink += walk(&v)
			data = data[n:]
		}
	}
}

// BenchmarkBlob64MiB decodes, per op, four back-to-back 64 MiB blob
// strings (impl=respcheck-after-OK: each after a +OK reply) from a
// generator in 64 KiB reads, with a fresh Reader, and reports the bytes
// allocated per op and, on Linux, the process's peak RSS (VmHWM): run it
// alone (-bench Blob64MiB -benchtime 1x) for the peak to be this
// benchmark's.
func BenchmarkBlob64MiB(b *testing.B) {
	for _, ok := range []bool{false, true} {
		name := "impl=respcheck"
		if ok {
			name = "impl=respcheck-after-OK"
		}
		b.Run(name, func(b *testing.B) { benchBigBlobs(b, 4, 64<<20, ok) })
	}
}

func benchBigBlobs(b *testing.B, count, size int, ok bool) {
	head := "$" + strconv.Itoa(size) + "\r\n"
	if ok {
		head = "+OK\r\n" + head
	}
	g := &blobGen{head: head, frame: len(head) + size + 2, chunk: 64 << 10}
	g.left = g.frame * count
	b.SetBytes(int64(g.left))
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		g.pos, g.left = 0, g.frame*count
		r := resp.NewReader(g)
		for range count {
			if ok {
				if _, err := r.Read(); err != nil {
					b.Fatal(err)
				}
			}
			v, err := r.Read()
			if err != nil || len(v.Str) != size {
				b.Fatal(err)
			}
		}
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/(1<<20), "alloc-MiB/op")
	if kb, err := peakRSSKiB(); err == nil {
		b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
	}
}

// blobGen streams frames of frame bytes, each head, then 'x' up to a
// final \r\n, at most chunk bytes (and at most one part of a frame) per
// Read, without holding the stream in memory.
type blobGen struct {
	head             string
	frame, pos, left int
	chunk            int
}

var xs = bytes.Repeat([]byte{'x'}, 64<<10)

func (g *blobGen) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	p = p[:min(len(p), g.chunk, g.left)]
	var n int
	switch off := g.pos % g.frame; {
	case off < len(g.head):
		n = copy(p, g.head[off:])
	case off < g.frame-2:
		n = copy(p[:min(len(p), g.frame-2-off)], xs)
	default:
		n = copy(p, "\r\n"[off-(g.frame-2):])
	}
	g.pos += n
	g.left -= n
	return n, nil
}

// peakRSSKiB reads VmHWM from /proc/self/status (Linux only).
func peakRSSKiB() (int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, errors.New("no VmHWM")
}

// readWalk reads r to its end, visiting every element of every frame.
func readWalk(b *testing.B, r *resp.Reader) {
	for {
		v, err := r.Read()
		if err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			return
		}
		sink += walk(&v)
	}
}
