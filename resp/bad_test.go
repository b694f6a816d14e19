package resp_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

var badInputs = []struct {
	name   string
	in     string
	err    error
	offset int64
}{
	{"unknown-type", "?x\r\n", resp.ErrUnknownType, 0},
	{"unknown-type-nested", "*2\r\n:1\r\n@\r\n", resp.ErrUnknownType, 8},
	{"inline-command-as-reply", "PING\r\n", resp.ErrUnknownType, 0},
	{"blob-len-alpha", "$abc\r\n", resp.ErrBadLength, 0},
	{"blob-len-empty", "$\r\n", resp.ErrBadLength, 0},
	{"blob-len-plus", "$+3\r\nabc\r\n", resp.ErrBadLength, 0},
	{"blob-len-minus-5", "$-5\r\n", resp.ErrBadLength, 0},
	{"blob-len-minus-10", "$-10\r\n", resp.ErrBadLength, 0},
	{"blob-len-leading-zero", "$03\r\nabc\r\n", resp.ErrBadLength, 0},
	{"blob-len-overflow", "$99999999999999999999\r\n", resp.ErrBadLength, 0},
	{"array-minus-2", "*-2\r\n", resp.ErrBadLength, 0},
	{"map-minus-1", "%-1\r\n", resp.ErrBadLength, 0},
	{"set-minus-1", "~-1\r\n", resp.ErrBadLength, 0},
	{"push-minus-1", ">-1\r\n", resp.ErrBadLength, 0},
	{"blob-error-minus-1", "!-1\r\n", resp.ErrBadLength, 0},
	{"verbatim-minus-1", "=-1\r\n", resp.ErrBadLength, 0},
	{"attribute-streamed", "|?\r\n", resp.ErrBadLength, 0},
	{"blob-error-streamed", "!?\r\n", resp.ErrBadLength, 0},
	{"nested-bad-len", "*1\r\n$x\r\n", resp.ErrBadLength, 4},
	{"blob-too-long", "$9223372036854775807\r\nabc", resp.ErrTooLong, 0},
	{"blob-over-512MiB", "$536870913\r\n", resp.ErrTooLong, 0},
	{"blob-no-crlf", "$3\r\nabcd\r\n", resp.ErrBadLineEnd, 0},
	{"blob-cr-only", "$3\r\nabc\rx", resp.ErrBadLineEnd, 0},
	{"simple-bare-lf", "+OK\n", resp.ErrBadLineEnd, 0},
	{"simple-bare-cr", "+O\rK\r\n", resp.ErrBadLineEnd, 0},
	{"header-bare-lf", "*1\n", resp.ErrBadLineEnd, 0},
	{"null-with-text", "_x\r\n", resp.ErrBadLineEnd, 0},
	{"end-marker-bad", "*?\r\n.x\r\n", resp.ErrBadLineEnd, 4},
	{"integer-empty", ":\r\n", resp.ErrBadValue, 0},
	{"integer-alpha", ":12a\r\n", resp.ErrBadValue, 0},
	{"integer-overflow", ":9223372036854775808\r\n", resp.ErrBadValue, 0},
	{"integer-sign-only", ":-\r\n", resp.ErrBadValue, 0},
	{"double-garbage", ",abc\r\n", resp.ErrBadValue, 0},
	{"double-hex", ",0x1p3\r\n", resp.ErrBadValue, 0},
	{"double-infinity-word", ",infinity\r\n", resp.ErrBadValue, 0},
	{"double-empty", ",\r\n", resp.ErrBadValue, 0},
	{"double-trailing-dot", ",1.\r\n", resp.ErrBadValue, 0},
	{"boolean-x", "#x\r\n", resp.ErrBadValue, 0},
	{"boolean-true-word", "#true\r\n", resp.ErrBadValue, 0},
	{"bignum-alpha", "(12a\r\n", resp.ErrBadValue, 0},
	{"bignum-empty", "(\r\n", resp.ErrBadValue, 0},
	{"verbatim-short", "=3\r\ntxt\r\n", resp.ErrBadValue, 0},
	{"verbatim-no-colon", "=8\r\ntxt-abcd\r\n", resp.ErrBadValue, 0},
	{"end-marker-top", ".\r\n", resp.ErrBadValue, 0},
	{"end-marker-in-fixed-array", "*2\r\n:1\r\n.\r\n", resp.ErrBadValue, 8},
	{"streamed-map-odd", "%?\r\n+a\r\n.\r\n", resp.ErrBadValue, 0},
	{"streamed-chunk-not-semicolon", "$?\r\n+x\r\n", resp.ErrBadValue, 4},
	{"streamed-chunk-bad-len", "$?\r\n;x\r\n", resp.ErrBadLength, 4},
	{"streamed-chunk-minus-1", "$?\r\n;-1\r\n", resp.ErrBadLength, 4},
	{"streamed-chunk-no-crlf", "$?\r\n;2\r\nabcd", resp.ErrBadLineEnd, 4},
	{"attribute-then-end-marker", "*?\r\n|0\r\n.\r\n", resp.ErrBadValue, 4},
	{"too-deep", strings.Repeat("*1\r\n", resp.DefaultLimits.MaxDepth+1) + ":1\r\n", resp.ErrTooDeep, 4 * int64(resp.DefaultLimits.MaxDepth)},
}

func TestBadInput(t *testing.T) {
	for _, c := range badInputs {
		t.Run(c.name, func(t *testing.T) {
			check := func(how string, err error) {
				t.Helper()
				if !errors.Is(err, c.err) {
					t.Fatalf("%s(%s): err = %v, want %v", how, resp.Escape([]byte(c.in)), err, c.err)
				}
				var se *resp.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("%s: %T is not *SyntaxError", how, err)
				}
				if se.Offset != c.offset {
					t.Errorf("%s: Offset = %d, want %d (%v)", how, se.Offset, c.offset, err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "resp: ") || strings.ToLower(msg[:20]) != msg[:20] {
					t.Errorf("message %q", msg)
				}
				if len(se.Excerpt) > 4*40+10 {
					t.Errorf("excerpt too long: %d", len(se.Excerpt))
				}
			}
			n, _, err := resp.Parse([]byte(c.in))
			if n != 0 {
				t.Errorf("Parse n = %d", n)
			}
			check("Parse", err)
			// Through a reader, with a valid frame before it: offsets shift.
			r := resp.NewReader(strings.NewReader("+OK\r\n" + c.in))
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
			_, err = r.Read()
			c.offset += 5
			check("Reader.Read", err)
			c.offset -= 5
			if _, err2 := r.Read(); err2 != err {
				t.Errorf("syntax error not sticky: %v", err2)
			}
		})
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	r := resp.NewReader(strings.NewReader("+OK\r\n:1\r\n$abc\r\n"))
	r.Read()
	r.Read()
	_, err := r.Read()
	want := `resp: bad length at offset 9 in blob string header: "$abc\r\n"`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	_, err = resp.NewReader(strings.NewReader("$10\r\nabc")).Read()
	want = `resp: unexpected EOF at offset 0 in 10-byte blob string payload (stream ended at offset 8): "$10\r\nabc"`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	_, err = resp.NewReader(strings.NewReader("|1\r\n+a\r\n+b\r\n")).Read()
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, resp.ErrBadValue) {
		t.Fatalf("attribute at end: %v", err)
	}
	long := "$40\r\n" + strings.Repeat("x", 40) + "ab"
	_, _, err = resp.Parse([]byte(long))
	var se *resp.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Excerpt, "...") || !strings.Contains(se.Excerpt, "xab") {
		t.Fatalf("long excerpt: %v", err)
	}
}

func TestDeepNestingNoStackOverflow(t *testing.T) {
	in := []byte(strings.Repeat("*1\r\n", 100000) + ":1\r\n")
	_, _, err := resp.Parse(in)
	if !errors.Is(err, resp.ErrTooDeep) {
		t.Fatalf("Parse: %v", err)
	}
	_, err = resp.NewReader(bytes.NewReader(in)).Read()
	if !errors.Is(err, resp.ErrTooDeep) {
		t.Fatalf("Read: %v", err)
	}
	in = []byte(strings.Repeat("|0\r\n", 100000) + ":1\r\n")
	if _, _, err = resp.Parse(in); !errors.Is(err, resp.ErrTooDeep) {
		t.Fatalf("chained attributes: %v", err)
	}
	// Exactly at the limit is fine.
	in = []byte(strings.Repeat("*1\r\n", resp.DefaultLimits.MaxDepth-1) + ":1\r\n")
	if n, _, err := resp.Parse(in); err != nil || n != len(in) {
		t.Fatalf("depth %d: %d %v", resp.DefaultLimits.MaxDepth, n, err)
	}
}

func TestLimits(t *testing.T) {
	l := resp.Limits{MaxBlobLen: 4, MaxAggregateLen: 2, MaxDepth: 2}
	cases := []struct {
		in  string
		err error
	}{
		{"$4\r\nabcd\r\n", nil},
		{"$5\r\nabcde\r\n", resp.ErrTooLong},
		{"$?\r\n;3\r\nabc\r\n;2\r\nde\r\n;0\r\n", resp.ErrTooLong},
		{"+abcde\r\n", resp.ErrTooLong},
		{":1234\r\n", nil},
		{":12345\r\n", resp.ErrTooLong},
		{":-1234\r\n", resp.ErrTooLong},
		{"$-1\r\n", nil},
		{"*2\r\n:1\r\n:2\r\n", nil},
		{"*3\r\n:1\r\n:2\r\n:3\r\n", resp.ErrTooLong},
		{"*4294967296\r\n", resp.ErrTooLong},
		{"%3\r\n", resp.ErrTooLong},
		{"~?\r\n:1\r\n:2\r\n:3\r\n.\r\n", resp.ErrTooLong},
		{"*1\r\n*1\r\n:1\r\n", nil},
		{"*1\r\n*1\r\n*0\r\n", resp.ErrTooDeep},
	}
	for _, c := range cases {
		_, _, err := resp.ParseLimits([]byte(c.in), l)
		if !errors.Is(err, c.err) || (c.err == nil && err != nil) {
			t.Errorf("ParseLimits(%s) = %v, want %v", resp.Escape([]byte(c.in)), err, c.err)
		}
		r := resp.NewReader(strings.NewReader(c.in))
		r.SetLimits(l)
		_, err = r.Read()
		if !errors.Is(err, c.err) || (c.err == nil && err != nil) {
			t.Errorf("Reader(%s) = %v, want %v", resp.Escape([]byte(c.in)), err, c.err)
		}
	}
	// Default aggregate limit.
	if _, _, err := resp.Parse([]byte("*4294967296\r\n")); !errors.Is(err, resp.ErrTooLong) {
		t.Errorf("default aggregate limit: %v", err)
	}
}

// blockingReader returns its data, then blocks the test by failing if read
// again: proves ErrTooLong comes without waiting for more bytes.
type blockingReader struct {
	data []byte
	t    *testing.T
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		r.t.Fatal("reader asked for bytes that never come")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestHugeDeclaredLengthDoesNotAllocate(t *testing.T) {
	in := []byte("$9223372036854775807\r\nabc")
	_, err := resp.NewReader(&blockingReader{data: in, t: t}).Read()
	if !errors.Is(err, resp.ErrTooLong) {
		t.Fatalf("err = %v", err)
	}
	// Under the limit: the reader grows only with bytes received.
	in = []byte("$536870912\r\nabc")
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for range 10 {
		_, err = resp.NewReader(bytes.NewReader(in)).Read()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v", err)
		}
	}
	runtime.ReadMemStats(&ms1)
	if per := (ms1.TotalAlloc - ms0.TotalAlloc) / 10; per > 16<<10 {
		t.Fatalf("allocated %d bytes per Read for a 3-byte payload", per)
	}
	allocs := testing.AllocsPerRun(100, func() {
		resp.NewReader(bytes.NewReader(in)).Read()
	})
	if allocs > 10 {
		t.Fatalf("%v allocs", allocs)
	}
}

func TestReaderSteadyStateAllocs(t *testing.T) {
	corpus := benchCorpus()
	br := bytes.NewReader(corpus.data)
	r := resp.NewReader(br)
	run := func() {
		br.Reset(corpus.data)
		for {
			if _, err := r.Read(); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a > 0 {
		t.Fatalf("steady state: %v allocs per corpus of %d replies", a, corpus.n)
	}
}

// TestLargeBlobBufferMemory reads a 16 MiB blob string in 64 KiB pieces, as
// from a socket: the buffer ends no larger than the frame and the bytes
// allocated on the way stay below twice the frame (growth is capped at the
// frame's end and is 8x at a time past 1 MiB).
func TestLargeBlobBufferMemory(t *testing.T) {
	const size = 16 << 20
	frame := append([]byte("$16777216\r\n"), make([]byte, size)...)
	frame = append(frame, "\r\n"...)
	v, got, err := readChunked(frame, 64<<10)
	if err != nil || len(v.Str) != size {
		t.Fatalf("Read: %v, %d bytes", err, len(v.Str))
	}
	if got > 2*uint64(len(frame)) {
		t.Errorf("allocated %d bytes for a %d-byte frame", got, len(frame))
	}
	if c := cap(v.Raw); c > len(frame)+64<<10 {
		t.Errorf("buffer capacity %d for a %d-byte frame", c, len(frame))
	}
}

// readChunked reads one value from frame given n bytes per Read, as from a
// socket, and returns it with the bytes allocated on the way.
func readChunked(frame []byte, n int) (resp.Value, uint64, error) {
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	v, err := resp.NewReader(&chunkReader{data: frame, n: n}).Read()
	runtime.ReadMemStats(&ms1)
	return v, ms1.TotalAlloc - ms0.TotalAlloc, err
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}

// TestLargeArrayCostIsLinear reads arrays of 100,000 and 400,000 small
// blob strings in 4 KiB pieces, as from a socket: four times the elements
// must cost about four times the bytes allocated, not sixteen (a buffer that
// grew by a fixed step would copy quadratically).
func TestLargeArrayCostIsLinear(t *testing.T) {
	cost := func(n int) uint64 {
		frame := []byte("*" + strconv.Itoa(n) + "\r\n")
		for i := 0; i < n; i++ {
			frame = append(frame, "$5\r\nvalue\r\n"...)
		}
		v, alloc, err := readChunked(frame, 4<<10)
		if err != nil || len(v.Elems) != n {
			t.Fatalf("Read: %v, %d elements", err, len(v.Elems))
		}
		return alloc
	}
	small, large := cost(100000), cost(400000)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("4x the elements cost %.1fx the bytes (%d vs %d)", ratio, large, small)
	}
}

// TestBackToBackLargeBlobsReuseBuffer reads 1 MiB blob strings back to
// back, in pieces of several sizes as from a socket: once the first has
// grown the buffer, the others allocate (almost) nothing.
func TestBackToBackLargeBlobsReuseBuffer(t *testing.T) {
	const size, count = 1 << 20, 16
	c := blobsCorpus(count, size)
	for _, n := range []int{1 << 30, 64 << 10, 100003, 4 << 10} {
		r := resp.NewReader(&chunkReader{data: c.data, n: n})
		if v, err := r.Read(); err != nil || len(v.Str) != size {
			t.Fatalf("read size %d: first: %v", n, err)
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		for range count - 1 {
			if v, err := r.Read(); err != nil || len(v.Str) != size {
				t.Fatalf("read size %d: %v", n, err)
			}
		}
		runtime.ReadMemStats(&ms1)
		if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 64<<10 {
			t.Errorf("read size %d: %d more blobs allocated %d bytes", n, count-1, got)
		}
	}
}

// TestLargeBlobArrayCostIsLinear reads an array of 16 blob strings of
// 1 MiB each in pieces that end just past each header, as a socket might
// deliver them: the buffer must grow geometrically, not one blob at a time
// (which would copy the frame once per blob).
func TestLargeBlobArrayCostIsLinear(t *testing.T) {
	const size, count = 1 << 20, 16
	frame := append([]byte("*16\r\n"), blobsCorpus(count, size).data...)
	v, got, err := readChunked(frame, size+13)
	if err != nil || len(v.Elems) != count {
		t.Fatalf("Read: %v, %d elements", err, len(v.Elems))
	}
	if got > 4*uint64(len(frame)) {
		t.Errorf("allocated %d bytes for a %d-byte frame", got, len(frame))
	}
}

// TestReaderSteadyStateAllocsRESP3 reads every fixture (streamed strings
// and aggregates, attributes, maps, pushes...) back to back, repeatedly:
// in steady state a Reader allocates nothing.
func TestReaderSteadyStateAllocsRESP3(t *testing.T) {
	var all []byte
	for _, f := range fixtures {
		all = append(all, f.in...)
	}
	br := bytes.NewReader(all)
	r := resp.NewReader(br)
	var v resp.Value
	run := func() {
		br.Reset(all)
		r.Reset(br)
		for {
			if err := r.ReadInto(&v); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a > 0 {
		t.Fatalf("steady state: %v allocs per pass over %d fixtures", a, len(fixtures))
	}
}
