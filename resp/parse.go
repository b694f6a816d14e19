package resp

import (
	"io"
	"math"
	"strconv"
	"sync"
)

// Limits bounds what the decoder accepts, so that hostile or broken servers
// cannot make it allocate or recurse without bound. A zero field means the
// corresponding DefaultLimits field.
type Limits struct {
	// MaxBlobLen is the largest accepted payload, in bytes, of a blob
	// string, blob error or verbatim string (for streamed strings: the sum
	// of the chunks), and the longest accepted simple line. Larger declared
	// lengths fail with ErrTooLong as soon as the header is read.
	MaxBlobLen int64
	// MaxAggregateLen is the largest accepted element count of an array,
	// set or push, and pair count of a map or attribute (declared or
	// streamed). Larger counts fail with ErrTooLong.
	MaxAggregateLen int64
	// MaxDepth is the deepest accepted nesting of aggregates and attributes;
	// a top-level scalar has depth 1. Deeper input fails with ErrTooDeep.
	MaxDepth int
}

// DefaultLimits are the limits used by Parse and by a new Reader.
// MaxBlobLen matches Redis's default proto-max-bulk-len (512 MiB).
var DefaultLimits = Limits{
	MaxBlobLen:      512 << 20,
	MaxAggregateLen: 1<<32 - 1,
	MaxDepth:        1000,
}

func (l Limits) norm() Limits {
	if l.MaxBlobLen <= 0 {
		l.MaxBlobLen = DefaultLimits.MaxBlobLen
	}
	if l.MaxAggregateLen <= 0 {
		l.MaxAggregateLen = DefaultLimits.MaxAggregateLen
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxBlobLen > math.MaxInt32<<16 { // keeps index arithmetic far from overflow
		l.MaxBlobLen = math.MaxInt32 << 16
	}
	if l.MaxAggregateLen > math.MaxInt32<<16 {
		l.MaxAggregateLen = math.MaxInt32 << 16
	}
	return l
}

// Parse decodes the one frame at the start of b, using DefaultLimits.
//
// It returns the number of bytes the frame occupies and its value. If b
// holds only a strict prefix of a valid frame, Parse returns n == 0 and
// err == nil: the caller should supply more bytes. Malformed input yields a
// *SyntaxError (n == 0) whose Offset indexes b. Parse does no I/O; the
// returned Value's Raw and Str alias b, its Elems are freshly allocated.
func Parse(b []byte) (n int, v Value, err error) {
	return ParseLimits(b, DefaultLimits)
}

// ParseLimits is Parse with explicit limits (zero fields mean defaults).
func ParseLimits(b []byte, l Limits) (n int, v Value, err error) {
	p := parserPool.Get().(*parser)
	*p = parser{buf: b[:len(b):len(b)], lim: l.norm(), stack: p.stack[:0]}
	err = p.value(1)
	if err == nil {
		n, v = p.pos, p.stack[0]
	} else if err == errIncomplete {
		err = nil
	}
	clear(p.stack)
	*p = parser{stack: p.stack[:0]}
	parserPool.Put(p)
	return n, v, err
}

// parserPool recycles Parse's scratch stacks.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

// parser is a recursive-descent decoder over buf, which always starts at the
// first byte of the frame being decoded (positions never move, even when
// the Reader relocates the frame to a bigger buffer). When it needs bytes
// beyond len(buf) it calls more: for Parse that reports errIncomplete, for a
// Reader it reads from the stream. Decoded values are pushed on stack;
// aggregates pop their children into arena memory when complete.
type parser struct {
	buf   []byte
	pos   int
	base  int64 // stream offset of buf[0]
	lim   Limits
	rd    *Reader
	ar    *arena // nil: allocate with make
	stack []Value
}

// more makes len(p.buf) >= end or returns why it cannot: errIncomplete
// (Parse), io.EOF (clean end before the frame's first byte),
// io.ErrUnexpectedEOF, or the stream's own error.
func (p *parser) more(end int) error {
	if p.rd == nil {
		return errIncomplete
	}
	return p.rd.fill(p, end)
}

// fail builds a *SyntaxError for the value starting at s, blaming byte bad.
func (p *parser) fail(sentinel error, s, bad int, ctx string) error {
	return &SyntaxError{
		Offset:  p.base + int64(s),
		Context: ctx,
		Excerpt: excerpt(p.buf, s, bad),
		Err:     sentinel,
	}
}

// wrap turns an io.ErrUnexpectedEOF from more into a *SyntaxError for the
// value starting at s; other errors pass through unchanged.
func (p *parser) wrap(err error, s int, ctx string) error {
	if err != io.ErrUnexpectedEOF {
		return err
	}
	ctx += " (stream ended at offset " + strconv.FormatInt(p.base+int64(len(p.buf)), 10) + ")"
	return p.fail(io.ErrUnexpectedEOF, s, len(p.buf), ctx)
}

func (p *parser) byteAt(i int) (byte, error) {
	if i < len(p.buf) {
		return p.buf[i], nil
	}
	if err := p.more(i + 1); err != nil {
		return 0, err
	}
	return p.buf[i], nil
}

// next pushes a zero Value on the stack and returns it for filling in.
func (p *parser) next() *Value {
	n := len(p.stack)
	if n < cap(p.stack) {
		p.stack = p.stack[:n+1]
		p.stack[n] = Value{}
	} else {
		p.stack = append(p.stack, Value{})
	}
	return &p.stack[n]
}

// value decodes the value at p.pos and pushes it.
func (p *parser) value(depth int) error {
	s := p.pos
	if s >= len(p.buf) {
		if err := p.more(s + 1); err != nil {
			return p.wrap(err, s, "at start of value")
		}
	}
	switch c := p.buf[s]; c {
	case '+':
		return p.simple(SimpleString, s)
	case '-':
		return p.simple(SimpleError, s)
	case ':':
		return p.integer(s)
	case '$':
		return p.blob(BlobString, s)
	case '*':
		return p.aggregate(Array, s, depth)
	case '_':
		return p.null(s)
	case ',':
		return p.double(s)
	case '#':
		return p.boolean(s)
	case '!':
		return p.blob(BlobError, s)
	case '=':
		return p.blob(VerbatimString, s)
	case '(':
		return p.bignum(s)
	case '%':
		return p.aggregate(Map, s, depth)
	case '~':
		return p.aggregate(Set, s, depth)
	case '>':
		return p.aggregate(Push, s, depth)
	case '|':
		return p.attribute(s, depth)
	case '.':
		return p.fail(ErrBadValue, s, s, "\".\" end marker outside a streamed aggregate")
	default:
		return p.fail(ErrUnknownType, s, s, "type byte "+strconv.QuoteRune(rune(c))+" (0x"+strconv.FormatUint(uint64(c), 16)+")")
	}
}

// line finds the \r\n ending the line whose type byte is at s, sets p.pos
// past it and returns the text between type byte and \r\n.
func (p *parser) line(s int, what string) ([]byte, error) {
	i := s + 1
	for {
		b := p.buf
		for ; i < len(b); i++ {
			c := b[i]
			if c > '\r' {
				continue
			}
			if c == '\n' {
				return nil, p.fail(ErrBadLineEnd, s, i, "bare \\n in "+what)
			}
			if c == '\r' {
				if i+1 >= len(b) {
					if err := p.more(i + 2); err != nil {
						return nil, p.wrap(err, s, "in "+what)
					}
					b = p.buf
				}
				if b[i+1] != '\n' {
					return nil, p.fail(ErrBadLineEnd, s, i+1, "bare \\r in "+what)
				}
				if int64(i-s-1) > p.lim.MaxBlobLen {
					return nil, p.fail(ErrTooLong, s, i, what+" line longer than limit")
				}
				p.pos = i + 2
				return b[s+1 : i], nil
			}
		}
		if int64(i-s) > p.lim.MaxBlobLen {
			return nil, p.fail(ErrTooLong, s, i, what+" line longer than limit")
		}
		if err := p.more(i + 1); err != nil {
			return nil, p.wrap(err, s, "in "+what)
		}
	}
}

const (
	lenNil      = -1
	lenStreamed = -2
)

// header decodes the length line of the value whose type byte is at s:
// digits without sign or leading zeros, "-1" if allowNil, "?" if
// allowStream. It sets p.pos past the \r\n.
func (p *parser) header(s int, what string, allowNil, allowStream bool) (int64, error) {
	// Fast path: up to 18 digits followed by \r\n, all buffered.
	if b := p.buf; s+3 < len(b) && b[s+1] >= '1' && b[s+1] <= '9' {
		n := int64(b[s+1] - '0')
		i := s + 2
		for ; i < len(b) && i < s+19; i++ {
			c := b[i]
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int64(c-'0')
		}
		if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			p.pos = i + 2
			return n, nil
		}
	}
	i := s + 1
	c, err := p.byteAt(i)
	if err != nil {
		return 0, p.wrap(err, s, "in "+what+" header")
	}
	var n int64
	switch {
	case c == '?' && allowStream:
		n = lenStreamed
		i++
	case c == '-' && allowNil:
		if c, err = p.byteAt(i + 1); err != nil {
			return 0, p.wrap(err, s, "in "+what+" header")
		}
		if c != '1' {
			return 0, p.fail(ErrBadLength, s, i+1, "in "+what+" header")
		}
		n = lenNil
		i += 2
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for {
			if n > (math.MaxInt64-int64(c-'0'))/10 {
				return 0, p.fail(ErrBadLength, s, i, "in "+what+" header: overflow")
			}
			n = n*10 + int64(c-'0')
			i++
			if c, err = p.byteAt(i); err != nil {
				return 0, p.wrap(err, s, "in "+what+" header")
			}
			if c < '0' || c > '9' {
				break
			}
		}
	default:
		return 0, p.fail(ErrBadLength, s, i, "in "+what+" header")
	}
	if c, err = p.byteAt(i); err != nil {
		return 0, p.wrap(err, s, "in "+what+" header")
	}
	if c != '\r' {
		if c == '\n' {
			return 0, p.fail(ErrBadLineEnd, s, i, "bare \\n in "+what+" header")
		}
		return 0, p.fail(ErrBadLength, s, i, "in "+what+" header")
	}
	if c, err = p.byteAt(i + 1); err != nil {
		return 0, p.wrap(err, s, "in "+what+" header")
	}
	if c != '\n' {
		return 0, p.fail(ErrBadLineEnd, s, i+1, "bare \\r in "+what+" header")
	}
	p.pos = i + 2
	return n, nil
}

// scalar reads the line of a value of kind k at s and pushes the value
// with Kind, Raw and Str set. set (nil: any text is valid) checks the text
// and fills in the kind's own field; when it reports false, the error is
// ErrBadValue "in <kind><want>".
func (p *parser) scalar(k Kind, s int, want string, set func(v *Value) bool) error {
	text, err := p.line(s, k.String())
	if err != nil {
		return err
	}
	v := p.next()
	v.Kind, v.Raw, v.Str = k, p.buf[s:p.pos], text
	if set != nil && !set(v) {
		return p.fail(ErrBadValue, s, s+1, "in "+k.String()+want)
	}
	return nil
}

func (p *parser) simple(k Kind, s int) error { return p.scalar(k, s, "", nil) }

func (p *parser) integer(s int) error {
	return p.scalar(Integer, s, "", func(v *Value) (ok bool) { v.Int, ok = parseInt(v.Str); return ok })
}

// parseInt accepts [+-]?[0-9]+ within int64 range.
func parseInt(b []byte) (int64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	if i == len(b) {
		return 0, false
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 || u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c)
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -1<<63 wraps to itself
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

func (p *parser) null(s int) error {
	if s+3 > len(p.buf) {
		if err := p.more(s + 3); err != nil {
			return p.wrap(err, s, "in null")
		}
	}
	if p.buf[s+1] != '\r' {
		return p.fail(ErrBadLineEnd, s, s+1, "after null")
	}
	if p.buf[s+2] != '\n' {
		return p.fail(ErrBadLineEnd, s, s+2, "after null")
	}
	p.pos = s + 3
	{
		v := p.next()
		v.Kind = Null
		v.Raw = p.buf[s:p.pos]
	}
	return nil
}

func (p *parser) boolean(s int) error {
	return p.scalar(Boolean, s, ": want t or f", func(v *Value) bool {
		v.Bool = len(v.Str) == 1 && v.Str[0] == 't'
		return len(v.Str) == 1 && (v.Str[0] == 't' || v.Str[0] == 'f')
	})
}

func (p *parser) double(s int) error {
	return p.scalar(Double, s, "", func(v *Value) (ok bool) { v.Float, ok = parseDouble(v.Str); return ok })
}

// parseDouble accepts [+-]?(inf|nan) in any case, and
// [+-]?digits(.digits)?([eE][+-]?digits)?.
func parseDouble(b []byte) (float64, bool) {
	t := b
	neg := false
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if len(t) == 3 {
		switch lower3(t) {
		case "inf":
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		case "nan":
			return math.NaN(), true
		}
	}
	i := digits(t, 0)
	if i == 0 {
		return 0, false
	}
	if i < len(t) && t[i] == '.' {
		j := digits(t, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		j := digits(t, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	if i != len(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

func lower3(t []byte) string {
	var b [3]byte
	for i, c := range t[:3] {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b[:])
}

func digits(t []byte, i int) int {
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i
}

func (p *parser) bignum(s int) error {
	return p.scalar(BigNumber, s, "", func(v *Value) bool {
		t := v.Str
		if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
			t = t[1:]
		}
		return len(t) > 0 && digits(t, 0) == len(t)
	})
}

// blob decodes $, ! and = values.
func (p *parser) blob(k Kind, s int) error {
	what := kindNames[k]
	n, err := p.header(s, what, k == BlobString, k == BlobString)
	if err != nil {
		return err
	}
	switch n {
	case lenNil:
		{
			v := p.next()
			v.Kind = NilBlobString
			v.Raw = p.buf[s:p.pos]
		}
		return nil
	case lenStreamed:
		return p.streamedBlob(s)
	}
	if n > p.lim.MaxBlobLen {
		return p.fail(ErrTooLong, s, p.pos-2, "in "+what+" header: length "+strconv.FormatInt(n, 10)+" over limit "+strconv.FormatInt(p.lim.MaxBlobLen, 10))
	}
	h := p.pos
	end := h + int(n) + 2
	if end > len(p.buf) {
		if err := p.more(end); err != nil {
			return p.wrap(err, s, "in "+strconv.FormatInt(n, 10)+"-byte "+what+" payload")
		}
	}
	b := p.buf
	if b[end-2] != '\r' {
		return p.fail(ErrBadLineEnd, s, end-2, "after "+strconv.FormatInt(n, 10)+"-byte "+what+" payload")
	}
	if b[end-1] != '\n' {
		return p.fail(ErrBadLineEnd, s, end-1, "after "+strconv.FormatInt(n, 10)+"-byte "+what+" payload")
	}
	p.pos = end
	if k == VerbatimString && (n < 4 || b[h+3] != ':') {
		return p.fail(ErrBadValue, s, h, "in verbatim string: want 3-byte format and ':'")
	}
	v := p.next()
	v.Kind = k
	v.Raw = b[s:end:end]
	v.Str = b[h : end-2 : end-2]
	if k == VerbatimString {
		copy(v.Format[:], b[h:h+3])
		v.Str = b[h+4 : end-2 : end-2]
	}
	return nil
}

// streamedBlob decodes the chunks after "$?\r\n".
func (p *parser) streamedBlob(s int) error {
	str := []byte{}
	for {
		c := p.pos
		t, err := p.byteAt(c)
		if err != nil {
			return p.wrap(err, c, "in streamed blob string")
		}
		if t != ';' {
			return p.fail(ErrBadValue, c, c, "in streamed blob string: want ';' chunk")
		}
		n, err := p.header(c, "streamed string chunk", false, false)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if int64(len(str))+n > p.lim.MaxBlobLen {
			return p.fail(ErrTooLong, c, p.pos-2, "in streamed blob string: total over limit "+strconv.FormatInt(p.lim.MaxBlobLen, 10))
		}
		h := p.pos
		end := h + int(n) + 2
		if end > len(p.buf) {
			if err := p.more(end); err != nil {
				return p.wrap(err, c, "in streamed string chunk")
			}
		}
		if p.buf[end-2] != '\r' || p.buf[end-1] != '\n' {
			return p.fail(ErrBadLineEnd, c, end-2, "after streamed string chunk")
		}
		str = append(str, p.buf[h:end-2]...)
		p.pos = end
	}
	{
		v := p.next()
		v.Kind = BlobString
		v.Raw = p.buf[s:p.pos:p.pos]
		v.Str = str
		v.Streamed = true
	}
	return nil
}

// aggregate decodes *, %, ~ and > values.
func (p *parser) aggregate(k Kind, s, depth int) error {
	what := kindNames[k]
	n, err := p.header(s, what, k == Array, true)
	if err != nil {
		return err
	}
	if n == lenNil {
		{
			v := p.next()
			v.Kind = NilArray
			v.Raw = p.buf[s:p.pos]
		}
		return nil
	}
	if depth > p.lim.MaxDepth {
		return p.fail(ErrTooDeep, s, s, "at "+what+": depth over "+strconv.Itoa(p.lim.MaxDepth))
	}
	mark := len(p.stack)
	per := int64(1)
	if k.isPairs() {
		per = 2
	}
	if n == lenStreamed {
		for count := int64(0); ; count++ {
			c := p.pos
			t, err := p.byteAt(c)
			if err != nil {
				return p.wrap(err, s, "in streamed "+what)
			}
			if t == '.' {
				if err := p.endMarker(c); err != nil {
					return err
				}
				break
			}
			if count >= p.lim.MaxAggregateLen*per {
				return p.fail(ErrTooLong, s, c, "in streamed "+what+": over "+strconv.FormatInt(p.lim.MaxAggregateLen, 10)+" elements")
			}
			if err := p.value(depth + 1); err != nil {
				return err
			}
		}
		if (len(p.stack)-mark)%2 != 0 && per == 2 {
			return p.fail(ErrBadValue, s, p.pos-3, "in streamed "+what+": odd number of children")
		}
	} else {
		if n > p.lim.MaxAggregateLen {
			return p.fail(ErrTooLong, s, p.pos-2, "in "+what+" header: count "+strconv.FormatInt(n, 10)+" over limit "+strconv.FormatInt(p.lim.MaxAggregateLen, 10))
		}
		for i := n * per; i > 0; i-- {
			if err := p.value(depth + 1); err != nil {
				return err
			}
		}
	}
	p.finish(k, s, mark, n == lenStreamed)
	return nil
}

// finish pops the children above mark into a new aggregate value.
func (p *parser) finish(k Kind, s, mark int, streamed bool) {
	var elems []Value
	if m := len(p.stack) - mark; m > 0 {
		elems = p.ar.alloc(m)
		copy(elems, p.stack[mark:])
		p.stack = p.stack[:mark]
	}
	{
		v := p.next()
		v.Kind = k
		v.Raw = p.buf[s:p.pos:p.pos]
		v.Elems = elems
		v.Streamed = streamed
	}
}

func (p *parser) endMarker(c int) error {
	if c+3 > len(p.buf) {
		if err := p.more(c + 3); err != nil {
			return p.wrap(err, c, "in \".\" end marker")
		}
	}
	if p.buf[c+1] != '\r' || p.buf[c+2] != '\n' {
		return p.fail(ErrBadLineEnd, c, c+1, "after \".\" end marker")
	}
	p.pos = c + 3
	return nil
}

// attribute decodes "|n" and its pairs, then the value they annotate, and
// pushes that value with Attr set and Raw extended back to s.
func (p *parser) attribute(s, depth int) error {
	n, err := p.header(s, "attribute", false, false)
	if err != nil {
		return err
	}
	if depth > p.lim.MaxDepth {
		return p.fail(ErrTooDeep, s, s, "at attribute: depth over "+strconv.Itoa(p.lim.MaxDepth))
	}
	if n > p.lim.MaxAggregateLen {
		return p.fail(ErrTooLong, s, p.pos-2, "in attribute header: count "+strconv.FormatInt(n, 10)+" over limit "+strconv.FormatInt(p.lim.MaxAggregateLen, 10))
	}
	mark := len(p.stack)
	for i := 2 * n; i > 0; i-- {
		if err := p.value(depth + 1); err != nil {
			return err
		}
	}
	p.finish(Attribute, s, mark, false)
	vs := p.pos
	t, err := p.byteAt(vs)
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return p.fail(eofValueErr{}, s, vs, "(stream ended at offset "+strconv.FormatInt(p.base+int64(vs), 10)+")")
		}
		return p.wrap(err, s, "after attribute")
	}
	if t == '.' {
		return p.fail(ErrBadValue, s, vs, "attribute not followed by a value")
	}
	// Chained attributes nest one level deeper each, bounding recursion.
	if err := p.value(depth + 1); err != nil {
		return err
	}
	ap := p.ar.one()
	*ap = p.stack[mark]
	v := &p.stack[mark+1]
	tail := v
	for tail.Attr != nil {
		tail = tail.Attr
	}
	tail.Attr = ap
	v.Raw = p.buf[s:p.pos:p.pos]
	p.stack[mark] = *v
	p.stack[mark+1] = Value{}
	p.stack = p.stack[:mark+1]
	return nil
}
