package resp_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/respcheck/respcheck/resp"
)

func TestParseFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			n, v, err := resp.Parse([]byte(f.in))
			if err != nil || n != len(f.in) {
				t.Fatalf("Parse(%s) = %d, %v; want %d, nil", resp.Escape([]byte(f.in)), n, err, len(f.in))
			}
			if string(v.Raw) != f.in {
				t.Errorf("Raw = %s, want %s", resp.Escape(v.Raw), resp.Escape([]byte(f.in)))
			}
			if !resp.Equal(v, f.want) {
				t.Errorf("value mismatch:\n got %s\nwant %s", mustJSON(t, v), mustJSON(t, f.want))
			}
			if v.Streamed != f.want.Streamed {
				t.Errorf("Streamed = %v, want %v", v.Streamed, f.want.Streamed)
			}
			if f.canonical {
				if got := resp.Append(nil, v); string(got) != f.in {
					t.Errorf("Append(parsed) = %s, want %s", resp.Escape(got), resp.Escape([]byte(f.in)))
				}
				if got := resp.Append(nil, f.want); string(got) != f.in {
					t.Errorf("Append(want) = %s, want %s", resp.Escape(got), resp.Escape([]byte(f.in)))
				}
			}
			// Re-encoding always re-parses to an Equal value.
			enc := resp.Append(nil, v)
			if _, w, err := resp.Parse(enc); err != nil || !resp.Equal(v, w) {
				t.Errorf("re-parse of %s: %v, equal=%v", resp.Escape(enc), err, resp.Equal(v, w))
			}
			checkRawInvariant(t, v)
		})
	}
}

// checkRawInvariant: every child Raw re-parses on its own to an Equal value.
func checkRawInvariant(t *testing.T, v resp.Value) {
	t.Helper()
	for _, e := range v.Elems {
		n, w, err := resp.Parse(e.Raw)
		if err != nil || n != len(e.Raw) || !resp.Equal(e, w) {
			t.Errorf("child Raw %s does not re-parse: n=%d err=%v", resp.Escape(e.Raw), n, err)
		}
		checkRawInvariant(t, e)
	}
}

func mustJSON(t *testing.T, v resp.Value) string {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPrefixesAreIncomplete(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			for i := 0; i < len(f.in); i++ {
				pre := []byte(f.in[:i])
				n, _, err := resp.Parse(pre)
				if n != 0 || err != nil {
					t.Fatalf("Parse(%s) = %d, %v; want incomplete", resp.Escape(pre), n, err)
				}
				_, err = resp.NewReader(bytes.NewReader(pre)).Read()
				if i == 0 {
					if err != io.EOF {
						t.Fatalf("Read(empty) = %v, want io.EOF", err)
					}
					continue
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("Read(%s) = %v, want ErrUnexpectedEOF", resp.Escape(pre), err)
				}
				var se *resp.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("Read(%s) error %T is not *SyntaxError", resp.Escape(pre), err)
				}
			}
		})
	}
}

func TestReaderFixtures(t *testing.T) {
	wrappers := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
		"dataerr": iotest.DataErrReader,
	}
	for wname, wrap := range wrappers {
		for _, f := range fixtures {
			t.Run(wname+"/"+f.name, func(t *testing.T) {
				r := resp.NewReader(wrap(strings.NewReader(f.in)))
				v, err := r.Read()
				if err != nil {
					t.Fatal(err)
				}
				if string(v.Raw) != f.in || !resp.Equal(v, f.want) {
					t.Fatalf("got %s raw %s", mustJSON(t, v), resp.Escape(v.Raw))
				}
				if r.Offset() != int64(len(f.in)) {
					t.Errorf("Offset = %d, want %d", r.Offset(), len(f.in))
				}
				if _, err := r.Read(); err != io.EOF {
					t.Errorf("second Read = %v, want io.EOF", err)
				}
			})
		}
	}
}

func TestReaderBackToBack(t *testing.T) {
	var all []byte
	for _, f := range fixtures {
		all = append(all, f.in...)
	}
	for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader, func(r io.Reader) io.Reader { return r }} {
		r := resp.NewReader(wrap(bytes.NewReader(all)))
		var off int64
		for _, f := range fixtures {
			v, err := r.Read()
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if string(v.Raw) != f.in || !resp.Equal(v, f.want) {
				t.Fatalf("%s: got %s", f.name, mustJSON(t, v))
			}
			off += int64(len(f.in))
			if r.Offset() != off {
				t.Fatalf("%s: Offset = %d, want %d", f.name, r.Offset(), off)
			}
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("final Read = %v", err)
		}
	}
}

// timeoutReader delivers data[:cut], then one timeout error, then the rest.
type timeoutReader struct {
	data   []byte
	cut    int
	fired  bool
	offset int
}

func (r *timeoutReader) Read(p []byte) (int, error) {
	if r.offset == r.cut && !r.fired {
		r.fired = true
		return 0, os.ErrDeadlineExceeded
	}
	end := len(r.data)
	if r.offset < r.cut {
		end = r.cut
	}
	if r.offset == len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.offset:end])
	r.offset += n
	return n, nil
}

func TestReaderTimeoutPassesThrough(t *testing.T) {
	for _, f := range fixtures {
		for cut := 0; cut < len(f.in); cut++ {
			r := resp.NewReader(&timeoutReader{data: []byte(f.in), cut: cut})
			_, err := r.Read()
			if err != os.ErrDeadlineExceeded {
				t.Fatalf("%s cut %d: err = %v, want the timeout unwrapped", f.name, cut, err)
			}
			v, err := r.Read()
			if err != nil || string(v.Raw) != f.in || !resp.Equal(v, f.want) {
				t.Fatalf("%s cut %d: resume: %v", f.name, cut, err)
			}
		}
	}
}

func TestReaderOffsetAndBuffered(t *testing.T) {
	r := resp.NewReader(strings.NewReader("+OK\r\n:1\r\n$3\r\nabc\r\n"))
	want := []int64{5, 9, 18}
	for i, w := range want {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
		if r.Offset() != w {
			t.Fatalf("frame %d: Offset %d want %d", i, r.Offset(), w)
		}
		if got := r.Buffered(); got != int(18-w) {
			t.Fatalf("frame %d: Buffered %d want %d", i, got, 18-w)
		}
	}
}

func TestCloneSurvivesNextRead(t *testing.T) {
	in := "*2\r\n$3\r\nfoo\r\n|1\r\n+a\r\n+b\r\n$3\r\nbar\r\n" + "*2\r\n$3\r\nxxx\r\n$3\r\nyyy\r\n"
	r := resp.NewReader(iotest.OneByteReader(strings.NewReader(in)))
	v, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	c := v.Clone()
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	_, want, _ := resp.Parse([]byte(in))
	if !resp.Equal(c, want) || string(c.Raw) != string(want.Raw) || string(c.Elems[1].Raw) != "|1\r\n+a\r\n+b\r\n$3\r\nbar\r\n" {
		t.Fatalf("clone changed: %s", mustJSON(t, c))
	}
}

// TestValueSize keeps the small fields of Value packed in one word.
func TestValueSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 && unsafe.Sizeof(resp.Value{}) != 104 {
		t.Errorf("Value is %d bytes, want 104", unsafe.Sizeof(resp.Value{}))
	}
}

func TestKindString(t *testing.T) {
	want := []string{"invalid", "simple string", "simple error", "integer", "blob string", "nil blob string", "array", "nil array", "null", "double", "boolean", "blob error", "verbatim string", "big number", "map", "set", "attribute", "push"}
	for i, w := range want {
		if got := resp.Kind(i).String(); got != w {
			t.Errorf("Kind(%d) = %q want %q", i, got, w)
		}
	}
	if got := resp.Kind(200).String(); got != "Kind(200)" {
		t.Errorf("Kind(200) = %q", got)
	}
}

// TestReadIntoReusedValue decodes every fixture back to back into one
// reused Value: each must come out whole, with no field left over from the
// previous frame, and an error must leave the zero Value.
func TestReadIntoReusedValue(t *testing.T) {
	var all []byte
	for _, f := range fixtures {
		all = append(all, f.in...)
	}
	for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, func(r io.Reader) io.Reader { return r }} {
		r := resp.NewReader(wrap(bytes.NewReader(append(all, "$x\r\n"...))))
		var v resp.Value
		for _, f := range fixtures {
			if err := r.ReadInto(&v); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if string(v.Raw) != f.in || !resp.Equal(v, f.want) || v.Streamed != f.want.Streamed || math.Float64bits(v.Float) != math.Float64bits(mustParse(t, f.in).Float) {
				t.Fatalf("%s: got %s", f.name, mustJSON(t, v))
			}
		}
		if err := r.ReadInto(&v); !errors.Is(err, resp.ErrBadLength) {
			t.Fatalf("bad frame: %v", err)
		}
		if v.Kind != resp.Invalid || v.Raw != nil || v.Elems != nil {
			t.Fatalf("after an error: %s", mustJSON(t, v))
		}
	}
}

func mustParse(t *testing.T, in string) resp.Value {
	t.Helper()
	_, v, err := resp.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bigFrames is large and small frames: a blob string of size bytes (which
// sizes the buffer), one of size/2, a small frame, an array of a small
// blob and one of 2*size bytes, a blob of size bytes and a small frame.
// The array starts in the second half of the buffer: decoding it must not
// move the bytes its first element slices, while a lone blob may move.
func bigFrames(size int) (frames []string) {
	blob := func(n int) string {
		return "$" + strconv.Itoa(n) + "\r\n" + strings.Repeat("y", n-1) + "z\r\n"
	}
	return []string{blob(size), blob(size / 2), "+OK\r\n", "*2\r\n$3\r\nabc\r\n" + blob(2*size), blob(size), ":7\r\n"}
}

// TestReaderLargeFramesAnyReadSize reads bigFrames through readers of many
// read sizes, including ones that stop inside headers and payloads.
func TestReaderLargeFramesAnyReadSize(t *testing.T) {
	frames := bigFrames(300 << 10)
	in := []byte(strings.Join(frames, ""))
	for _, n := range []int{1 << 30, 64 << 10, 100003, 4095, 7} {
		r := resp.NewReader(&chunkReader{data: in, n: n})
		for i, f := range frames {
			v, err := r.Read()
			if err != nil || string(v.Raw) != f || !resp.Equal(v, mustParse(t, f)) {
				t.Fatalf("read size %d, frame %d: %v", n, i, err)
			}
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("read size %d: final Read = %v", n, err)
		}
	}
}

// TestReaderLargeFramesResumeAfterTimeout cuts bigFrames by a timeout at
// offsets inside every frame's header and payload: the frame being read
// resumes.
func TestReaderLargeFramesResumeAfterTimeout(t *testing.T) {
	frames := bigFrames(200 << 10)
	in := []byte(strings.Join(frames, ""))
	var cuts []int
	start := 0
	for _, f := range frames {
		for _, c := range []int{1, 3, 12, 20, 5000, len(f) / 2, len(f) - 1} {
			if c < len(f) {
				cuts = append(cuts, start+c)
			}
		}
		start += len(f)
	}
	for _, cut := range cuts {
		r := resp.NewReader(&timeoutReader{data: in, cut: cut})
		for i, f := range frames {
			v, err := r.Read()
			if err == os.ErrDeadlineExceeded {
				v, err = r.Read()
			}
			if err != nil || string(v.Raw) != f || !resp.Equal(v, mustParse(t, f)) {
				t.Fatalf("cut %d, frame %d: %v", cut, i, err)
			}
		}
	}
}
