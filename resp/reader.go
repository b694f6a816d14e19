package resp

import (
	"errors"
	"io"
)

// Reader decodes a stream of RESP frames from an io.Reader.
//
// Its buffer starts small and grows geometrically only as bytes actually
// arrive, never to a declared length up front; it is compacted between
// frames. Value trees are built in reusable arenas, so in steady state Read
// allocates nothing.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	rd      io.Reader
	lim     Limits
	mem     []byte // mem[:len] holds buffered stream bytes, mem[0] at offset off
	spare   []byte // second buffer for relocating a frame
	tainted bool   // spare holds bytes referenced by the frame being decoded
	r       int    // start of the next (or current) frame in mem
	off     int64  // stream offset of mem[0]
	rerr    error  // read error held back until bytes before it are used
	serr    error  // sticky syntax error
	p       parser
	ar      arena
}

const (
	minBuf  = 4096
	minRead = 1024
	// maxSpare is the largest old buffer kept for reuse after a growth.
	maxSpare = 1 << 20
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

// Offset returns the stream offset, in bytes from the first byte read, of
// the next unread byte: after a successful Read, the end of that frame.
func (r *Reader) Offset() int64 { return r.off + int64(r.r) }

// Buffered returns the number of bytes read from the stream but not yet
// consumed by a Read.
func (r *Reader) Buffered() int { return len(r.mem) - r.r }

// Read decodes and returns the next complete frame. An attribute is not a
// frame of its own: it is attached (Value.Attr) to the value that follows
// it, whose Raw then starts at the attribute. Push frames are returned like
// any other frame.
//
// The returned Value aliases the Reader's buffers and arenas: it is valid
// only until the next call to Read (like bufio.Reader.ReadSlice). Use
// Value.Clone to keep it.
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
	if r.serr != nil {
		return Value{}, r.serr
	}
	if r.r == len(r.mem) && r.r > 0 {
		r.off += int64(r.r)
		r.mem = r.mem[:0]
		r.r = 0
	}
	r.tainted = false
	r.ar.reset()
	p := &r.p
	p.buf = r.mem[r.r:]
	p.pos = 0
	p.base = r.off + int64(r.r)
	p.lim = r.lim
	p.stack = p.stack[:0]
	if err := p.value(1); err != nil {
		clear(p.stack)
		p.stack = p.stack[:0]
		if se, ok := err.(*SyntaxError); ok && !errors.Is(se.Err, io.ErrUnexpectedEOF) {
			r.serr = err
		}
		return Value{}, err
	}
	r.r += p.pos
	v := p.stack[0]
	p.stack[0] = Value{}
	p.stack = p.stack[:0]
	return v, nil
}

var errNegativeRead = errors.New("resp: reader returned invalid count")

// fill reads until len(p.buf) >= end; p.buf is r.mem[r.r:].
func (r *Reader) fill(p *parser, end int) error {
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

// grow relocates the current frame (p.buf) to the start of a buffer at
// least twice its length (8x past 1 MiB when the frame needs more), but no
// larger than end (the bytes the frame is
// known to need, within the limits) when that is less: a 64 MiB blob string
// ends in a 64 MiB buffer, not a 128 MiB one. Growth follows the bytes that
// arrive, so a declared length alone never allocates. The old buffer is not
// reused while the frame is being decoded, since already decoded values
// alias it; a large one is left to the garbage collector rather than kept
// as the spare.
func (r *Reader) grow(p *parser, end int) {
	n := len(p.buf)
	target := max(2*n, minBuf)
	if end-n > minRead {
		// The parser needs a known, distant end (the body of a large blob
		// string): grow 8x at a time past 1 MiB, still bounded by the bytes
		// that actually arrived, and never past that end. Otherwise (lines,
		// aggregates decoded piece by piece) plain doubling keeps the total
		// copying linear.
		if n >= 1<<20 {
			target = 8 * n
			if target >= end-end/8 {
				target = end // close enough: one last growth to exactly the end
			}
		}
		target = min(target, end)
	}
	var nb []byte
	if !r.tainted && cap(r.spare) >= target {
		nb = r.spare[:n]
	} else {
		nb = make([]byte, n, max(target, cap(r.mem)))
	}
	copy(nb, p.buf)
	r.spare = nil
	if cap(r.mem) <= maxSpare {
		r.spare = r.mem[:0]
	}
	r.tainted = true
	r.off += int64(r.r)
	r.r = 0
	r.mem = nb
	p.buf = nb
}
