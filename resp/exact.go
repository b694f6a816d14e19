package resp

import (
	"bytes"
	"io"
)

// ParseExact decodes b, which must hold exactly one complete frame, using
// DefaultLimits. It is Parse for callers that hold the whole input (a
// byte-exact expectation written in a case file, say) and want to know what
// is wrong with it:
//
//   - malformed input is Parse's *SyntaxError;
//   - a truncated frame is a *SyntaxError whose Err is io.ErrUnexpectedEOF
//     and whose Context says in which value the bytes ran out (where Parse
//     would ask for more bytes); where a length or count promised more
//     than the input holds, the error also wraps ErrWrongLength and says
//     so ("array of 3 has 2 elements", "blob string of length 5 has 3
//     bytes before its CRLF");
//   - bytes after the frame are a *SyntaxError whose Err is ErrTrailing and
//     whose Offset is the end of the frame.
//
// The returned Value aliases b, as Parse's does.
func ParseExact(b []byte) (Value, error) {
	return ParseExactLimits(b, DefaultLimits)
}

// ParseExactLimits is ParseExact with explicit limits (zero fields mean
// defaults). AnyDepth(b) accepts every nesting b can hold.
func ParseExactLimits(b []byte, l Limits) (Value, error) {
	n, v, err := ParseLimits(b, l)
	switch {
	case err != nil:
		return Value{}, err
	case n == 0 && len(b) == 0:
		return Value{}, &SyntaxError{Context: "at start of value (no bytes)", Err: io.ErrUnexpectedEOF}
	case n == 0:
		// Parse only says "more bytes needed"; a Reader that meets the end
		// of b says where.
		rd := NewReader(bytes.NewReader(b))
		rd.p.whole = true
		rd.SetLimits(l)
		_, err := rd.Read()
		if err == nil || err == io.EOF {
			// Not reached: Parse and Reader decode alike.
			err = &SyntaxError{Context: "(incomplete frame)", Excerpt: excerpt(b, 0, len(b)), Err: io.ErrUnexpectedEOF}
		}
		return Value{}, err
	case n < len(b):
		return Value{}, &SyntaxError{Offset: int64(n), Context: "after the end of the frame", Excerpt: excerpt(b, n, n), Err: ErrTrailing}
	}
	return v, nil
}

// AnyDepth is DefaultLimits with a MaxDepth that no frame within b can
// exceed (every value takes at least 3 bytes): for input written by hand,
// such as a case file's expected reply, whose depth is the writer's
// choice and is read back at run time under the reader's own limits.
func AnyDepth(b []byte) Limits {
	l := DefaultLimits
	l.MaxDepth = max(l.MaxDepth, len(b)/minValueLen+1)
	return l
}
