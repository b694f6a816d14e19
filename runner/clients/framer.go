package clients

import (
	"errors"
	"io"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// maxProxyAggregate is the proxy's default limit on the element count of
// an aggregate, in both directions (the multibulk limit of Redis before
// 7.0): a declared count allocates nothing, but one of 2,000,000,000 would
// leave the peer waiting for elements that never come.
const maxProxyAggregate = 1 << 20

// proxyLimits are the limits the proxy frames with: the upstream's (those
// the runner reads replies with; zero fields mean resp.DefaultLimits), with
// an aggregate limit of maxProxyAggregate unless the upstream sets one.
func proxyLimits(upstream resp.Limits) resp.Limits {
	l := upstream
	if l.MaxBlobLen <= 0 {
		l.MaxBlobLen = resp.DefaultLimits.MaxBlobLen
	}
	if l.MaxAggregateLen <= 0 {
		l.MaxAggregateLen = maxProxyAggregate
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = resp.DefaultLimits.MaxDepth
	}
	return l
}

// pieceKind is what a framer found next in its stream.
type pieceKind uint8

const (
	pieceFrame   pieceKind = iota // a complete RESP frame
	pieceBad                      // bytes that are not RESP: forwarded raw, and all that follows
	pieceRaw                      // bytes after a pieceBad, as they came
	pieceTooLong                  // a frame over the limits: the connection ends
)

// piece is one unit of a proxied stream.
type piece struct {
	kind  pieceKind
	frame resp.Value // pieceFrame: valid until the next call to next; Raw is its bytes
	bytes []byte     // pieceBad, pieceRaw, pieceTooLong: the bytes read and not framed
	// typ is the type byte of the value over the limits (pieceTooLong).
	typ byte
	// err is the reader's error for a frame over the limits (pieceTooLong).
	err error
	// at is when the frame's last bytes were read (pieceFrame; UnixNano).
	at int64
}

// framer splits a proxied byte stream into frames with a resp.Reader,
// which buffers only the bytes that arrive (a declared length is never
// allocated) and applies the limits as each header is read. The bytes it
// has read past the last frame stay in the Reader's buffer (Pending), to
// be handed on when they turn out not to be RESP.
type framer struct {
	src   io.Reader
	r     *resp.Reader
	raw   bool // after bytes that are not RESP: the rest as it comes
	chunk []byte
	// flush, if set, is called before each read of src: what was
	// written on for the frames so far goes out before waiting for more.
	flush func() error
	// at is when the last read of src returned (time.Time.UnixNano): the
	// time every frame it completed crossed.
	at int64
}

// newFramer frames src with limits lim.
func newFramer(src io.Reader, lim resp.Limits) *framer {
	fr := &framer{src: src}
	fr.r = resp.NewReader(readFunc(fr.read))
	fr.r.SetLimits(lim)
	return fr
}

// readFunc is an io.Reader made of a function.
type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// read is what the Reader reads from: src, every byte kept.
func (fr *framer) read(p []byte) (int, error) {
	if fr.flush != nil {
		if err := fr.flush(); err != nil {
			return 0, err
		}
	}
	n, err := fr.src.Read(p)
	fr.at = time.Now().UnixNano()
	return n, err
}

// next returns the next piece of the stream, or the stream's end (io.EOF,
// or the source's error); bytes of an incomplete frame at the end are
// dropped, as they cannot be forwarded whole.
func (fr *framer) next() (piece, error) {
	if fr.raw {
		if fr.chunk == nil {
			fr.chunk = make([]byte, 32<<10)
		}
		if fr.flush != nil {
			if err := fr.flush(); err != nil {
				return piece{}, err
			}
		}
		n, err := fr.src.Read(fr.chunk)
		fr.at = time.Now().UnixNano()
		if n > 0 {
			return piece{kind: pieceRaw, bytes: fr.chunk[:n]}, nil
		}
		return piece{}, err
	}
	v, err := fr.r.Read()
	var se *resp.SyntaxError
	switch {
	case err == nil:
		return piece{kind: pieceFrame, frame: v, at: fr.at}, nil
	case !errors.As(err, &se) || errors.Is(se.Err, io.ErrUnexpectedEOF):
		if errors.As(err, &se) {
			err = io.ErrUnexpectedEOF
		}
		return piece{}, err
	}
	// The Reader keeps the bytes of a frame that fails (Pending), from
	// its first byte: what is forwarded raw from here on.
	unread := fr.r.Pending()
	pc := piece{kind: pieceBad, bytes: unread}
	if resp.OverLimit(err) {
		// A valid frame too long or too deep for the limits: not RESP's
		// fault, and nothing after it can be framed.
		pc.kind, pc.err = pieceTooLong, err
		if i := se.Offset - fr.r.Offset(); i >= 0 && i < int64(len(unread)) {
			pc.typ = unread[i]
		}
	}
	fr.raw = true
	return pc, nil
}

// protocolError is the error reply Redis sends a client whose command has
// a header over its limits, for the type byte of that header.
func protocolError(typ byte) []byte {
	switch typ {
	case '$', '!', '=':
		return []byte("-ERR Protocol error: invalid bulk length\r\n")
	case '*', '%', '~', '>', '|':
		return []byte("-ERR Protocol error: invalid multibulk length\r\n")
	}
	return []byte("-ERR Protocol error: too big inline request\r\n")
}
