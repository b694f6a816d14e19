package clients

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Native is a client library's decoded value, as the library's host
// language holds it, without normalisation. Adapters send it as JSON.
type Native struct {
	// Kind is the category of the host value, used by Judge: one of
	// "string" (text), "bytes" (a byte string), "int" (an exact integer),
	// "float" (a binary floating-point number), "number" (a JavaScript
	// number, integer or not), "bigint" (an arbitrary-precision integer),
	// "bool", "nil", "list", "set", "map", "error" (a server error the
	// library returned or raised), "exception" (any other failure: a
	// parser or connection error) or "other".
	Kind string `json:"kind"`
	// Type is the host type name: "str", "bytes", "int64", "Buffer",
	// "rueidis blob string", "ResponseError"...
	Type string `json:"type"`
	// Text is the value of strings (when valid UTF-8) and the host's own
	// text of numbers and booleans ("1.5", "inf", "true").
	Text *string `json:"text,omitempty"`
	// B64 is the value of byte strings (and of strings that are not valid
	// UTF-8), base64-encoded.
	B64 *string `json:"b64,omitempty"`
	// Elems are the elements of a list or set, in the host's order.
	Elems []Native `json:"elems,omitempty"`
	// Pairs are the entries of a map, in the host's iteration order.
	Pairs [][2]Native `json:"pairs,omitempty"`
	// Err is the class and message of an error or exception.
	Err *NativeErr `json:"error,omitempty"`
	// Attr is the attribute the library attached to the value, if it
	// exposes attributes at all.
	Attr *Native `json:"attr,omitempty"`
	// Ref is transport only: in an adapter response, a native that stands
	// for entry Ref-1 of the response's deep table (see cutDeep); 0
	// otherwise.
	Ref int `json:"ref,omitempty"`
}

// NativeErr is an error value or exception.
type NativeErr struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Bytes returns the payload of a string or byte string: B64 decoded, or
// Text.
func (n *Native) Bytes() ([]byte, bool) {
	if n.B64 != nil {
		b, err := base64.StdEncoding.DecodeString(*n.B64)
		return b, err == nil
	}
	if n.Text != nil {
		return []byte(*n.Text), true
	}
	return nil, false
}

// String renders n compactly for reports: type and value.
func (n Native) String() string {
	var b strings.Builder
	n.write(&b, 0)
	return b.String()
}

// writeSeq writes n elements between open and close, comma-separated, the
// first 16 of them.
func writeSeq(b *strings.Builder, open, close string, n int, each func(i int)) {
	b.WriteString(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if i >= 16 {
			b.WriteString("…")
			break
		}
		each(i)
	}
	b.WriteString(close)
}

func (n *Native) write(b *strings.Builder, depth int) {
	if depth > 8 {
		b.WriteString("…")
		return
	}
	switch n.Kind {
	case "list", "set":
		writeSeq(b, n.Type+"[", "]", len(n.Elems), func(i int) { n.Elems[i].write(b, depth+1) })
	case "map", kindMessage:
		writeSeq(b, n.Type+"{", "}", len(n.Pairs), func(i int) {
			n.Pairs[i][0].write(b, depth+1)
			b.WriteString(": ")
			n.Pairs[i][1].write(b, depth+1)
		})
	case "error", "exception":
		b.WriteString(n.Type)
		if n.Err != nil {
			b.WriteString("(" + quote(n.Err.Class+": "+n.Err.Message) + ")")
		}
	case "nil":
		b.WriteString(n.Type)
	default:
		b.WriteString(n.Type + "(")
		if n.B64 != nil {
			v, _ := n.Bytes()
			b.WriteString("b" + quote(string(v)))
		} else if n.Text != nil {
			if n.Kind == "string" {
				b.WriteString(quote(*n.Text))
			} else {
				b.WriteString(*n.Text)
			}
		}
		b.WriteString(")")
	}
	if n.Attr != nil {
		b.WriteString(" attr=")
		n.Attr.write(b, depth+1)
	}
}

func quote(s string) string {
	const max = 200
	cut := ""
	if len(s) > max {
		s, cut = s[:max], "…"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == 0xFFFD:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + string("0123456789abcdef"[r>>4]) + string("0123456789abcdef"[r&15]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String() + cut
}

// textNative and friends build Natives in Go drivers.
func textNative(kind, typ, text string) Native { return Native{Kind: kind, Type: typ, Text: &text} }

func bytesNative(typ string, b []byte) Native {
	s := base64.StdEncoding.EncodeToString(b)
	return Native{Kind: "bytes", Type: typ, B64: &s}
}

// stringNative is a Go string: Text when valid UTF-8, B64 otherwise.
func stringNative(typ, s string) Native {
	if validUTF8(s) {
		return textNative("string", typ, s)
	}
	n := bytesNative(typ, []byte(s))
	n.Kind = "string"
	return n
}

func errNative(kind, typ, class, msg string) Native {
	return Native{Kind: kind, Type: typ, Err: &NativeErr{Class: class, Message: msg}}
}

func validUTF8(s string) bool { return utf8.ValidString(s) }

// tooDeep reports whether n is the adapters' mark for a value nested
// deeper than the 64 levels they report (adapters/*: kind "other", text
// "<too deep>"): what the library holds there is not known.
func (n *Native) tooDeep() bool {
	return n.Kind == "other" && n.Text != nil && *n.Text == "<too deep>"
}
