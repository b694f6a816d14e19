package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/redcon"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
)

// Options configure a replay server. The zero value replays faithfully.
type Options struct {
	// Proto, when 2 or 3, answers every command from that protocol's
	// recordings whatever HELLO the client sent; 0 follows the client: RESP2
	// until HELLO 3.
	Proto int
	// Split writes each reply in parts, cut at these byte offsets (offsets
	// outside the reply are ignored), as separate writes SplitDelay apart.
	Split []int
	// SplitDelay is the pause between the parts of a split reply; 0 means
	// 5ms, long enough for each part to reach the client on its own.
	SplitDelay time.Duration
	// Trickle, when positive, writes replies one byte at a time, this long
	// apart (it overrides Split).
	Trickle time.Duration
	// CloseAfter, when positive, writes only the first CloseAfter bytes of
	// any longer reply and then closes the connection.
	CloseAfter int
	// Logf, if set, receives one line per finding and per connection.
	Logf func(format string, args ...any)
}

// entry is one recorded command and its reply.
type entry struct {
	proto   int
	caseID  int // index of the (file, case, protocol) in load order
	prefix  string
	reply   *golden.Blob
	pushes  []golden.Blob
	where   string // file:line of the reply in the golden
	command []byte // normalised, possibly a head only
}

// Server answers clients with the recorded bytes of a golden directory.
type Server struct {
	dir   *golden.Dir
	opt   Options
	index map[int]map[string][]*entry // proto → command key → entries in recording order
	fold  map[int]map[string][]*entry // proto → case-folded args → entries (to name rewrites)

	mu       sync.Mutex
	findings []string
	large    [][]byte // recent large arguments, to rebuild large replies
	last     int      // caseID of the last entry matched on any connection
	rs       *redcon.Server
}

// New indexes the recordings of d.
func New(d *golden.Dir, opt Options) (*Server, error) {
	if opt.Proto != 0 && opt.Proto != 2 && opt.Proto != 3 {
		return nil, fmt.Errorf("replay: Proto %d: want 0, 2 or 3", opt.Proto)
	}
	if opt.SplitDelay <= 0 {
		opt.SplitDelay = 5 * time.Millisecond
	}
	s := &Server{dir: d, opt: opt, index: map[int]map[string][]*entry{2: {}, 3: {}}, fold: map[int]map[string][]*entry{2: {}, 3: {}}}
	caseID := 0
	for _, f := range d.Sorted() {
		for _, c := range f.Cases {
			caseID++
			pending := map[string][]*entry{}
			for _, st := range c.Steps {
				where := fmt.Sprintf("%s%s:%d", f.Base(), golden.Ext, st.Line)
				switch st.Action {
				case "send", "raw":
					if st.Sent == nil || (st.Action == "raw" && (len(st.Sent.Data) == 0 || st.Sent.Data[0] != '*')) {
						continue // inline and malformed raw bytes are not client commands
					}
					e := &entry{proto: c.Proto, caseID: caseID, prefix: c.Prefix, command: st.Sent.Data, where: where}
					if st.Async {
						pending[st.Conn] = append(pending[st.Conn], e)
					} else {
						e.reply, e.pushes = st.Reply, st.Pushes
					}
					s.add(blobKey(*st.Sent), e)
				case "read":
					q := pending[st.Conn]
					if len(q) == 0 {
						continue
					}
					q[0].reply, q[0].pushes, q[0].where = st.Reply, st.Pushes, where
					pending[st.Conn] = q[1:]
				}
			}
		}
	}
	return s, nil
}

func (s *Server) add(key string, e *entry) {
	s.index[e.proto][key] = append(s.index[e.proto][key], e)
	if fk, ok := foldKey(e.command); ok {
		s.fold[e.proto][fk] = append(s.fold[e.proto][fk], e)
	}
}

// blobKey is the lookup key of a recorded command: its normalised bytes, or
// for a large one its size and SHA-256.
func blobKey(b golden.Blob) string {
	if b.Full() {
		return string(b.Data)
	}
	return "sha256:" + strconv.Itoa(b.Size) + ":" + b.SHA256
}

var prefixRE = regexp.MustCompile(`rc:\{[0-9a-f]{8}\}:`)

// liveKey normalises a command from a client (any run id's key prefix
// becomes golden.Placeholder) and returns its key and the prefix it used.
func liveKey(raw []byte) (key, prefix string) {
	if m := prefixRE.Find(raw); m != nil {
		prefix = string(m)
		raw = prefixRE.ReplaceAll(raw, []byte(golden.Placeholder))
	}
	if len(raw) <= golden.InlineMax {
		return string(raw), prefix
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + strconv.Itoa(len(raw)) + ":" + hex.EncodeToString(sum[:]), prefix
}

// foldKey is the command's arguments, upper-cased and joined, for naming
// the recorded command a client seems to have rewritten.
func foldKey(raw []byte) (string, bool) {
	n, v, err := resp.Parse(raw)
	if err != nil || n != len(raw) || v.Kind != resp.Array || len(v.Elems) == 0 {
		return "", false
	}
	var parts []string
	for _, e := range v.Elems {
		parts = append(parts, strings.ToUpper(string(e.Str)))
	}
	return fmt.Sprint(len(parts), parts[0]), true
}

// connState is what the server remembers of a client.
type connState struct {
	proto  int
	used   map[*entry]bool
	cur    int // caseID of the last matched entry
	prefix string
}

// Findings returns what clients did that the recording does not cover
// (commands never recorded, rewritten commands), in order.
func (s *Server) Findings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.findings...)
}

func (s *Server) finding(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	s.mu.Lock()
	s.findings = append(s.findings, msg)
	s.mu.Unlock()
	s.logf("finding: %s", msg)
}

func (s *Server) logf(format string, a ...any) {
	if s.opt.Logf != nil {
		s.opt.Logf(format, a...)
	}
}

// Serve answers clients on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.rs = redcon.NewServer(ln.Addr().String(), s.handle,
		func(c redcon.Conn) bool {
			c.SetContext(&connState{proto: 2, used: map[*entry]bool{}})
			return true
		}, nil)
	rs := s.rs
	s.mu.Unlock()
	return rs.Serve(ln)
}

// Close stops listening and closes the clients' connections.
func (s *Server) Close() error {
	s.mu.Lock()
	rs := s.rs
	s.mu.Unlock()
	if rs == nil {
		return errors.New("replay: not serving")
	}
	return rs.Close()
}

func (s *Server) handle(c redcon.Conn, cmd redcon.Command) {
	st := c.Context().(*connState)
	proto := st.proto
	if s.opt.Proto != 0 {
		proto = s.opt.Proto
	}
	name := ""
	if len(cmd.Args) > 0 {
		name = strings.ToUpper(string(cmd.Args[0]))
	}
	if name == "HELLO" {
		s.hello(c, st, cmd)
		return
	}
	for _, a := range cmd.Args {
		if len(a) > golden.InlineMax {
			s.remember(a)
		}
	}
	key, prefix := liveKey(cmd.Raw)
	if prefix != "" {
		st.prefix = prefix
	}
	if prefix == "" {
		prefix = st.prefix
	}
	if e := s.pick(st, s.index[proto][key], prefix); e != nil {
		s.reply(c, st, e)
		return
	}
	// Handshake commands a client library sends on its own.
	sub := ""
	if len(cmd.Args) >= 2 {
		sub = strings.ToUpper(string(cmd.Args[1]))
	}
	switch {
	case name == "CLIENT" && (sub == "SETINFO" || sub == "SETNAME"),
		name == "SELECT" && sub == "0":
		s.write(c, []byte("+OK\r\n"))
		return
	case name == "PING" && len(cmd.Args) == 1:
		s.write(c, []byte("+PONG\r\n"))
		return
	case name == "CLIENT" && sub == "MAINT_NOTIFICATIONS":
		// go-redis v9 asks for these on connect and ignores a refusal.
		s.logf("%s: handshake command not recorded, refused: %s", c.RemoteAddr(), resp.Escape(cmd.Raw))
		s.write(c, []byte("-ERR respcheck serve: CLIENT "+sub+" was not recorded\r\n"))
		return
	}
	shown := resp.Escape(cmd.Raw[:min(len(cmd.Raw), 200)])
	msg := fmt.Sprintf("%s sent a command the recording does not have (RESP%d): %s", c.RemoteAddr(), proto, shown)
	if fk, ok := foldKey(cmd.Raw); ok {
		if es := s.fold[proto][fk]; len(es) > 0 {
			msg += fmt.Sprintf("; a client rewrite? recorded at %s: %s", es[0].where, resp.Escape(es[0].command[:min(len(es[0].command), 200)]))
		}
	}
	s.finding("%s", msg)
	s.write(c, []byte("-ERR respcheck serve: no recording of "+shown+"\r\n"))
}

// pick chooses the recorded entry to answer with: one of the case whose key
// prefix the client used last (a replay with the recording's run id), else
// the next unused one of the case the connection is in (or, for a
// connection that has matched nothing yet, of the case any connection
// matched last), else of the cases recorded after it, else of any case,
// else the last one again.
func (s *Server) pick(st *connState, es []*entry, prefix string) *entry {
	if len(es) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.cur == 0 {
		st.cur = s.last
	}
	var e *entry
	for _, try := range []func(*entry) bool{
		func(x *entry) bool { return prefix != "" && x.prefix == prefix },
		func(x *entry) bool { return x.caseID == st.cur },
		func(x *entry) bool { return x.caseID > st.cur },
		func(*entry) bool { return true },
	} {
		for _, x := range es {
			if !st.used[x] && try(x) {
				e = x
				break
			}
		}
		if e != nil {
			break
		}
	}
	if e == nil {
		e = es[len(es)-1]
	}
	st.used[e] = true
	st.cur, s.last = e.caseID, e.caseID
	return e
}

// hello answers HELLO [protover ...] with the recorded HELLO reply and
// switches the connection's protocol.
func (s *Server) hello(c redcon.Conn, st *connState, cmd redcon.Command) {
	p := st.proto
	if len(cmd.Args) >= 2 {
		n, err := strconv.Atoi(string(cmd.Args[1]))
		if err != nil || (n != 2 && n != 3) {
			s.write(c, []byte("-NOPROTO sorry, this protocol version is not supported.\r\n"))
			return
		}
		p = n
	}
	b := s.dir.Server.Hello2
	if p == 3 {
		b = s.dir.Server.Hello3
	}
	if b == nil {
		s.finding("%s sent HELLO %d; the recording has no reply to it", c.RemoteAddr(), p)
		s.write(c, []byte("-NOPROTO sorry, this protocol version is not supported.\r\n"))
		return
	}
	st.proto = p
	s.write(c, b)
}

func (s *Server) remember(a []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.large {
		if bytes.Equal(x, a) {
			return
		}
	}
	s.large = append(s.large, append([]byte(nil), a...))
	if len(s.large) > 16 {
		s.large = s.large[1:]
	}
}

// reply writes the recorded pushes and reply of e, with the placeholder
// replaced by the key prefix the client uses.
func (s *Server) reply(c redcon.Conn, st *connState, e *entry) {
	prefix := st.prefix
	if prefix == "" {
		prefix = e.prefix
	}
	var out []byte
	for _, p := range e.pushes {
		b, ok := s.bytesOf(p)
		if !ok {
			continue
		}
		out = append(out, b...)
	}
	if e.reply == nil {
		s.finding("%s: the recording at %s has no reply for this command", c.RemoteAddr(), e.where)
		s.write(c, []byte("-ERR respcheck serve: no recorded reply\r\n"))
		return
	}
	b, ok := s.bytesOf(*e.reply)
	if !ok {
		s.finding("%s: the reply at %s is stored as its length (%d) and SHA-256 only and is not an echo of a recent argument",
			c.RemoteAddr(), e.where, e.reply.Size)
		s.write(c, []byte(fmt.Sprintf("-ERR respcheck serve: the recording keeps only the length (%d) and SHA-256 of this reply\r\n", e.reply.Size)))
		return
	}
	out = append(out, b...)
	if prefix != "" {
		out = bytes.ReplaceAll(out, []byte(golden.Placeholder), []byte(prefix))
	}
	s.write(c, out)
}

// bytesOf returns a blob's bytes: all of them, or for a large blob string
// reply a rebuild from a recent large argument with the same SHA-256.
func (s *Server) bytesOf(b golden.Blob) ([]byte, bool) {
	if b.Full() {
		return b.Data, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.large {
		cand := []byte("$" + strconv.Itoa(len(a)) + "\r\n")
		cand = append(append(cand, a...), '\r', '\n')
		if len(cand) != b.Size {
			continue
		}
		sum := sha256.Sum256(cand)
		if hex.EncodeToString(sum[:]) == b.SHA256 {
			return cand, true
		}
	}
	return nil, false
}

// write sends b raw to the client's socket, bypassing redcon's buffered
// writer so that the fault modes' separate writes reach the socket as such.
func (s *Server) write(c redcon.Conn, b []byte) {
	nc := c.NetConn()
	cut := false
	if s.opt.CloseAfter > 0 && len(b) > s.opt.CloseAfter {
		b, cut = b[:s.opt.CloseAfter], true
	}
	switch {
	case s.opt.Trickle > 0:
		for i := range b {
			if i > 0 {
				time.Sleep(s.opt.Trickle)
			}
			if _, err := nc.Write(b[i : i+1]); err != nil {
				break
			}
		}
	case len(s.opt.Split) > 0:
		for i, part := range splitAt(b, s.opt.Split) {
			if i > 0 {
				time.Sleep(s.opt.SplitDelay)
			}
			if _, err := nc.Write(part); err != nil {
				break
			}
		}
	default:
		nc.Write(b)
	}
	if cut {
		s.logf("%s: closed the connection after %d bytes of a reply (--close-after)", c.RemoteAddr(), len(b))
		c.Close()
	}
}

// splitAt cuts b at the offsets that fall inside it.
func splitAt(b []byte, offsets []int) [][]byte {
	offs := append([]int(nil), offsets...)
	sort.Ints(offs)
	var parts [][]byte
	last := 0
	for _, o := range offs {
		if o > last && o < len(b) {
			parts = append(parts, b[last:o])
			last = o
		}
	}
	return append(parts, b[last:])
}
