package resp_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/respcheck/respcheck/resp"
)

func fuzzSeeds(f *testing.F) {
	for _, fx := range fixtures {
		f.Add([]byte(fx.in))
		for i := 1; i < len(fx.in); i++ { // split at every byte offset
			f.Add([]byte(fx.in[:i]))
		}
	}
	for _, c := range badInputs {
		f.Add([]byte(c.in))
	}
	for _, s := range []string{
		"*0", "*0\r", "_", "_\r", "|1\r\n+a\r\n+b\r\n>1\r\n+x\r\n",
		",-nan\r\n", ",inf\r\n", ",INF\r\n", ",1e400\r\n",
		strings.Repeat("*1\r\n", 2000), strings.Repeat("|0\r\n", 2000),
		"$9223372036854775807\r\nabc", "*9223372036854775807\r\n", "$-2\r\n", "*-3\r\n",
		"+OK\r\n:1\r\n", "$?\r\n;1\r\na\r\n;0\r\n", "%?\r\n+a\r\n.\r\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse: no panic; success means Raw is the consumed prefix, re-encoding
// re-parses to an Equal value, and JSON round-trips.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		n, v, err := resp.Parse(in)
		if err != nil || n == 0 {
			if n != 0 {
				t.Fatalf("n = %d with err %v", n, err)
			}
			return
		}
		if !bytes.Equal(v.Raw, in[:n]) {
			t.Fatalf("Raw %s != consumed %s", resp.Escape(v.Raw), resp.Escape(in[:n]))
		}
		enc := resp.Append(nil, v)
		m, w, err := resp.Parse(enc)
		if err != nil || m != len(enc) || !resp.Equal(v, w) {
			t.Fatalf("re-parse of %s: %d %v", resp.Escape(enc), m, err)
		}
		js, _ := v.MarshalJSON()
		var back resp.Value
		if err := back.UnmarshalJSON(js); err != nil || !resp.Equal(back, v) {
			t.Fatalf("JSON round trip of %s: %v", js, err)
		}
		_ = v.CLI()
		c := v.Clone()
		if !resp.Equal(c, v) || !bytes.Equal(c.Raw, v.Raw) {
			t.Fatal("clone differs")
		}
	})
}

// FuzzReader: the Reader agrees with Parse frame by frame, whatever the
// read sizes.
func FuzzReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(fuzzReaderBody)
}

func fuzzReaderBody(t *testing.T, in []byte) {
	for _, src := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in))} {
		r := resp.NewReader(src)
		rest := in
		for {
			v, err := r.Read()
			n, pv, perr := resp.Parse(rest)
			if err == io.EOF {
				if len(rest) != 0 {
					t.Fatalf("io.EOF with %d bytes left", len(rest))
				}
				return
			}
			if err != nil {
				if perr == nil && n > 0 {
					t.Fatalf("Reader failed (%v) where Parse succeeded", err)
				}
				if perr == nil && n == 0 && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("Parse says incomplete, Reader says %v", err)
				}
				if perr != nil {
					var a, b *resp.SyntaxError
					if !errors.As(err, &a) || !errors.As(perr, &b) || a.Err != b.Err || a.Offset != b.Offset+int64(len(in)-len(rest)) {
						t.Fatalf("Reader %v vs Parse %v", err, perr)
					}
				}
				return
			}
			if perr != nil || n == 0 || !bytes.Equal(v.Raw, rest[:n]) || !resp.Equal(v, pv) {
				t.Fatalf("Reader got %s, Parse %d %v", resp.Escape(v.Raw), n, perr)
			}
			rest = rest[n:]
			if r.Offset() != int64(len(in)-len(rest)) {
				t.Fatalf("Offset %d want %d", r.Offset(), len(in)-len(rest))
			}
		}
	}
}
