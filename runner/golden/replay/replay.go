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
	// Limits bound the commands clients may send (see defaultLimits, which
	// zero fields mean); a command over them gets a protocol error reply
	// and its connection is closed.
	Limits resp.Limits
}

// entry is one recorded command and its reply.
type entry struct {
	proto  int
	caseID int    // index of the (file, case, protocol) in load order
	conn   string // the case's connection that sent it
	// seq is its position among the commands its connection sent in the
	// case: 0 for the command that opened the connection.
	seq int
	// first is set on the command that opened the case (no key of the case
	// existed yet).
	first    bool
	prefix   string
	volatile bool // the recording marked its reply volatile
	reply    *golden.Blob
	pushes   []golden.Blob
	where    string // file:line of the reply in the golden
	command  []byte // normalised, possibly a head only
}

// pos is one recorded connection of one case.
type pos struct {
	caseID int
	conn   string
}

// Server answers clients with the recorded bytes of a golden directory.
type Server struct {
	dir   *golden.Dir
	opt   Options
	index map[int]map[string][]*entry // proto → command key → entries in recording order
	fold  map[int]map[string][]*entry // proto → case-folded args → entries (to name rewrites)

	mu       sync.Mutex
	findings []string
	dropped  int                     // findings over maxFindings, not kept
	large    [][]byte                // recent large arguments, to rebuild large replies
	bound    map[string]map[int]bool // key prefix → the cases the last connection using it was placed in
	recorded map[int]map[string]int  // proto → recorded key prefix → its case
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
	if opt.Limits.MaxBlobLen <= 0 {
		opt.Limits.MaxBlobLen = defaultLimits.MaxBlobLen
	}
	if opt.Limits.MaxAggregateLen <= 0 {
		opt.Limits.MaxAggregateLen = defaultLimits.MaxAggregateLen
	}
	s := &Server{dir: d, opt: opt, index: map[int]map[string][]*entry{2: {}, 3: {}}, fold: map[int]map[string][]*entry{2: {}, 3: {}},
		bound: map[string]map[int]bool{}, recorded: map[int]map[string]int{2: {}, 3: {}}}
	caseID := 0
	for _, f := range d.Sorted() {
		for _, c := range f.Cases {
			caseID++
			pending := map[string][]*entry{}
			seq := map[string]int{} // connection → commands it sent so far
			opened := 0             // commands the case sent so far
			if c.Prefix != "" && (c.Proto == 2 || c.Proto == 3) {
				s.recorded[c.Proto][c.Prefix] = caseID
			}
			for _, st := range c.Steps {
				where := fmt.Sprintf("%s%s:%d", f.Base(), golden.Ext, st.Line)
				switch st.Action {
				case "send", "raw":
					if st.Sent == nil || (st.Action == "raw" && (len(st.Sent.Data) == 0 || st.Sent.Data[0] != '*')) {
						continue // inline and malformed raw bytes are not client commands
					}
					e := &entry{proto: c.Proto, caseID: caseID, conn: st.Conn, seq: seq[st.Conn], prefix: c.Prefix,
						volatile: st.Volatile, command: st.Sent.Data, where: where, first: opened == 0}
					seq[st.Conn]++
					opened++
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
					q[0].volatile = q[0].volatile || st.Volatile
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

// connState is what the server remembers of a client connection.
type connState struct {
	proto int
	used  map[*entry]bool
	// cur is the case the connection is in (its case context), 0 for none.
	cur int
	// at holds, for each recorded connection whose commands this one has
	// followed so far, the position of its next command; nil before any
	// command matched (or after a new key prefix).
	at     map[pos]int
	prefix string // the key prefix the connection used last
}

// Findings returns what clients did that the recording does not cover
// (commands never recorded, rewritten commands), in order: the first
// maxFindings, then one line that counts the others (every one is logged).
func (s *Server) Findings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.findings...)
	if s.dropped > 0 {
		out = append(out, fmt.Sprintf("and %d more findings (logged, not kept)", s.dropped))
	}
	return out
}

// maxFindings bounds the findings a Server keeps, so that a client that
// sends unknown commands without end does not grow its memory.
const maxFindings = 10000

func (s *Server) finding(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	s.mu.Lock()
	if len(s.findings) < maxFindings {
		s.findings = append(s.findings, msg)
	} else {
		s.dropped++
	}
	s.mu.Unlock()
	s.logf("finding: %s", msg)
}

func (s *Server) logf(format string, a ...any) {
	if s.opt.Logf != nil {
		s.opt.Logf(format, a...)
	}
}

// Serve answers clients on ln until Close. Every connection is read
// through a guard that checks each command header against Options.Limits
// before redcon sees it (see guardConn).
func (s *Server) Serve(ln net.Listener) error {
	ln = guardListener{Listener: ln, lim: s.opt.Limits, logf: s.opt.Logf}
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
	if prefix != "" && prefix != st.prefix {
		if st.prefix != "" {
			// Another key prefix is another case: what the connection did
			// before says nothing about it.
			st.cur, st.at = 0, nil
		}
		st.prefix = prefix
	}
	es := s.index[proto][key]
	if e := s.pick(st, es, prefix != ""); e != nil {
		s.reply(c, st, e)
		return
	}
	// Commands a client library sends on its own (handshake, health
	// checks), answered as any server does outside a case's state.
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
	case (name == "PING" || name == "ECHO") && len(cmd.Args) == 2:
		s.write(c, fmt.Appendf(nil, "$%d\r\n%s\r\n", len(cmd.Args[1]), cmd.Args[1]))
		return
	case name == "CLIENT" && sub == "MAINT_NOTIFICATIONS":
		// go-redis v9 asks for these on connect and ignores a refusal.
		s.logf("%s: handshake command not recorded, refused: %s", c.RemoteAddr(), resp.Escape(cmd.Raw))
		s.write(c, []byte("-ERR respcheck serve: CLIENT "+sub+" was not recorded\r\n"))
		return
	}
	shown := resp.Escape(cmd.Raw[:min(len(cmd.Raw), 200)])
	if len(es) > 0 {
		// Recorded, but with different replies in different cases, and the
		// connection is in none of them.
		n := len(casesOf(es))
		s.finding("%s sent a command outside any recorded case it could belong to (RESP%d): %s; its %d recordings in %d cases reply differently (%s: %s; %s: %s); replay a case from its first command, or with its recorded key prefix",
			c.RemoteAddr(), proto, shown, len(es), n, es[0].where, replyShown(es[0]), es[len(es)-1].where, replyShown(es[len(es)-1]))
		s.write(c, fmt.Appendf(nil, "-ERR respcheck serve: %s was recorded with different replies in %d cases and this connection is in none of them\r\n", name, n))
		return
	}
	msg := fmt.Sprintf("%s sent a command the recording does not have (RESP%d): %s", c.RemoteAddr(), proto, shown)
	if fk, ok := foldKey(cmd.Raw); ok {
		if es := s.fold[proto][fk]; len(es) > 0 {
			msg += fmt.Sprintf("; a client rewrite? recorded at %s: %s", es[0].where, resp.Escape(es[0].command[:min(len(es[0].command), 200)]))
		}
	}
	s.finding("%s", msg)
	s.write(c, []byte("-ERR respcheck serve: no recording of "+shown+"\r\n"))
}

// replyShown is the start of an entry's recorded reply, escaped.
func replyShown(e *entry) string {
	if e.reply == nil {
		return "no reply"
	}
	return resp.Escape(e.reply.Data[:min(len(e.reply.Data), 60)])
}

// casesOf returns the cases entries belong to.
func casesOf(es []*entry) map[int]bool {
	m := map[int]bool{}
	for _, x := range es {
		m[x.caseID] = true
	}
	return m
}

// sameAnswer reports whether two recordings have the same reply and pushes.
func sameAnswer(a, b *entry) bool {
	if (a.reply == nil) != (b.reply == nil) || (a.reply != nil && !a.reply.Equal(*b.reply)) || len(a.pushes) != len(b.pushes) {
		return false
	}
	for i := range a.pushes {
		if !a.pushes[i].Equal(b.pushes[i]) {
			return false
		}
	}
	return true
}

// agree reports whether any of es is as good an answer as the others: they
// have the same reply and pushes, or all are volatile (their bytes differ
// from run to run anyway).
func agree(es []*entry) bool {
	volatile := true
	for _, x := range es {
		volatile = volatile && x.volatile
	}
	if volatile {
		return true
	}
	for _, x := range es[1:] {
		if !sameAnswer(x, es[0]) {
			return false
		}
	}
	return true
}

// pick chooses the recording that answers a command (es: the recordings of
// its bytes), or nil when none may (see the package doc, Matching), and
// moves the connection's case context. The candidates are the first found
// of:
//
//  1. the case recorded with the connection's key prefix (or the one case
//     connections sending it were placed in), or the case the connection is
//     in: its recording at the connection's position in it, else its first
//     unused one after it, else its first unused one;
//  2. the recorded connections the connection has followed so far, at their
//     next command;
//  3. for a connection that has followed none, when other connections use
//     its key prefix: the connections of the cases they are placed in, at
//     their first command;
//  4. the recorded connections it has followed, further on (it skipped a
//     command);
//  5. with a key prefix, the same case's last recording again (a retry: its
//     keys are as they were), or, for a connection that has followed none
//     (new, or with a new prefix), the recordings that opened their case (a
//     new prefix is a new case, whose keys do not exist yet); without, the
//     recordings that opened their connection if their replies agree (a
//     keyless reply is not repeated: the state it belongs to, MULTI or a
//     running script, may be over);
//  6. any recording if all their replies agree (a connection that followed
//     some keeps following them).
//
// Else none. The reply is the first candidate's; the connection then follows
// every candidate with that reply, and is in a case when they all are in one.
func (s *Server) pick(st *connState, es []*entry, keyed bool) *entry {
	if len(es) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	unused := func(ok func(*entry) bool) []*entry {
		var out []*entry
		for _, x := range es {
			if !st.used[x] && ok(x) {
				out = append(out, x)
			}
		}
		return out
	}
	inCase := func(id int) []*entry {
		var after, any *entry
		for _, x := range es {
			if id == 0 || x.caseID != id || st.used[x] {
				continue
			}
			n, ok := st.at[pos{x.caseID, x.conn}]
			if ok && x.seq == n {
				return []*entry{x}
			}
			if after == nil && (!ok || x.seq > n) {
				after = x
			}
			if any == nil {
				any = x
			}
		}
		switch {
		case after != nil:
			return []*entry{after}
		case any != nil:
			return []*entry{any}
		}
		return nil
	}
	repeat := func() []*entry {
		for i := len(es) - 1; i >= 0 && st.cur != 0; i-- {
			if es[i].caseID == st.cur {
				return es[i : i+1]
			}
		}
		return nil
	}
	at := func(ok func(x *entry, n int) bool) func(*entry) bool {
		return func(x *entry) bool { n, in := st.at[pos{x.caseID, x.conn}]; return in && ok(x, n) }
	}
	var bound map[int]bool
	if st.prefix != "" {
		bound = s.bound[st.prefix]
	}
	var tier []*entry
	if st.prefix != "" {
		if tier = inCase(s.recorded[es[0].proto][st.prefix]); len(tier) == 0 && len(bound) == 1 {
			for id := range bound {
				tier = inCase(id)
			}
		}
	}
	if len(tier) == 0 {
		tier = inCase(st.cur)
	}
	if len(tier) == 0 && st.at != nil {
		tier = unused(at(func(x *entry, n int) bool { return x.seq == n }))
	}
	if len(tier) == 0 && st.at == nil && len(bound) > 0 {
		tier = unused(func(x *entry) bool { return bound[x.caseID] && x.seq == 0 })
	}
	if len(tier) == 0 && st.at != nil {
		tier = unused(at(func(x *entry, n int) bool { return x.seq > n }))
	}
	if len(tier) == 0 {
		// A fresh start: a command that opened its connection (keyless), or
		// its case (with a new key prefix: no key of the case exists yet).
		opened := unused(func(x *entry) bool { return x.seq == 0 })
		if keyed {
			opened = unused(func(x *entry) bool { return x.first })
		}
		switch {
		case keyed && len(repeat()) > 0:
			tier = repeat()
		case keyed && st.at == nil && len(opened) > 0, !keyed && len(opened) > 0 && agree(opened):
			tier = opened
		case agree(es):
			if tier = unused(func(*entry) bool { return true }); len(tier) == 0 {
				tier = es[len(es)-1:]
			}
			if st.at != nil {
				// Any recording will do: what the connection followed
				// still holds.
				st.used[tier[0]] = true
				return tier[0]
			}
		default:
			return nil
		}
	}
	return s.follow(st, tier, keyed)
}

// follow answers with the first recording of tier and moves the
// connection's context: it follows every recording of tier with the same
// answer, and is in a case when they all are in one. s.mu is held.
func (s *Server) follow(st *connState, tier []*entry, keyed bool) *entry {
	e := tier[0]
	st.used[e] = true
	st.at = map[pos]int{}
	in := map[int]bool{}
	for _, x := range tier {
		p := pos{x.caseID, x.conn}
		if _, seen := st.at[p]; !seen && sameAnswer(x, e) {
			st.at[p] = x.seq + 1
			in[x.caseID] = true
		}
	}
	st.cur = 0
	if len(in) == 1 {
		st.cur = e.caseID
	}
	if keyed {
		if len(s.bound) >= maxBound {
			clear(s.bound)
		}
		s.bound[st.prefix] = in
	}
	return e
}

// maxBound caps the key prefixes Server.bound remembers.
const maxBound = 1 << 16

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

// maxLarge bounds the bytes of the large arguments a Server remembers.
const maxLarge = 256 << 20

// remember keeps a large argument, to rebuild a reply that echoes it: the
// last 16, in at most maxLarge bytes.
func (s *Server) remember(a []byte) {
	if len(a) > maxLarge {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	total := len(a)
	for _, x := range s.large {
		if bytes.Equal(x, a) {
			return
		}
		total += len(x)
	}
	s.large = append(s.large, append([]byte(nil), a...))
	for len(s.large) > 16 || total > maxLarge {
		total -= len(s.large[0])
		s.large[0] = nil
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
