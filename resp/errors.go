package resp

import (
	"errors"
	"io"
	"strconv"
)

// Sentinel errors. Decoding errors are reported as *SyntaxError whose Err is
// one of these (test with errors.Is); the sentinels are never returned bare.
var (
	// ErrUnknownType: the first byte of a value is not a RESP2/RESP3 type
	// byte. SyntaxError.Context names the byte.
	ErrUnknownType = errors.New("resp: unknown type byte")
	// ErrBadLength: a length or element count is empty, non-numeric, has a
	// sign or leading zero, is negative other than the -1 allowed by $ and *,
	// overflows int64, or uses "?" where streaming is not allowed.
	ErrBadLength = errors.New("resp: bad length")
	// ErrTooLong: a blob (or streamed blob total, or line) is longer than
	// Limits.MaxBlobLen, or an aggregate declares or streams more than
	// Limits.MaxAggregateLen elements (pairs for maps and attributes).
	ErrTooLong = errors.New("resp: too long")
	// ErrTooDeep: aggregates (and attributes) nest deeper than
	// Limits.MaxDepth.
	ErrTooDeep = errors.New("resp: nested too deep")
	// ErrBadLineEnd: a \r\n is missing where the grammar requires it, such
	// as after a blob payload, or a line holds a bare \r or \n.
	ErrBadLineEnd = errors.New("resp: bad line end")
	// ErrBadValue: the text of a value is malformed: integer, double,
	// boolean or big number syntax, a verbatim string without "fmt:", an
	// attribute with no value after it, "." outside a streamed aggregate, a
	// malformed streamed string chunk, a streamed map with an odd number of
	// children.
	ErrBadValue = errors.New("resp: bad value")
	// ErrWrongLength: a declared length or count does not match the bytes:
	// a blob string's CRLF comes before or after the end its length
	// says, or (ParseExact only, whose input is whole) an aggregate's
	// input ends before the elements it declares, or a streamed
	// aggregate's before its "." end marker. The error also wraps what
	// the decoder met there (ErrBadLineEnd, io.ErrUnexpectedEOF), and
	// SyntaxError.Context says what the length said and what came.
	ErrWrongLength = errors.New("resp: wrong length")
	// ErrTrailing: bytes follow the frame (ParseExact only).
	// SyntaxError.Offset is the end of the frame.
	ErrTrailing = errors.New("resp: bytes after the frame")
)

// OverLimit reports whether err is a *SyntaxError for a frame over the
// decoder's Limits (ErrTooLong, ErrTooDeep) rather than malformed RESP: a
// server may send such a frame, and a larger limit would read it.
func OverLimit(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se) && (errors.Is(se.Err, ErrTooLong) || errors.Is(se.Err, ErrTooDeep))
}

// SyntaxError describes malformed or truncated input. Error renders as
//
//	resp: bad length at offset 12 in blob string header: "$abc\r\n"
type SyntaxError struct {
	// Offset is the stream offset, in bytes, of the type byte of the
	// innermost value being decoded when the problem was found (for Parse,
	// the index into its input).
	Offset int64
	// Context says where in that value the problem is, e.g.
	// "in blob string header".
	Context string
	// Excerpt is an Escape-quoted excerpt of the input from Offset up to and
	// a little past the offending byte, at most 40 input bytes (longer spans
	// are shortened around "...").
	Excerpt string
	// Err is the sentinel (ErrBadLength, ...) or io.ErrUnexpectedEOF when
	// the stream ended inside a frame.
	Err error
}

// Error returns "resp: <problem> at offset <n> <context>: <excerpt>".
func (e *SyntaxError) Error() string {
	msg := "syntax error"
	if e.Err != nil {
		msg = e.Err.Error()
		if len(msg) > 6 && msg[:6] == "resp: " {
			msg = msg[6:]
		}
	}
	s := "resp: " + msg + " at offset " + strconv.FormatInt(e.Offset, 10)
	if e.Context != "" {
		s += " " + e.Context
	}
	if e.Excerpt != "" {
		s += ": " + e.Excerpt
	}
	return s
}

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// eofValueErr is io.ErrUnexpectedEOF and ErrBadValue at once: a stream that
// ends right after an attribute is both truncated and malformed.
type eofValueErr struct{}

func (eofValueErr) Error() string   { return "resp: attribute at end of stream" }
func (eofValueErr) Unwrap() []error { return []error{io.ErrUnexpectedEOF, ErrBadValue} }

// lengthErr is ErrWrongLength and what the decoder met at once.
type lengthErr struct{ met error }

func (e lengthErr) Error() string   { return ErrWrongLength.Error() }
func (e lengthErr) Unwrap() []error { return []error{ErrWrongLength, e.met} }

// errIncomplete is the internal signal that Parse needs more bytes.
var errIncomplete = errors.New("resp: incomplete")

const excerptMax = 40

// excerpt renders b[start:] around bad (exclusive end hint) for SyntaxError.
func excerpt(b []byte, start, bad int) string {
	if start < 0 {
		start = 0
	}
	if start > len(b) {
		start = len(b)
	}
	end := bad + 4
	if end < start+16 {
		end = start + 16
	}
	if end > len(b) {
		end = len(b)
	}
	if end-start <= excerptMax {
		return Escape(b[start:end])
	}
	// head ... tail, 16 + 24 bytes.
	return Escape(b[start:start+16]) + "..." + Escape(b[end-24:end])
}

// LimitText is the text of a read error for a frame over respcheck's
// limits (OverLimit) with what raises the limit; any other error's
// text as it is.
func LimitText(err error) string {
	var se *SyntaxError
	switch {
	case !errors.As(err, &se):
		return err.Error()
	case errors.Is(se.Err, ErrTooDeep):
		return err.Error() + " (a valid reply nested deeper than respcheck reads: --max-depth raises the limit)"
	case errors.Is(se.Err, ErrTooLong):
		return err.Error() + " (a valid reply longer than respcheck reads: resp.Limits' MaxBlobLen or MaxAggregateLen, not malformed RESP)"
	}
	return err.Error()
}
