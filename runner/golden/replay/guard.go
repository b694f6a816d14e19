package replay

import (
	"errors"
	"net"
	"strconv"

	"github.com/respcheck/respcheck/resp"
)

// defaultLimits bound what a client may send the replay server: bulk
// arguments up to resp.DefaultLimits.MaxBlobLen (512 MiB, Redis's default
// proto-max-bulk-len) and commands of up to 1,048,576 arguments (the
// multibulk limit of Redis before 7.0). MaxDepth is unused: a command is
// one array of bulk strings.
var defaultLimits = resp.Limits{MaxBlobLen: resp.DefaultLimits.MaxBlobLen, MaxAggregateLen: 1 << 20}

// maxCommand is the largest command, in bytes, the replay server accepts
// (Redis's default client-query-buffer-limit, 1 GiB).
const maxCommand = 1 << 30

// maxInline is the longest inline command, and the longest header line, a
// client may send (Redis's PROTO_INLINE_MAX_SIZE, 64 KiB).
const maxInline = 64 << 10

// guardChunk is how much the guard reads from the socket at a time, and
// how much of a command it holds back before passing it on in pieces.
const guardChunk = 32 << 10

// errGuard is the error a guarded connection's Read returns after a
// protocol error, which redcon then ends the connection on.
var errGuard = errors.New("replay: protocol error, connection closed")

// guardListener wraps the accepted connections in guardConns.
type guardListener struct {
	net.Listener
	lim  resp.Limits
	logf func(format string, args ...any)
}

// Accept returns the next connection, guarded.
func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, scan: commandScanner{lim: l.lim}, logf: l.logf}, nil
}

// guardConn is a client connection as redcon reads it: every header is
// checked as it streams by (a declared length is never allocated, one over
// the limits gets the error Redis sends, "-ERR Protocol error: invalid bulk
// length", and the connection is closed), and reads end at command
// boundaries. redcon grows its buffer, and never compacts it, while a
// command is incomplete at its end, so a client that pipelines without
// pause would otherwise grow it without bound; a command is held back until
// it is complete, or passed on in pieces once over guardChunk.
type guardConn struct {
	net.Conn
	scan commandScanner
	logf func(format string, args ...any)
	buf  []byte // read from the socket, not yet returned
	done int    // buf[:done] are complete, checked commands
	seen int    // buf[:seen] are checked (seen >= done)
	rerr error  // the socket's read error, returned once buf is empty
	bad  string // the protocol error found, sent once the commands before it are read
}

// Read returns checked bytes: complete commands if there are any, else the
// checked start of a large command, else it reads from the socket.
func (g *guardConn) Read(p []byte) (int, error) {
	for {
		switch {
		case len(p) == 0:
			return 0, nil
		case g.done > 0:
			return g.take(p, g.done), nil
		case g.seen > guardChunk, g.seen > 0 && (g.rerr != nil || g.bad != ""):
			return g.take(p, g.seen), nil
		case g.bad != "":
			return 0, g.refuse()
		case g.rerr != nil:
			if len(g.buf) > 0 { // bytes after a protocol error: not passed on
				g.buf = g.buf[:0]
			}
			return 0, g.rerr
		}
		g.fill()
	}
}

// take returns up to n bytes of buf in p and drops them from buf.
func (g *guardConn) take(p []byte, n int) int {
	k := copy(p, g.buf[:n])
	g.buf = g.buf[:copy(g.buf, g.buf[k:])]
	g.done = max(g.done-k, 0)
	g.seen -= k
	return k
}

// fill reads once from the socket and checks what arrived.
func (g *guardConn) fill() {
	if cap(g.buf)-len(g.buf) < guardChunk {
		nb := make([]byte, len(g.buf), len(g.buf)+guardChunk)
		copy(nb, g.buf)
		g.buf = nb
	}
	n, err := g.Conn.Read(g.buf[len(g.buf) : len(g.buf)+guardChunk])
	g.buf = g.buf[:len(g.buf)+n]
	if err != nil {
		g.rerr = err
	}
	for g.seen < len(g.buf) && g.bad == "" {
		k, end, bad := g.scan.feed(g.buf[g.seen:])
		g.seen += k
		if end {
			g.done = g.seen
		}
		g.bad = bad
	}
	if g.bad != "" {
		g.seen = g.done // the bad command is not passed on
	}
}

// refuse answers the protocol error and ends the connection's reading.
func (g *guardConn) refuse() error {
	if g.logf != nil {
		g.logf("%s: protocol error: %s; connection closed", g.RemoteAddr(), g.bad)
	}
	g.Conn.Write([]byte("-ERR Protocol error: " + g.bad + "\r\n"))
	g.buf, g.seen, g.done = nil, 0, 0
	g.rerr = errGuard
	g.bad = ""
	return errGuard
}

// scanState is where a commandScanner is in a command.
type scanState uint8

const (
	scanStart   scanState = iota // before a command's first byte
	scanInline                   // in an inline command, up to its \n
	scanCount                    // in a *N header
	scanBulk                     // before a $N header
	scanLen                      // in a $N header
	scanPayload                  // in a bulk's payload and its \r\n
)

// commandScanner checks a client's byte stream as redcon frames it: a
// command is a *N header and N bulk strings ($N header, payload, \r\n), or
// an inline command (any line that does not start with '*'). It accepts
// what redcon accepts, within its limits.
type commandScanner struct {
	lim   resp.Limits
	state scanState
	num   headerNum // the header being read
	args  int64     // bulk strings left in the command
	left  int64     // payload bytes left in the bulk, its \r\n included
	line  int       // bytes of the current inline command or header
	size  int64     // bytes of the current command
}

// feed checks the start of b. It returns how many bytes it consumed, end
// when they finish a command, and the protocol error, if any, that makes
// the command unacceptable.
func (s *commandScanner) feed(b []byte) (n int, end bool, bad string) {
	for n < len(b) {
		if s.state == scanPayload && s.left > 2 {
			k := int(min(s.left-2, int64(len(b)-n)))
			n, s.left, s.size = n+k, s.left-int64(k), s.size+int64(k)
		} else {
			n, s.size = n+1, s.size+1
			end, bad = s.step(b[n-1])
		}
		if s.size > maxCommand {
			bad = "command larger than the " + strconv.Itoa(maxCommand) + "-byte query buffer limit"
		}
		if end || bad != "" {
			return n, end, bad
		}
	}
	return n, false, ""
}

// step checks one byte of a command (in a payload: of its \r\n).
func (s *commandScanner) step(c byte) (end bool, bad string) {
	switch s.state {
	case scanStart:
		s.line = 1
		if c == '*' {
			s.state, s.num = scanCount, headerNum{}
			return false, ""
		}
		s.state = scanInline
		return s.inline(c)
	case scanInline:
		s.line++
		return s.inline(c)
	case scanCount, scanLen:
		return s.header(c)
	case scanBulk:
		if c != '$' {
			return false, "expected '$', got " + strconv.QuoteRune(rune(c))
		}
		s.state, s.num, s.line = scanLen, headerNum{}, 1
		return false, ""
	}
	// scanPayload, at its \r\n
	if (s.left == 2 && c != '\r') || (s.left == 1 && c != '\n') {
		return false, "invalid bulk length"
	}
	if s.left--; s.left > 0 {
		return false, ""
	}
	if s.args--; s.args > 0 {
		s.state = scanBulk
		return false, ""
	}
	return s.finish(), ""
}

// inline checks a byte of an inline command.
func (s *commandScanner) inline(c byte) (end bool, bad string) {
	if c == '\n' {
		return s.finish(), ""
	}
	if s.line > maxInline {
		return false, "too big inline request"
	}
	return false, ""
}

// header checks a byte of a *N or $N header, and the number when its line
// ends.
func (s *commandScanner) header(c byte) (end bool, bad string) {
	count := s.state == scanCount
	what := "invalid bulk length"
	if count {
		what = "invalid multibulk length"
	}
	if s.line++; s.line > maxInline {
		if count {
			return false, "too big mbulk count string"
		}
		return false, "too big bulk count string"
	}
	limit := s.lim.MaxBlobLen
	if count {
		limit = s.lim.MaxAggregateLen
	}
	v, done, ok := s.num.add(c)
	switch {
	case !ok, !s.num.neg && s.num.v > limit: // more digits would not help
		return false, what
	case !done:
		return false, ""
	case count && v <= 0, v < 0:
		return false, what
	case count:
		s.state, s.args = scanBulk, v
		return false, ""
	}
	s.state, s.left = scanPayload, v+2
	return false, ""
}

// finish ends a command.
func (s *commandScanner) finish() bool {
	s.state, s.size = scanStart, 0
	return true
}

// headerNum parses the number of a header line as redcon does
// (strconv.Atoi of the text before \r\n: a sign, then decimal digits),
// byte by byte.
type headerNum struct {
	digits, neg, signed, cr bool
	v                       int64
}

// add takes the next byte of the header (after its type byte). It returns
// the number when the byte ends the line, and false if the line cannot be
// a number.
func (h *headerNum) add(c byte) (v int64, done, ok bool) {
	switch {
	case h.cr:
		if c != '\n' || !h.digits {
			return 0, false, false
		}
		if h.neg {
			return -h.v, true, true
		}
		return h.v, true, true
	case c == '\r':
		h.cr = true
	case c >= '0' && c <= '9':
		if h.v > (1<<62)/10 {
			return 0, false, false // over any limit
		}
		h.digits, h.v = true, h.v*10+int64(c-'0')
	case (c == '-' || c == '+') && !h.digits && !h.signed:
		h.signed, h.neg = true, c == '-'
	default:
		return 0, false, false
	}
	return 0, false, true
}
