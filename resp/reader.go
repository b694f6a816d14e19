package resp

import (
	"errors"
	"io"
)

// Reader decodes a stream of RESP frames from an io.Reader.
//
// Its buffer starts small and grows geometrically only as bytes actually
// arrive, never to a declared length up front, and it is reused from frame
// to frame. Reads stop a little past the end of a blob payload (and at most
// 64 KiB ahead otherwise), so the next frame starts near the start of the
// buffer; a frame that does not fit in the rest of the buffer is moved to
// its start, or to a spare buffer when values already decoded from it
// slice the buffer, before any new memory is taken. Back-to-back large
// blob strings thus reuse one buffer of their size. Each frame is decoded
// in place, straight into the caller's Value and the Reader's reusable
// arenas, so in steady state a Read allocates nothing.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	rd    io.Reader
	lim   Limits
	mem   []byte // mem[:len] holds buffered stream bytes, mem[0] at offset off
	spare []byte // second buffer for relocating a frame
	// spareAliased reports that spare holds bytes sliced by values of the
	// frame being decoded.
	spareAliased bool
	r            int   // start of the next (or current) frame in mem
	off          int64 // stream offset of mem[0]
	rerr         error // read error held back until bytes before it are used
	serr         error // sticky syntax error
	p            parser
	ar           arena
}

const (
	minBuf  = 4096
	minRead = 1024
	// maxSpare is the largest old buffer kept for reuse after a growth. A
	// 64 MiB blob string grows its buffer from 8 MiB to 64 MiB, so the
	// spare it leaves adds at most an eighth to the buffer.
	maxSpare = 8 << 20
	// readAhead is how far past the end of a blob payload being filled in
	// a Read may ask for bytes; maxLineRead is the most a Read asks for
	// while a line is scanned.
	readAhead   = 4 << 10
	maxLineRead = 64 << 10
)

// NewReader returns a Reader decoding frames from r with DefaultLimits.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{rd: r, lim: DefaultLimits}
	rd.p.rd = rd
	rd.p.ar = &rd.ar
	return rd
}

// Reset makes the Reader decode from r, discarding buffered bytes and any
// sticky error; the offset restarts at 0 and buffers are kept for reuse.
func (r *Reader) Reset(rd io.Reader) {
	r.rd = rd
	r.mem = r.mem[:0]
	r.r, r.off = 0, 0
	r.rerr, r.serr = nil, nil
}

// SetLimits replaces the limits applied by subsequent Reads (zero fields
// mean the DefaultLimits field).
func (r *Reader) SetLimits(l Limits) { r.lim = l.norm() }

// RestartOffset makes the offset of the next unread byte 0, buffered
// bytes kept: a stream that carries one conversation after another (a
// connection that goes from one test case to the next) counts each
// conversation's offsets, those of SyntaxError included, from its start.
func (r *Reader) RestartOffset() { r.off = -int64(r.r) }

// Offset returns the stream offset, in bytes from the first byte read, of
// the next unread byte: after a successful Read, the end of that frame.
func (r *Reader) Offset() int64 { return r.off + int64(r.r) }

// Buffered returns the number of bytes read from the stream but not yet
// consumed by a Read.
func (r *Reader) Buffered() int { return len(r.mem) - r.r }

// Pending returns the bytes read from the stream but not yet consumed by
// a Read: after a Read that failed for want of bytes (a deadline), the
// start of the unfinished frame. It aliases the Reader's buffer, valid
// until the next Read.
func (r *Reader) Pending() []byte { return r.mem[r.r:len(r.mem):len(r.mem)] }

// Read decodes and returns the next complete frame; it is ReadInto a
// Value of its own. An attribute is not a frame of its own: it is attached
// (Value.Attr) to the value that follows it, whose Raw then starts at the
// attribute. Push frames are returned like any other frame.
//
// The returned Value aliases the Reader's buffers and arenas: it is valid
// only until the next call to Read or ReadInto (like
// bufio.Reader.ReadSlice). Use Value.Clone to keep it.
//
// Errors:
//   - io.EOF: the stream ended cleanly between frames;
//   - a *SyntaxError wrapping io.ErrUnexpectedEOF: it ended inside a frame;
//   - a *SyntaxError wrapping a sentinel (ErrBadLength, ...): malformed
//     input. Syntax errors are sticky: later Reads return the same error.
//   - any other error from the underlying reader (a net.Error timeout, say)
//     is returned as is. The partial frame stays buffered, so Read may be
//     called again to resume once the reader can deliver more bytes.
func (r *Reader) Read() (Value, error) {
	var v Value
	err := r.ReadInto(&v)
	return v, err
}

// ReadInto decodes the next complete frame into *v, overwriting every
// field, without building it anywhere else first: the one copy of each
// decoded value is the one the caller sees. On error *v is the zero Value.
// Frames, attributes, aliasing and errors are as for Read: *v's slices and
// pointers are valid only until the next Read or ReadInto, and v must not
// point into a value they returned.
func (r *Reader) ReadInto(v *Value) error {
	if r.serr != nil {
		*v = Value{}
		return r.serr
	}
	if r.r == len(r.mem) && r.r > 0 {
		r.off += int64(r.r)
		r.mem = r.mem[:0]
		r.r = 0
	}
	r.spareAliased = false
	r.ar.reset()
	p := &r.p
	p.buf = r.mem[r.r:]
	p.pos = 0
	p.base = r.off + int64(r.r)
	p.lim = r.lim
	p.claimed, p.aliased = 0, false
	p.scratch = p.scratch[:0]
	if err := p.value(v, 1); err != nil {
		*v = Value{}
		if se, ok := err.(*SyntaxError); ok && !errors.Is(se.Err, io.ErrUnexpectedEOF) {
			r.serr = err
		}
		return err
	}
	r.r += p.pos
	return nil
}

var errNegativeRead = errors.New("resp: reader returned invalid count")

// fill reads until len(p.buf) >= end; p.buf is r.mem[r.r:].
//
// Reads are bounded so that frames land near the start of the buffer,
// where they can grow without first being moved: a payload (payload: the
// parser knows the frame needs end bytes and scans no line) is read no
// more than readAhead bytes past its end, and a line no more than
// maxLineRead bytes ahead. A payload that will not fit in the rest of the
// buffer is moved to the start of a buffer it fits in, if the Reader has
// one, before its bytes arrive, while little of it is buffered.
func (r *Reader) fill(p *parser, end int, payload bool) error {
	if payload && end > cap(p.buf) {
		r.reuse(p, end)
	}
	empty := 0
	for len(p.buf) < end {
		if r.rerr != nil {
			err := r.rerr
			r.rerr = nil
			if err == io.EOF && len(p.buf) > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if cap(p.buf)-len(p.buf) < min(minRead, end-len(p.buf)) {
			r.grow(p, end)
		}
		free := p.buf[len(p.buf):cap(p.buf)]
		if payload {
			free = free[:min(len(free), end-len(p.buf)+readAhead)]
		} else {
			free = free[:min(len(free), maxLineRead)]
		}
		n, err := r.rd.Read(free)
		if n < 0 || n > len(free) {
			n, err = 0, errNegativeRead
		}
		p.buf = p.buf[:len(p.buf)+n]
		r.mem = r.mem[:r.r+len(p.buf)]
		if err != nil {
			r.rerr = err
		} else if n == 0 {
			if empty++; empty >= 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// grow makes room for the current frame (p.buf, at r.mem[r.r:]) to reach
// growTarget bytes, moving it to the start of a buffer that large: one the
// Reader has (see reuse), else a new one.
func (r *Reader) grow(p *parser, end int) {
	target := growTarget(len(p.buf), end)
	if !r.reuse(p, target) {
		r.swap(p, make([]byte, len(p.buf), max(target, cap(r.mem))))
	}
}

// reuse moves the current frame to the start of a buffer of at least size
// bytes that the Reader already has, and reports whether it did: the
// current buffer, when no value decoded from the frame slices it (the
// usual case for a frame made of one large blob string), else the spare,
// when the frame does not slice it either. Values already decoded keep
// slicing the buffer they were decoded from, so it is not reused while
// the frame is decoded.
func (r *Reader) reuse(p *parser, size int) bool {
	n := len(p.buf)
	switch {
	case !p.aliased && r.r > 0 && cap(r.mem) >= size:
		nb := r.mem[:n]
		copy(nb, p.buf)
		r.relocate(p, nb)
	case !r.spareAliased && cap(r.spare) >= size:
		r.swap(p, r.spare[:n])
	default:
		return false
	}
	return true
}

// swap copies the current frame to nb (of length len(p.buf)) and makes nb
// the buffer. The replaced buffer becomes the spare if it is at most
// maxSpare bytes; a larger one is left to the garbage collector.
func (r *Reader) swap(p *parser, nb []byte) {
	copy(nb, p.buf)
	r.spare, r.spareAliased = nil, false
	if cap(r.mem) <= maxSpare {
		r.spare, r.spareAliased = r.mem[:0], p.aliased
	}
	p.aliased = false
	r.relocate(p, nb)
}

// relocate makes nb, which holds the current frame's bytes at its start,
// the buffer.
func (r *Reader) relocate(p *parser, nb []byte) {
	r.off += int64(r.r)
	r.r = 0
	r.mem = nb
	p.buf = nb
}

// growTarget is the capacity, in bytes, to give a frame of which n bytes
// are buffered when the parser needs end bytes.
//
// Growth follows the bytes that arrive, so a declared length alone never
// allocates, and is geometric, so copying stays linear. When the parser
// needs a known, distant end (the payload of a large blob string), the
// buffer grows 2x, and 8x past 1 MiB, but never past end, and straight to
// end when that is within an eighth: a 1 MiB blob string ends in a buffer
// of its size, not 2 MiB, and a 64 MiB one in 64 MiB, not 128 MiB.
// Otherwise (lines, aggregates decoded piece by piece) the buffer doubles.
func growTarget(n, end int) int {
	if end-n <= minRead {
		return max(2*n, minBuf, end)
	}
	target := max(2*n, minBuf)
	if n >= 1<<20 {
		target = 8 * n
	}
	if target >= end-end/8 {
		target = end // close enough: one last growth to exactly the end
	}
	return min(target, end)
}
