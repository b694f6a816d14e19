package resp_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// Frames that ParseExact accepts whole: every type, nil forms, streamed
// forms, attributes.
var exactFrames = []string{
	"+OK\r\n", "+\r\n", "-ERR x\r\n", ":0\r\n", ":-12\r\n", ":+3\r\n",
	"$0\r\n\r\n", "$5\r\nhello\r\n", "$2\r\n\r\n\r\n", "$-1\r\n",
	"*0\r\n", "*-1\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "*1\r\n*1\r\n*0\r\n",
	"_\r\n", ",1.5\r\n", ",inf\r\n", ",-nan\r\n", "#t\r\n", "#f\r\n",
	"!3\r\nERR\r\n", "=8\r\ntxt:abcd\r\n", "(123456789012345678901234567890\r\n",
	"%1\r\n+a\r\n:1\r\n", "%0\r\n", "~2\r\n:1\r\n:2\r\n", ">2\r\n$1\r\nx\r\n$1\r\ny\r\n",
	"|1\r\n+ttl\r\n:3600\r\n$6\r\ncached\r\n",
	"$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n",
	"*?\r\n:1\r\n:2\r\n.\r\n", "%?\r\n+a\r\n:1\r\n.\r\n", "~?\r\n.\r\n",
}

func TestParseExactAccepts(t *testing.T) {
	for _, f := range exactFrames {
		v, err := resp.ParseExact([]byte(f))
		if err != nil {
			t.Errorf("ParseExact(%s): %v", resp.Escape([]byte(f)), err)
			continue
		}
		if string(v.Raw) != f {
			t.Errorf("ParseExact(%s): Raw = %s", resp.Escape([]byte(f)), resp.Escape(v.Raw))
		}
	}
}

func TestParseExactRejects(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error  // the sentinel
		ctx  string // a part of the message
	}{
		{"", io.ErrUnexpectedEOF, "at offset 0 at start of value (no bytes)"},
		{"+OK", io.ErrUnexpectedEOF, "in simple string (stream ended at offset 3)"},
		{"+OK\r", io.ErrUnexpectedEOF, "in simple string"},
		{"*2\r\n:1\r\n", io.ErrUnexpectedEOF, "wrong length at offset 0 (array of 2 has 1 element)"},
		{"$3\r\nab\r\n", io.ErrUnexpectedEOF, "wrong length at offset 0 (blob string of length 3 has 2 bytes before its CRLF)"},
		{"$3\r\nab", io.ErrUnexpectedEOF, "at offset 0 in 3-byte blob string payload (stream ended at offset 6)"},
		{"%1\r\n+a\r\n", io.ErrUnexpectedEOF, "at offset 0 (map of 1 pair has 1 value, want 2)"},
		{"|1\r\n+a\r\n:1\r\n", io.ErrUnexpectedEOF, ""},
		{"*?\r\n:1\r\n", io.ErrUnexpectedEOF, ""},
		{"+OK\r\nextra", resp.ErrTrailing, `at offset 5 after the end of the frame: "extra"`},
		{"+PONG\r\n+PONG\r\n", resp.ErrTrailing, `at offset 7 after the end of the frame: "+PONG\r\n"`},
		{"+OK\n", resp.ErrBadLineEnd, `bare \n in simple string`},
		{"*1\r\n+OK\n", resp.ErrBadLineEnd, `at offset 4 bare \n in simple string`},
		{"+O\rK\r\n", resp.ErrBadLineEnd, `bare \r`},
		{"$3\r\nabcd\r\n", resp.ErrBadLineEnd, "wrong length at offset 0 (blob string of length 3 has 4 bytes before its CRLF)"},
		{"$3\r\nabc\rx", resp.ErrBadLineEnd, "at offset 0 after 3-byte blob string payload"},
		{":x\r\n", resp.ErrBadValue, "integer"},
		{":\r\n", resp.ErrBadValue, "integer"},
		{"$x\r\n", resp.ErrBadLength, "blob string header"},
		{"$-2\r\n", resp.ErrBadLength, "blob string header"},
		{"$03\r\nabc\r\n", resp.ErrBadLength, "blob string header"},
		{"*x\r\n", resp.ErrBadLength, "array header"},
		{"#x\r\n", resp.ErrBadValue, "boolean"},
		{"_x\r\n", resp.ErrBadLineEnd, "null"},
		{"=3\r\ntxt\r\n", resp.ErrBadValue, "verbatim string"},
		{"(1.5\r\n", resp.ErrBadValue, "big number"},
		{"?\r\n", resp.ErrUnknownType, "'?'"},
	} {
		_, err := resp.ParseExact([]byte(tc.in))
		var se *resp.SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.ctx) {
			t.Errorf("ParseExact(%s) = %v; want a *SyntaxError for %v containing %q", resp.Escape([]byte(tc.in)), err, tc.want, tc.ctx)
		}
	}
}

// A length or count that promises more or fewer bytes than come is
// ErrWrongLength, saying what the length said and what came, at the
// offset of the value whose length lies.
func TestParseExactWrongLength(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"$3\r\nabcde\r\n", `wrong length at offset 0 (blob string of length 3 has 5 bytes before its CRLF)`},
		{"$5\r\nabc\r\n", `wrong length at offset 0 (blob string of length 5 has 3 bytes before its CRLF)`},
		{"*3\r\n:1\r\n:2\r\n", `wrong length at offset 0 (array of 3 has 2 elements)`},
		{"*2\r\n*2\r\n:1\r\n", `wrong length at offset 4 (array of 2 has 1 element)`},
		{"%2\r\n+a\r\n:1\r\n+b\r\n", `wrong length at offset 0 (map of 2 pairs has 3 values, want 4)`},
		{"*?\r\n:1\r\n", `wrong length at offset 0 (streamed array has 1 value and no "." end marker)`},
		{"*1\r\n!2\r\nERR\r\n", `wrong length at offset 4 (blob error of length 2 has 3 bytes before its CRLF)`},
	} {
		_, err := resp.ParseExact([]byte(tc.in))
		if !errors.Is(err, resp.ErrWrongLength) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseExact(%s) = %v; want ErrWrongLength with %q", resp.Escape([]byte(tc.in)), err, tc.want)
		}
	}
}

// ParseExact agrees with Parse: it accepts exactly the inputs that Parse
// decodes whole.
func TestParseExactAgreesWithParse(t *testing.T) {
	for _, f := range append(exactFrames, "+OK", "+OK\r\nx", "$3\r\nab\r\n", "$03\r\nabc\r\n", "*1\r\n") {
		n, _, perr := resp.Parse([]byte(f))
		_, err := resp.ParseExact([]byte(f))
		if (err == nil) != (perr == nil && n == len(f) && n > 0) {
			t.Errorf("%s: ParseExact err=%v, Parse n=%d err=%v", resp.Escape([]byte(f)), err, n, perr)
		}
	}
}

// Textual kinds are exactly those whose values carry their payload in Str.
func TestKindTextual(t *testing.T) {
	textual := map[resp.Kind]bool{
		resp.SimpleString: true, resp.SimpleError: true, resp.BlobString: true, resp.BlobError: true,
		resp.VerbatimString: true, resp.Integer: true, resp.Double: true, resp.BigNumber: true, resp.Boolean: true,
	}
	for k := resp.Invalid; k <= resp.Push; k++ {
		if k.Textual() != textual[k] {
			t.Errorf("%s: Textual() = %v", k, k.Textual())
		}
	}
	for _, f := range append(exactFrames, ":5\r\n", "#f\r\n", "(-1\r\n") {
		v, err := resp.ParseExact([]byte(f))
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Str) > 0 && !v.Kind.Textual() {
			t.Errorf("%s: Str %q but %s is not Textual", resp.Escape([]byte(f)), v.Str, v.Kind)
		}
	}
}

func TestFirstDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 3}, {"abc", "abd", 2}, {"ab", "abc", 2}, {"abc", "a", 1}, {"x", "y", 0},
	} {
		if got := resp.FirstDiff([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("FirstDiff(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
