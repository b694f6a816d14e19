package resp

import (
	"strconv"
	"strings"
)

// CLI renders v the way redis-cli (versions 7 and 8, TTY output, --no-raw)
// prints a reply, without the final newline:
//
//	simple string      OK
//	simple/blob error  (error) ERR unknown command
//	integer            (integer) 42
//	blob string        "hello\r\n" (quoted, redis-cli's escaping: \n \r \t
//	                   \a \b \" \\ and \xNN for other non-printable bytes)
//	nil blob/array,    (nil)
//	null
//	double             (double) 3.14 (the server's text)
//	boolean            (true) or (false)
//	verbatim string    the text after "fmt:", unquoted
//	big number         (big number) 12345
//	array, push        1) "a"  one line per element, index right-aligned
//	                   2) "b"  to the widest index, nested aggregates
//	                           indented under their parent's index
//	set                1~ "a"
//	map                1# "key" => "value"
//	empty aggregates   (empty array), (empty hash), (empty set), (empty push)
//
// Attributes are not shown by redis-cli; here (a respcheck choice) each
// attribute pair is printed first as `|1) key => value`, one line each,
// followed by the value itself on the next line.
func (v Value) CLI() string {
	out := appendCLI(nil, &v, "")
	return strings.TrimSuffix(string(out), "\n")
}

func appendCLI(out []byte, v *Value, prefix string) []byte {
	if v.Attr != nil && v.Attr.Kind == Attribute {
		a := v.Attr
		for i := 0; i+1 < len(a.Elems); i += 2 {
			if i > 0 {
				out = append(out, prefix...)
			}
			out = append(out, '|')
			out = strconv.AppendInt(out, int64(i/2+1), 10)
			out = append(out, ')', ' ')
			out = appendCLI(out, &a.Elems[i], prefix+"    ")
			out = trimNL(out)
			out = append(out, " => "...)
			out = appendCLI(out, &a.Elems[i+1], prefix+"    ")
		}
		if len(a.Elems) > 1 {
			out = append(out, prefix...)
		}
	}
	switch v.Kind {
	case SimpleString:
		out = append(out, v.Str...)
	case SimpleError, BlobError:
		out = append(out, "(error) "...)
		out = append(out, v.Str...)
	case Integer:
		out = append(out, "(integer) "...)
		out = strconv.AppendInt(out, v.Int, 10)
	case Double:
		out = append(out, "(double) "...)
		out = append(out, textOf(v)...)
	case BlobString:
		out = appendEscaped(out, v.Str, quoteCLI)
	case VerbatimString:
		out = append(out, v.Str...)
	case NilBlobString, NilArray, Null:
		out = append(out, "(nil)"...)
	case Boolean:
		if v.Bool {
			out = append(out, "(true)"...)
		} else {
			out = append(out, "(false)"...)
		}
	case BigNumber:
		out = append(out, "(big number) "...)
		out = append(out, v.Str...)
	case Array, Map, Set, Push, Attribute:
		return appendCLIAggregate(out, v, prefix)
	default:
		out = append(out, "(unknown)"...)
	}
	return append(out, '\n')
}

func trimNL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b[:len(b)-1]
	}
	return b
}

func appendCLIAggregate(out []byte, v *Value, prefix string) []byte {
	if len(v.Elems) == 0 {
		switch v.Kind {
		case Array:
			return append(out, "(empty array)\n"...)
		case Map:
			return append(out, "(empty hash)\n"...)
		case Set:
			return append(out, "(empty set)\n"...)
		case Push:
			return append(out, "(empty push)\n"...)
		}
		return append(out, "(empty aggregate type)\n"...)
	}
	n := len(v.Elems)
	pairs := v.Kind.isPairs()
	if pairs {
		n /= 2
	}
	width := len(strconv.Itoa(n))
	sub := prefix + strings.Repeat(" ", width+2)
	sep := byte(')')
	switch v.Kind {
	case Set:
		sep = '~'
	case Map:
		sep = '#'
	case Attribute:
		sep = '|'
	}
	for i := 0; i < len(v.Elems); i++ {
		idx := i + 1
		if pairs {
			idx = i/2 + 1
		}
		if i > 0 {
			out = append(out, prefix...)
		}
		s := strconv.Itoa(idx)
		for j := len(s); j < width; j++ {
			out = append(out, ' ')
		}
		out = append(out, s...)
		out = append(out, sep, ' ')
		out = appendCLI(out, &v.Elems[i], sub)
		if pairs && i+1 < len(v.Elems) {
			i++
			out = trimNL(out)
			out = append(out, " => "...)
			out = appendCLI(out, &v.Elems[i], sub)
		}
	}
	return out
}
