package resp

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
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
// MaxDepth is above the deepest reply a server sends: a Lua script's
// nested tables reach 7,996 levels on Redis 8.6.3 and Valkey 9.1.2
// (7,995 arrays around "-ERR reached lua stack limit"), 7,997 inside
// EXEC's array.
var DefaultLimits = Limits{
	MaxBlobLen:      512 << 20,
	MaxAggregateLen: 1<<32 - 1,
	MaxDepth:        10000,
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
	p := parser{buf: b[:len(b):len(b)], lim: l.norm()}
	if err = p.value(&v, 1); err != nil {
		if err == errIncomplete {
			err = nil
		}
		return 0, Value{}, err
	}
	return p.pos, v, nil
}

// parser is a recursive-descent decoder over buf, which always starts at the
// first byte of the frame being decoded (positions never move, even when
// the Reader relocates the frame to a bigger buffer). When it needs bytes
// beyond len(buf) it calls more: for Parse that reports errIncomplete, for a
// Reader it reads from the stream.
//
// Each value is decoded straight into its final place, once: the caller's
// Value for the frame, arena (or, for Parse, freshly made) slots for the
// children of aggregates and for attributes. Nothing is built on a stack
// and copied afterwards.
type parser struct {
	buf  []byte
	pos  int
	base int64 // stream offset of buf[0]
	lim  Limits
	rd   *Reader
	ar   *arena // nil: allocate with make
	// claimed is the position in buf up to which buffered bytes already
	// back child slots handed out in this frame (see slots).
	claimed int
	// aliased reports that a value decoded in this frame slices buf's
	// current memory, so the Reader may not move bytes within it.
	aliased bool
	// scratch holds the payloads of streamed blob strings decoded by a
	// Reader in this frame (Parse allocates them instead).
	scratch []byte
	// whole says the input is all there is (ParseExact): where it ends
	// early, a length or count that promised more is the problem.
	whole bool
}

// minValueLen is the length of the shortest encoded value ("_\r\n",
// "+\r\n"): n buffered bytes hold at most n/minValueLen values.
const minValueLen = 3

// more makes len(p.buf) >= end or returns why it cannot: errIncomplete
// (Parse), io.EOF (clean end before the frame's first byte),
// io.ErrUnexpectedEOF, or the stream's own error.
func (p *parser) more(end int) error {
	if p.rd == nil {
		return errIncomplete
	}
	return p.rd.fill(p, end, false)
}

// morePayload is more for the payload of a blob string (or chunk) that
// ends at end: a Reader reads little past it (see Reader.fill).
func (p *parser) morePayload(end int) error {
	if p.rd == nil {
		return errIncomplete
	}
	return p.rd.fill(p, end, true)
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

// put overwrites every field of v with a value of kind k made of raw and
// str (the zero value elsewhere).
func (p *parser) put(v *Value, k Kind, raw, str []byte) {
	p.aliased = true
	// Clear, then set: "*v = Value{...}" would build the value on the
	// stack and copy it, stalling on the loads of what was just stored.
	*v = Value{}
	v.Kind, v.Raw, v.Str = k, raw, str
}

// putAggregate overwrites every field of v with an aggregate of kind k
// made of raw and elems.
func (p *parser) putAggregate(v *Value, k Kind, raw []byte, elems []Value) {
	p.aliased = true
	*v = Value{}
	v.Kind, v.Raw, v.Elems = k, raw, elems
}

// value decodes the value at p.pos into v, overwriting all its fields.
func (p *parser) value(v *Value, depth int) error {
	s := p.pos
	if s >= len(p.buf) {
		if err := p.more(s + 1); err != nil {
			return p.wrap(err, s, "at start of value")
		}
	}
	switch c := p.buf[s]; c {
	case '+':
		return p.scalar(v, SimpleString, s)
	case '-':
		return p.scalar(v, SimpleError, s)
	case ':':
		if p.quickInt(v, s) {
			return nil
		}
		return p.scalar(v, Integer, s)
	case '$':
		// The most common value by far, decoded here when buffered whole
		// and well formed (1 to 18 digits, no leading zero, within the
		// limit, or -1); blob decodes, or rejects, everything else.
		b, i, n := p.buf, s+1, int64(0)
		if s+5 <= len(b) && b[i] == '-' && b[i+1] == '1' && b[i+2] == '\r' && b[i+3] == '\n' {
			p.pos = s + 5
			p.put(v, NilBlobString, b[s:s+5], nil)
			return nil
		}
		for ; i < len(b) && i < s+19 && b[i]-'0' <= 9; i++ {
			n = n*10 + int64(b[i]-'0')
		}
		if i > s+1 && b[s+1] != '0' && i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' && n <= p.lim.MaxBlobLen {
			h := i + 2
			end := h + int(n) + 2
			if end <= len(b) && b[end-2] == '\r' && b[end-1] == '\n' {
				p.pos = end
				p.put(v, BlobString, b[s:end:end], b[h:end-2:end-2])
				return nil
			}
		}
		return p.blob(v, BlobString, s)
	case '*':
		return p.aggregate(v, Array, s, depth)
	case '_':
		return p.null(v, s)
	case ',':
		return p.scalar(v, Double, s)
	case '#':
		return p.scalar(v, Boolean, s)
	case '!':
		return p.blob(v, BlobError, s)
	case '=':
		return p.blob(v, VerbatimString, s)
	case '(':
		return p.scalar(v, BigNumber, s)
	case '%':
		return p.aggregate(v, Map, s, depth)
	case '~':
		return p.aggregate(v, Set, s, depth)
	case '>':
		return p.aggregate(v, Push, s, depth)
	case '|':
		return p.attribute(v, s, depth)
	case '.':
		return p.fail(ErrBadValue, s, s, "\".\" end marker outside a streamed aggregate")
	default:
		return p.fail(ErrUnknownType, s, s, "type byte "+strconv.QuoteRune(rune(c))+" (0x"+strconv.FormatUint(uint64(c), 16)+")")
	}
}

// quickInt decodes into v the integer at s if it is buffered whole, has
// an optional '-' and 1 to 18 digits and is within the line limit, and
// reports whether it did. scalar decodes, or rejects, the rest.
func (p *parser) quickInt(v *Value, s int) bool {
	b, i := p.buf, s+1
	if i < len(b) && b[i] == '-' {
		i++
	}
	d, n := i, int64(0)
	for ; i < len(b) && i < d+18 && b[i]-'0' <= 9; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if i == d || i+1 >= len(b) || b[i] != '\r' || b[i+1] != '\n' || int64(i-s-1) > p.lim.MaxBlobLen {
		return false
	}
	if d > s+1 {
		n = -n
	}
	p.pos = i + 2
	p.put(v, Integer, b[s:i+2], b[s+1:i])
	v.Int = n
	return true
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

// scalar reads the line of a value of kind k at s into v, with Kind, Raw
// and Str set and the kind's own field (Int, Float, Bool) filled in from the
// text. Malformed text is ErrBadValue "in <kind>" (for booleans, "in
// boolean: want t or f").
func (p *parser) scalar(v *Value, k Kind, s int) error {
	text, err := p.line(s, k.String())
	if err != nil {
		return err
	}
	p.put(v, k, p.buf[s:p.pos], text)
	ok, want := true, ""
	switch k {
	case Integer:
		v.Int, ok = parseInt(text)
	case Double:
		v.Float, ok = parseDouble(text)
	case Boolean:
		v.Bool = len(text) == 1 && text[0] == 't'
		ok, want = len(text) == 1 && (text[0] == 't' || text[0] == 'f'), ": want t or f"
	case BigNumber:
		ok = isBigNumber(text)
	}
	if !ok {
		return p.fail(ErrBadValue, s, s+1, "in "+k.String()+want)
	}
	return nil
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

func (p *parser) null(v *Value, s int) error {
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
	p.put(v, Null, p.buf[s:p.pos], nil)
	return nil
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

// isBigNumber accepts [+-]?digits.
func isBigNumber(t []byte) bool {
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	return len(t) > 0 && digits(t, 0) == len(t)
}

// blob decodes $, ! and = values into v.
func (p *parser) blob(v *Value, k Kind, s int) error {
	what := kindNames[k]
	n, err := p.header(s, what, k == BlobString, k == BlobString)
	if err != nil {
		return err
	}
	switch n {
	case lenNil:
		p.put(v, NilBlobString, p.buf[s:p.pos], nil)
		return nil
	case lenStreamed:
		return p.streamedBlob(v, s)
	}
	if n > p.lim.MaxBlobLen {
		return p.fail(ErrTooLong, s, p.pos-2, "in "+what+" header: length "+strconv.FormatInt(n, 10)+" over limit "+strconv.FormatInt(p.lim.MaxBlobLen, 10))
	}
	h := p.pos
	end := h + int(n) + 2
	if end > len(p.buf) {
		if err := p.morePayload(end); err != nil {
			if err == io.ErrUnexpectedEOF && p.whole {
				if lerr := p.payloadLength(s, h, n, what, err); lerr != nil {
					return lerr
				}
			}
			return p.wrap(err, s, "in "+strconv.FormatInt(n, 10)+"-byte "+what+" payload")
		}
	}
	b := p.buf
	if b[end-2] != '\r' || b[end-1] != '\n' {
		if lerr := p.payloadLength(s, h, n, what, ErrBadLineEnd); lerr != nil {
			return lerr
		}
		bad := end - 2
		if b[bad] == '\r' {
			bad++
		}
		return p.fail(ErrBadLineEnd, s, bad, "after "+strconv.FormatInt(n, 10)+"-byte "+what+" payload")
	}
	p.pos = end
	if k != VerbatimString {
		p.put(v, k, b[s:end:end], b[h:end-2:end-2])
		return nil
	}
	if n < 4 || b[h+3] != ':' {
		return p.fail(ErrBadValue, s, h, "in verbatim string: want 3-byte format and ':'")
	}
	p.put(v, k, b[s:end:end], b[h+4:end-2:end-2])
	copy(v.Format[:], b[h:h+3])
	return nil
}

// payloadLength is the error of a blob whose CRLF is not where its
// length n says (the payload starts at h): "blob string of length 3 has
// 5 bytes before its CRLF", wrapping met; nil when no CRLF follows the
// payload's start in the bytes at hand.
func (p *parser) payloadLength(s, h int, n int64, what string, met error) error {
	j := bytes.Index(p.buf[h:], crlf)
	if j < 0 || int64(j) == n {
		return nil
	}
	return p.fail(lengthErr{met}, s, h+j, "("+what+" of length "+strconv.FormatInt(n, 10)+" has "+
		strconv.Itoa(j)+" "+plural(j, "byte", "bytes")+" before its CRLF)")
}

var crlf = []byte("\r\n")

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// streamedBlob decodes the chunks after "$?\r\n" into v. A Reader
// gathers the payload in its per-frame scratch buffer; Parse allocates it.
func (p *parser) streamedBlob(v *Value, s int) error {
	str, start := []byte{}, 0
	if p.rd != nil {
		str, start = p.scratch, len(p.scratch)
	}
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
		if int64(len(str)-start)+n > p.lim.MaxBlobLen {
			return p.fail(ErrTooLong, c, p.pos-2, "in streamed blob string: total over limit "+strconv.FormatInt(p.lim.MaxBlobLen, 10))
		}
		h := p.pos
		end := h + int(n) + 2
		if end > len(p.buf) {
			if err := p.morePayload(end); err != nil {
				return p.wrap(err, c, "in streamed string chunk")
			}
		}
		if p.buf[end-2] != '\r' || p.buf[end-1] != '\n' {
			return p.fail(ErrBadLineEnd, c, end-2, "after streamed string chunk")
		}
		str = append(str, p.buf[h:end-2]...)
		p.pos = end
	}
	if p.rd != nil {
		// Later streamed strings of this frame append after this one; if
		// that moves scratch, this one keeps the old array.
		p.scratch = str
		str = str[start:len(str):len(str)]
		if len(str) == 0 {
			str = []byte{}
		}
	}
	p.put(v, BlobString, p.buf[s:p.pos:p.pos], str)
	v.Streamed = true
	return nil
}

// aggregate decodes *, %, ~ and > values into v.
func (p *parser) aggregate(v *Value, k Kind, s, depth int) error {
	what := kindNames[k]
	n, err := p.header(s, what, k == Array, true)
	if err != nil {
		return err
	}
	if n == lenNil {
		p.put(v, NilArray, p.buf[s:p.pos], nil)
		return nil
	}
	if depth > p.lim.MaxDepth {
		return p.fail(ErrTooDeep, s, s, "at "+what+": depth over "+strconv.Itoa(p.lim.MaxDepth))
	}
	per := int64(1)
	if k.isPairs() {
		per = 2
	}
	var elems []Value
	if n == lenStreamed {
		elems, err = p.streamedChildren(s, what, per, depth)
	} else if n > p.lim.MaxAggregateLen {
		return p.fail(ErrTooLong, s, p.pos-2, "in "+what+" header: count "+strconv.FormatInt(n, 10)+" over limit "+strconv.FormatInt(p.lim.MaxAggregateLen, 10))
	} else {
		elems, err = p.children(n*per, depth)
		if err != nil && p.whole {
			err = p.shortAggregate(err, s, k, n)
		}
	}
	if err != nil {
		return err
	}
	p.putAggregate(v, k, p.buf[s:p.pos:p.pos], elems)
	v.Streamed = n == lenStreamed
	return nil
}

// children decodes the m values of an aggregate (or attribute) at depth
// into slots and returns them, or nil if m is 0.
func (p *parser) children(m int64, depth int) ([]Value, error) {
	if m == 0 {
		return nil, nil
	}
	es := p.slots(nil, m)
	for i := 0; int64(i) < m; i++ {
		if i == len(es) {
			es = p.slots(es, m)
		}
		if err := p.value(&es[i], depth+1); err != nil {
			return nil, err
		}
	}
	return es, nil
}

// shortAggregate turns err, the input of a whole frame ending where the
// next child of the aggregate of kind k at s should start, into "array of
// 3 has 2 elements" (ErrWrongLength and io.ErrUnexpectedEOF); other errors
// pass through.
func (p *parser) shortAggregate(err error, s int, k Kind, n int64) error {
	var se *SyntaxError
	if !errors.As(err, &se) || se.Err != io.ErrUnexpectedEOF || se.Offset != p.base+int64(len(p.buf)) ||
		!strings.HasPrefix(se.Context, "at start of value") {
		return err
	}
	got := p.countChildren(s)
	what := kindNames[k]
	ctx := "(" + what + " of " + strconv.FormatInt(n, 10) + " has " + strconv.Itoa(got) + " " + plural(got, "element", "elements") + ")"
	if k.isPairs() {
		ctx = "(" + what + " of " + strconv.FormatInt(n, 10) + " " + plural(int(n), "pair", "pairs") + " has " +
			strconv.Itoa(got) + " " + plural(got, "value", "values") + ", want " + strconv.FormatInt(2*n, 10) + ")"
	}
	return p.fail(lengthErr{io.ErrUnexpectedEOF}, s, len(p.buf), ctx)
}

// countChildren counts the complete values after the header of the
// aggregate at s, up to the end of the input (a whole frame that ended
// early: each child decodes on its own).
func (p *parser) countChildren(s int) int {
	q := parser{buf: p.buf, lim: p.lim}
	if _, err := q.header(s, "aggregate", true, false); err != nil {
		return 0
	}
	got := 0
	for q.pos < len(q.buf) {
		var v Value
		if err := q.value(&v, 2); err != nil {
			break
		}
		got++
	}
	return got
}

// streamedChildren decodes the children of the streamed aggregate at s up
// to its "." end marker, per (1, or 2 for maps) values an element.
func (p *parser) streamedChildren(s int, what string, per int64, depth int) ([]Value, error) {
	var es []Value
	count := 0
	for {
		c := p.pos
		t, err := p.byteAt(c)
		if err != nil {
			if err == io.ErrUnexpectedEOF && p.whole {
				return nil, p.fail(lengthErr{err}, s, c, "(streamed "+what+" has "+strconv.Itoa(count)+" "+
					plural(count, "value", "values")+" and no \".\" end marker)")
			}
			return nil, p.wrap(err, s, "in streamed "+what)
		}
		if t == '.' {
			if err := p.endMarker(c); err != nil {
				return nil, err
			}
			break
		}
		if int64(count) >= p.lim.MaxAggregateLen*per {
			return nil, p.fail(ErrTooLong, s, c, "in streamed "+what+": over "+strconv.FormatInt(p.lim.MaxAggregateLen, 10)+" elements")
		}
		if count == len(es) {
			es = p.slots(es, p.lim.MaxAggregateLen*per)
		}
		if err := p.value(&es[count], depth+1); err != nil {
			return nil, err
		}
		count++
	}
	if count%2 != 0 && per == 2 {
		return nil, p.fail(ErrBadValue, s, p.pos-3, "in streamed "+what+": odd number of children")
	}
	if count == 0 {
		return nil, nil
	}
	return es[:count:count], nil
}

// slots returns room for the children of an aggregate that has m in all
// and holds old so far (copied to the start of the result). Slots are
// backed by bytes received, never by the declared count alone: the result
// holds as many as the buffered bytes not yet claimed by the aggregates
// around it could encode (minValueLen each), at least one more than old and
// at least twice as many (each already holds a decoded value), and never
// more than m.
func (p *parser) slots(old []Value, m int64) []Value {
	from := max(p.pos, p.claimed)
	k := max((len(p.buf)-from)/minValueLen, 2*len(old), 1)
	k = int(min(int64(k), m))
	p.claimed = max(p.claimed, min(len(p.buf), from+k*minValueLen))
	es := p.ar.alloc(k)
	copy(es, old)
	return es
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

// attribute decodes "|n" and its pairs, then the value they annotate, into
// v, with the attribute attached (at the end of v's Attr chain, if the
// value had attributes of its own) and Raw extended back to s.
func (p *parser) attribute(v *Value, s, depth int) error {
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
	pairs, err := p.children(2*n, depth)
	if err != nil {
		return err
	}
	a := p.ar.one()
	p.putAggregate(a, Attribute, p.buf[s:p.pos:p.pos], pairs)
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
	if err := p.value(v, depth+1); err != nil {
		return err
	}
	tail := v
	for tail.Attr != nil {
		tail = tail.Attr
	}
	tail.Attr = a
	v.Raw = p.buf[s:p.pos:p.pos]
	return nil
}
