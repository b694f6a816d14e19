package resp

import (
	"bytes"
	"math/big"
	"unsafe"
)

// Kind is the RESP type of a Value, named as the RESP3 specification names
// it. RESP2's two nil forms ($-1 and *-1) are kinds of their own, distinct
// from RESP3's null (_): a conformance tester must be able to tell them apart.
type Kind uint8

// The kinds, one per RESP2/RESP3 type. The comment gives each wire shape.
const (
	Invalid        Kind = iota // zero Value; never produced by the reader
	SimpleString               // +<text>\r\n
	SimpleError                // -<text>\r\n
	Integer                    // :<[+-]digits>\r\n
	BlobString                 // $<len>\r\n<bytes>\r\n, or streamed $?\r\n(;<len>\r\n<bytes>\r\n)*;0\r\n
	NilBlobString              // $-1\r\n (RESP2 nil bulk string)
	Array                      // *<n>\r\n<n values>, or streamed *?\r\n<values>.\r\n
	NilArray                   // *-1\r\n (RESP2 nil multi-bulk)
	Null                       // _\r\n (RESP3)
	Double                     // ,<text>\r\n: 1.5, -2, inf, -inf, nan, 1e10
	Boolean                    // #t\r\n or #f\r\n
	BlobError                  // !<len>\r\n<bytes>\r\n
	VerbatimString             // =<len>\r\n<fmt(3 bytes)>:<bytes>\r\n
	BigNumber                  // (<[+-]digits>\r\n
	Map                        // %<n>\r\n<2n values>, or streamed %?\r\n...\.\r\n
	Set                        // ~<n>\r\n<n values>, or streamed ~?\r\n...\.\r\n
	Attribute                  // |<n>\r\n<2n values>, then the value it is attached to
	Push                       // ><n>\r\n<n values>
)

// Value is one decoded RESP frame. It keeps the exact bytes it was decoded
// from next to the decoded fields, so one object answers both "are the bytes
// identical?" (Raw) and "is the value equal?" (Kind and the payload fields).
//
// Values returned by Reader.Read alias the reader's buffers: Raw, Str, Elems
// and Attr stay valid only until the next call to Read. Call Clone to keep a
// value longer. Values returned by Parse alias the input slice.
//
// The small fields come first and share one word, so that a Value is 104
// bytes on 64-bit platforms: decoding writes one per node.
type Value struct {
	// Kind is the RESP type.
	Kind Kind
	// Format is the 3-byte format of a verbatim string ("txt", "mkd").
	Format [3]byte
	// Bool is the value of a Boolean.
	Bool bool
	// Streamed reports that the value arrived in streamed form ($?, *?, %?, ~?).
	Streamed bool
	// Raw is the exact bytes of the frame, from the first byte of its
	// attribute (if any) to the final \r\n. Never a re-encoding.
	Raw []byte
	// Attr is the attribute (Kind Attribute) that preceded this value on the
	// wire, or nil. Its Elems hold key/value pairs as in a Map.
	Attr *Value
	// Str is the payload of the textual kinds: simple string and simple error
	// text, blob string and blob error bytes, the text after "fmt:" of a
	// verbatim string, and the server's own text of an integer, double, big
	// number and boolean ("t" or "f"). For streamed blob strings it is the
	// concatenation of the chunks.
	Str []byte
	// Int is the value of an Integer.
	Int int64
	// Float is the parsed value of a Double (±Inf and NaN included).
	Float float64
	// Elems holds the children of an Array, Set or Push, and the key/value
	// pairs of a Map or Attribute flattened as k0, v0, k1, v1, ...
	Elems []Value
}

// BigInt returns a big number's value, or false if v is not a big number.
func (v Value) BigInt() (*big.Int, bool) {
	if v.Kind != BigNumber {
		return nil, false
	}
	return new(big.Int).SetString(string(v.Str), 10)
}

// Clone returns a deep copy of v that owns its memory: Raw, Str, Elems and
// Attr no longer alias any reader buffer or input slice. Slices that lay
// inside v.Raw are re-sliced from the one copy of Raw, so a clone costs
// about len(v.Raw) bytes plus one Value per node.
func (v Value) Clone() Value {
	c := cloner{src: v.Raw}
	if v.Raw != nil {
		c.raw = append(make([]byte, 0, len(v.Raw)), v.Raw...)
	}
	c.vals = make([]Value, countNodes(&v)-1)
	var out Value
	c.copy(&out, &v)
	return out
}

func countNodes(v *Value) int {
	n := 1
	if v.Attr != nil {
		n += countNodes(v.Attr)
	}
	for i := range v.Elems {
		n += countNodes(&v.Elems[i])
	}
	return n
}

type cloner struct {
	src, raw []byte
	vals     []Value
}

func (c *cloner) take(n int) []Value {
	s := c.vals[:n:n]
	c.vals = c.vals[n:]
	return s
}

func (c *cloner) bytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	if off, ok := within(c.src, b); ok {
		return c.raw[off : off+len(b) : off+len(b)]
	}
	return append(make([]byte, 0, len(b)), b...)
}

func (c *cloner) copy(dst, src *Value) {
	*dst = *src
	dst.Raw = c.bytes(src.Raw)
	dst.Str = c.bytes(src.Str)
	if src.Attr != nil {
		a := &c.take(1)[0]
		c.copy(a, src.Attr)
		dst.Attr = a
	}
	if src.Elems != nil {
		dst.Elems = c.take(len(src.Elems))
		for i := range src.Elems {
			c.copy(&dst.Elems[i], &src.Elems[i])
		}
	}
}

// within reports whether inner lies inside outer's memory and at which
// offset. It compares addresses only; no pointer is made from an integer.
func within(outer, inner []byte) (int, bool) {
	if len(inner) == 0 || len(outer) == 0 {
		return 0, false
	}
	o := uintptr(unsafe.Pointer(unsafe.SliceData(outer)))
	i := uintptr(unsafe.Pointer(unsafe.SliceData(inner)))
	if i < o || i+uintptr(len(inner)) > o+uintptr(len(outer)) {
		return 0, false
	}
	return int(i - o), true
}

// Equal reports whether a and b are semantically equal: same Kind, same
// payload (Str, Format, Int, Bool; a double is compared by its text, so
// "nan" equals "nan" but not "-nan" or "NaN", and "1.0" differs from "1"),
// pairwise Equal Elems and Equal attributes (both absent or both present).
// Raw, Streamed and Float are ignored. For integers, doubles and booleans
// built without Str, the canonical text of Int, Float or Bool stands in.
func Equal(a, b Value) bool { return equal(&a, &b) }

func equal(a, b *Value) bool {
	if a.Kind != b.Kind || a.Int != b.Int || a.Bool != b.Bool || a.Format != b.Format {
		return false
	}
	if !bytes.Equal(textOf(a), textOf(b)) {
		return false
	}
	if (a.Attr == nil) != (b.Attr == nil) {
		return false
	}
	if a.Attr != nil && !equal(a.Attr, b.Attr) {
		return false
	}
	if len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Elems {
		if !equal(&a.Elems[i], &b.Elems[i]) {
			return false
		}
	}
	return true
}

// Depth is the nesting depth of v as Limits.MaxDepth counts it: 1 for a
// scalar, one more for each aggregate or attribute around a value.
func (v *Value) Depth() int {
	d := 0
	if v.Attr != nil {
		d = v.Attr.Depth()
	}
	for i := range v.Elems {
		d = max(d, v.Elems[i].Depth())
	}
	return d + 1
}
