package resp

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// AppendCommand appends args encoded as a RESP array of blob strings
// (*<n>\r\n then $<len>\r\n<arg>\r\n each), the form clients send commands
// in. Arguments are binary-safe. It returns the extended buffer.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	return appendCommand(dst, args)
}

// AppendCommandString is AppendCommand for string arguments.
func AppendCommandString(dst []byte, args ...string) []byte {
	return appendCommand(dst, args)
}

// appendCommand is AppendCommand for arguments of either type.
func appendCommand[S ~string | ~[]byte](dst []byte, args []S) []byte {
	dst = appendHeader(dst, '*', int64(len(args)))
	for _, a := range args {
		dst = appendHeader(dst, '$', int64(len(a)))
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

func appendHeader(dst []byte, t byte, n int64) []byte {
	dst = append(dst, t)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '\r', '\n')
}

// Append appends the canonical encoding of v, preceded by the encoding of
// v.Attr if set, and returns the extended buffer. It ignores v.Raw. Values
// with Streamed set use the streamed form: a blob string as "$?" with one
// chunk (none if empty) and ";0", an aggregate as "*?" ... ".". Integer,
// double and boolean values are written from Str when it is set (the
// server's own text), else from Int, Float and Bool. Append does not
// validate: a simple string holding \r\n, say, is written as is. The kinds
// Invalid and out-of-range kinds append nothing.
func Append(dst []byte, v Value) []byte {
	if v.Attr != nil {
		dst = Append(dst, *v.Attr)
	}
	switch v.Kind {
	case SimpleString, SimpleError, Integer, Double, Boolean, BigNumber:
		dst = append(dst, typeByte[v.Kind])
		dst = appendText(dst, v)
		return append(dst, '\r', '\n')
	case BlobString:
		if v.Streamed {
			dst = append(dst, '$', '?', '\r', '\n')
			if len(v.Str) > 0 {
				dst = appendHeader(dst, ';', int64(len(v.Str)))
				dst = append(dst, v.Str...)
				dst = append(dst, '\r', '\n')
			}
			return append(dst, ';', '0', '\r', '\n')
		}
		fallthrough
	case BlobError:
		dst = appendHeader(dst, typeByte[v.Kind], int64(len(v.Str)))
		dst = append(dst, v.Str...)
		return append(dst, '\r', '\n')
	case VerbatimString:
		dst = appendHeader(dst, '=', int64(len(v.Str))+4)
		dst = append(dst, v.Format[:]...)
		dst = append(dst, ':')
		dst = append(dst, v.Str...)
		return append(dst, '\r', '\n')
	case NilBlobString:
		return append(dst, '$', '-', '1', '\r', '\n')
	case NilArray:
		return append(dst, '*', '-', '1', '\r', '\n')
	case Null:
		return append(dst, '_', '\r', '\n')
	case Array, Map, Set, Attribute, Push:
		if v.Streamed && v.Kind != Attribute {
			dst = append(dst, typeByte[v.Kind], '?', '\r', '\n')
		} else {
			n := len(v.Elems)
			if v.Kind.isPairs() {
				n /= 2
			}
			dst = appendHeader(dst, typeByte[v.Kind], int64(n))
		}
		for _, e := range v.Elems {
			dst = Append(dst, e)
		}
		if v.Streamed && v.Kind != Attribute {
			dst = append(dst, '.', '\r', '\n')
		}
		return dst
	}
	return dst
}

var typeByte = [...]byte{
	SimpleString: '+', SimpleError: '-', Integer: ':', BlobString: '$',
	NilBlobString: '$', Array: '*', NilArray: '*', Null: '_', Double: ',',
	Boolean: '#', BlobError: '!', VerbatimString: '=', BigNumber: '(',
	Map: '%', Set: '~', Attribute: '|', Push: '>',
}

// appendText appends the line text of a simple kind: Str if set, else the
// canonical rendering of Int, Float or Bool.
func appendText(dst []byte, v Value) []byte {
	if len(v.Str) > 0 {
		return append(dst, v.Str...)
	}
	switch v.Kind {
	case Integer:
		return strconv.AppendInt(dst, v.Int, 10)
	case Double:
		return appendDouble(dst, v.Float)
	case Boolean:
		if v.Bool {
			return append(dst, 't')
		}
		return append(dst, 'f')
	}
	return dst
}

func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// textOf returns the textual payload Equal and the renderings compare: Str,
// or for integers, doubles and booleans without Str the canonical text.
func textOf(v *Value) []byte {
	if len(v.Str) > 0 {
		return v.Str
	}
	switch v.Kind {
	case Integer, Double, Boolean:
		return appendText(nil, *v)
	}
	return v.Str
}

// Writer buffers RESP output to an io.Writer. Errors are sticky, as with
// bufio.Writer: after the first write error every method returns it.
// Call Flush to send buffered bytes.
type Writer struct {
	bw  *bufio.Writer
	tmp []byte
}

// NewWriter returns a Writer with a 4096-byte buffer (larger writes go
// straight through).
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriter(w)} }

// WriteCommand buffers args encoded as by AppendCommand.
func (w *Writer) WriteCommand(args ...[]byte) error {
	w.tmp = AppendCommand(w.tmp[:0], args...)
	_, err := w.bw.Write(w.tmp)
	return err
}

// WriteValue buffers v encoded as by Append.
func (w *Writer) WriteValue(v Value) error {
	w.tmp = Append(w.tmp[:0], v)
	_, err := w.bw.Write(w.tmp)
	return err
}

// WriteRaw buffers p exactly as given: inline commands, deliberately
// malformed frames, anything.
func (w *Writer) WriteRaw(p []byte) error {
	_, err := w.bw.Write(p)
	return err
}

// Flush writes buffered bytes to the underlying io.Writer.
func (w *Writer) Flush() error { return w.bw.Flush() }

// Buffered returns the number of bytes buffered and not yet flushed.
func (w *Writer) Buffered() int { return w.bw.Buffered() }
