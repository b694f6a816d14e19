package capture

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// What a timeline event is.
const (
	sendEvent = iota
	replyEvent
	pushEvent
)

// event is one frame of the capture in the order it crossed the proxy: a
// command sent, the (last) reply to one, or an out-of-band frame.
type event struct {
	seq  uint64
	kind int
	ex   *clients.Exchange
	push []byte
}

// timeline orders every command, reply and out-of-band frame of
// exchanges by the proxy's sequence numbers.
func timeline(exchanges []clients.Exchange) []event {
	var out []event
	for i := range exchanges {
		ex := &exchanges[i]
		if ex.Args != nil {
			out = append(out, event{seq: ex.SentAt, kind: sendEvent, ex: ex})
			if len(ex.Replies) > 0 {
				out = append(out, event{seq: ex.RepliedAt, kind: replyEvent, ex: ex})
			}
		}
		for j, p := range ex.Pushes {
			out = append(out, event{seq: ex.PushedAt[j], kind: pushEvent, ex: ex, push: p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// sends indexes the commands of a timeline by sequence number, with
// their exchanges, to tell which other connections' commands were sent
// between a command and its reply (overtakers) and which came next.
type sends struct {
	all []uint64
	exs []*clients.Exchange // all's
}

func indexSends(events []event) sends {
	var s sends
	for _, e := range events { // in order: the slices are sorted
		if e.kind == sendEvent {
			s.all = append(s.all, e.seq)
			s.exs = append(s.exs, e.ex)
		}
	}
	return s
}

// settleAsync is the pause after an async send that another connection's
// command follows: sent back to back from two connections, the second
// command often ran first (a BLPOP that found its element at once, then
// another connection's LPUSH: the replay ran the LPUSH first in 8 of 10
// runs of 20 such rounds; found by a review, 2026-12-07). The server
// takes a command in microseconds; a longer pause adds up: 20 ms after
// each of a job queue's async BLPOP ... 0.3 made later BLPOPs time out on
// replay, which failed 4 of 5 times (none with 2 ms, and none of 8
// replays of the 20 rounds beside a CI run).
const settleAsync = 2 * time.Millisecond

// otherNext reports whether the next command sent after ex's is another
// connection's.
func (s sends) otherNext(ex *clients.Exchange) bool {
	i := sort.Search(len(s.all), func(i int) bool { return s.all[i] > ex.SentAt })
	return i < len(s.all) && s.exs[i].Conn != ex.Conn
}

// span returns the indexes [i, j) of the sequence numbers of seqs
// strictly between lo and hi.
func span(seqs []uint64, lo, hi uint64) (int, int) {
	i := sort.Search(len(seqs), func(i int) bool { return seqs[i] > lo })
	j := sort.Search(len(seqs), func(i int) bool { return seqs[i] >= hi })
	return i, max(i, j)
}

// overtakers returns the commands another connection sent between ex's
// command and its reply (the server may have run them first).
func (s sends) overtakers(ex *clients.Exchange) []*clients.Exchange {
	i, j := span(s.all, ex.SentAt, ex.RepliedAt)
	var out []*clients.Exchange
	for _, o := range s.exs[i:j] {
		if o.Conn != ex.Conn {
			out = append(out, o)
		}
	}
	return out
}

// releasing are the commands by which one connection ends another's wait
// for a reply that no blocking flag announces: a client pause, a busy
// script or function, a CLIENT UNBLOCK of any command.
var releasing = map[string]bool{
	"CLIENT UNPAUSE": true, "CLIENT UNBLOCK": true, "SCRIPT KILL": true, "FUNCTION KILL": true,
}

// sentAsync reports whether ex's command is sent without waiting for its
// reply, read later where the reply came: its connection has a command
// in flight already, or another connection's command overtook it and its
// reply may have waited for that one (a BLPOP for an LPUSH). An overtaken
// command that cannot have waited is sent and read at once, so the replay
// runs it before the commands that overtook it, as the server did: sent
// without waiting, it raced them (an LPUSH replayed after another
// connection's EXEC that had read the list, found at random on one build).
func (w *writer) sentAsync(ex *clients.Exchange) bool {
	if w.inFlight[ex.Conn] > 0 {
		return true
	}
	o := w.sends.overtakers(ex)
	return len(o) > 0 && (w.mayWait(ex, o) || w.paused(ex))
}

// notePause follows the clients pause a command may start (CLIENT PAUSE
// ms) or end (CLIENT UNPAUSE).
func (w *writer) notePause(ex *clients.Exchange) {
	if len(ex.Args) < 2 || commandName(ex.Args) != "CLIENT" {
		return
	}
	switch strings.ToUpper(string(ex.Args[1])) {
	case "PAUSE":
		w.pausedUntil = time.Time{}.Add(time.Duration(1<<63 - 1)) // when unknown: until an UNPAUSE
		if ms, err := strconv.ParseInt(string(ex.Args[min(2, len(ex.Args)-1)]), 10, 64); err == nil && !ex.SentTime.IsZero() {
			w.pausedUntil = ex.SentTime.Add(time.Duration(ms) * time.Millisecond)
		}
	case "UNPAUSE":
		w.pausedUntil = time.Time{}
	}
}

// paused reports whether ex was sent while a clients pause may have held
// it: its reply may have waited for the pause's end, which no command
// marks when the pause times out (a SET held by CLIENT PAUSE 1500 WRITE
// that another connection's GET overtook: read at once, the replay ran
// the SET first; found by a review, 2026-12-07).
func (w *writer) paused(ex *clients.Exchange) bool {
	if w.pausedUntil.IsZero() {
		return false
	}
	return ex.SentTime.IsZero() || ex.SentTime.Before(w.pausedUntil)
}

// mayWait reports whether ex's reply may have waited for one of
// overtakers: its command is blocking (Options.Blocking, or
// blockingWithoutFlags), or one of them is releasing.
func (w *writer) mayWait(ex *clients.Exchange, overtakers []*clients.Exchange) bool {
	if w.blocking[w.index[ex]] || blockingWithoutFlags[commandName(ex.Args)] {
		return true
	}
	for _, o := range overtakers {
		if len(o.Args) > 1 && releasing[commandName(o.Args)+" "+strings.ToUpper(string(o.Args[1]))] {
			return true
		}
	}
	return false
}

// defaultStepTimeout is respcheck run's step deadline (--timeout).
const defaultStepTimeout = 5 * time.Second

// pauseMin and pauseMax bound the pauses CaseFile keeps between commands
// as sleep steps: a shorter gap is the application's own speed, a longer
// one is cut (a TTL the application waited out is seconds, not hours).
const (
	pauseMin = 50 * time.Millisecond
	pauseMax = 5 * time.Second
)

// writer writes the steps of a timeline.
type writer struct {
	b        *bytes.Buffer
	sends    sends
	inFlight map[int]int // async sends not yet read, by connection
	async    map[*clients.Exchange]bool
	last     time.Time
	start    time.Time // the first command's SentTime
	steps    int       // written so far
	// index is each exchange's index; noise those whose replies expect
	// any reply (Options.Noise), unordered those expected in any order
	// (Options.Unordered), blocking those that may wait for another
	// connection (Options.Blocking); expectAt the exchange whose reply each
	// line expects, by line number.
	index     map[*clients.Exchange]int
	noise     map[int]bool
	unordered map[int]bool
	blocking  map[int]bool
	expectAt  map[int]int
	// queued are the commands of each connection's open transaction
	// (after MULTI), exec those each EXEC ran (track).
	queued map[int][]*clients.Exchange
	exec   map[*clients.Exchange][]*clients.Exchange
	// pausedUntil is when the last CLIENT PAUSE ends (notePause), zero
	// when none holds.
	pausedUntil time.Time
	// lines is the number of lines of b up to its byte counted.
	lines, counted int
	// caps names the values later commands may use (see keep), by value.
	caps map[string]string
}

func (w *writer) write(e event) {
	conn := fmt.Sprintf("c%d", e.ex.Conn)
	before := w.b.Len()
	defer func() {
		if bytes.Contains(w.b.Bytes()[before:], []byte("      - ")) {
			w.steps++ // a step, not only a comment
		}
	}()
	switch e.kind {
	case sendEvent:
		w.pause(e.ex.SentTime)
		w.track(e.ex)
		w.notePause(e.ex)
		args, note := shown(e.ex.Args)
		if note != "" {
			fmt.Fprintf(w.b, "      # %s\n", note)
		}
		if args == nil {
			return
		}
		if len(e.ex.Replies) == 0 {
			fmt.Fprintf(w.b, "      # not replayed, no reply was captured: %s\n", resp.EscapeCommand(e.ex.Args))
			return
		}
		fmt.Fprintf(w.b, "      - conn: %s\n        send: %s\n", conn, w.sendList(args))
		if w.sentAsync(e.ex) {
			w.inFlight[e.ex.Conn]++
			w.async[e.ex] = true
			w.b.WriteString("        async: true\n")
			if w.sends.otherNext(e.ex) {
				fmt.Fprintf(w.b, "      - sleep: %s # the server takes the async command before the next connection's\n", settleAsync)
			}
			return
		}
		w.expect(e.ex, "        ")
		w.waited(e.ex)
	case replyEvent:
		if !w.async[e.ex] {
			return // written with its send
		}
		w.inFlight[e.ex.Conn]--
		fmt.Fprintf(w.b, "      - conn: %s\n        read: true\n", conn)
		w.expect(e.ex, "        ")
		w.waited(e.ex)
	case pushEvent:
		fmt.Fprintf(w.b, "      - conn: %s\n        push: true\n        reply: %s\n", conn, w.template(e.push))
	}
}

// pause writes a sleep step for the gap since the last command, when it
// is at least pauseMin (at most pauseMax).
func (w *writer) pause(at time.Time) {
	if !w.last.IsZero() && !at.IsZero() {
		if gap := at.Sub(w.last); gap >= pauseMin {
			fmt.Fprintf(w.b, "      - sleep: %s\n", min(gap, pauseMax).Round(time.Millisecond))
		}
	}
	if at.After(w.last) {
		// Frames are timed as read, numbered as recorded: a command read
		// earlier can be recorded after another connection's (a
		// pipeline's tail behind a key lookup), and its time must not
		// count that gap twice.
		w.last = at
	}
}

// waited moves the time pauses are measured from to ex's reply, which
// the replay waits for: the gap after a BLPOP ... 7 that timed out was
// its own wait, and a sleep of 5 s after it doubled the replay's.
func (w *writer) waited(ex *clients.Exchange) {
	if ex.RepliedTime.After(w.last) {
		w.last = ex.RepliedTime
	}
}

// expect writes the expectation of ex's reply: its bytes, its frames for
// a (un)subscribe, any reply for a volatileCommands command (the bytes in a
// comment), its elements in any order for an Unordered one.
func (w *writer) expect(ex *clients.Exchange, indent string) {
	w.lines += bytes.Count(w.b.Bytes()[w.counted:], []byte("\n"))
	w.counted = w.b.Len()
	w.expectAt[w.lines+1] = w.index[ex]
	typed, ttl := "", w.ttl(ex)
	note := "in any order (nondeterministic_output_order)"
	if len(ex.Replies) == 1 && w.unordered[w.index[ex]] {
		typed, _ = cases.UnorderedValue(ex.Replies[0], w.element)
	} else if len(ex.Replies) == 1 && w.exec[ex] != nil {
		typed, note = w.execValue(ex)
	}
	scan := w.wholeScan(ex)
	switch {
	case w.noise[w.index[ex]]:
		fmt.Fprintf(w.b, "%sany: true # differed on a twin of the upstream's build; captured %s\n", indent, short(bytes.Join(ex.Replies, nil)))
	case scan != "":
		fmt.Fprintf(w.b, "%svalue: %s # every element at once, in any order\n", indent, scan)
	case volatile(ex.Args):
		fmt.Fprintf(w.b, "%sany: true # volatile; captured %s\n", indent, short(bytes.Join(ex.Replies, nil)))
		w.keep(ex, indent)
	case typed != "":
		fmt.Fprintf(w.b, "%svalue: %s # %s\n", indent, typed, note)
	case ttl != "":
		fmt.Fprintf(w.b, "%svalue: %s # a TTL counts down: within the capture's time so far\n", indent, ttl)
	case len(ex.Replies) == 1:
		fmt.Fprintf(w.b, "%sreply: %s\n", indent, w.template(ex.Replies[0]))
	default:
		var parts []string
		for _, r := range ex.Replies {
			if v := unsubscribedAny(ex.Args, r); v != "" {
				parts = append(parts, "{value: "+v+"}")
				continue
			}
			parts = append(parts, "{reply: "+w.template(r)+"}")
		}
		fmt.Fprintf(w.b, "%sreplies: [%s]\n", indent, strings.Join(parts, ", "))
	}
	if d := blockingWait(ex.Args); d+time.Second > defaultStepTimeout {
		// The replay's own deadline is the runner's (5 s): a BLPOP ... 7
		// that timed out would end the replay as a lost server.
		fmt.Fprintf(w.b, "%stimeout: %s # the command's own wait and 2 s\n", indent, (d + 2*time.Second).Round(time.Millisecond))
	}
}

// ttl is the expectation of a TTL command's positive reply: the seconds
// left, within the time from the capture's start to the command plus 2 s
// (a replay runs its pauses shorter, at most pauseMax, and its keys found
// before were read earlier: the same key answers :3599 instead of :3600
// when the replay reaches it 100 ms later, found by a fresh user); ""
// for any other reply, which stays exact (-1 no TTL, -2 no key).
func (w *writer) ttl(ex *clients.Exchange) string {
	if len(ex.Replies) != 1 {
		return ""
	}
	return w.ttlOf(ex.Args, ex.Replies[0], ex.SentTime)
}

// ttlOf is ttl of a command args, its reply and when it was sent (a TTL
// queued in a transaction: the EXEC's reply's element, the EXEC's time).
func (w *writer) ttlOf(args [][]byte, reply []byte, sent time.Time) string {
	if len(args) != 2 || !strings.EqualFold(string(args[0]), "TTL") {
		return ""
	}
	_, v, err := resp.Parse(reply)
	if err != nil || v.Kind != resp.Integer || v.Int <= 0 {
		return ""
	}
	within := 2
	if !w.start.IsZero() && sent.After(w.start) {
		within += int(sent.Sub(w.start).Seconds())
	}
	return fmt.Sprintf(`{double: "%d", within: %d}`, v.Int, within)
}

// carried are the commands whose reply names something the server
// made, that the application sends back later (an XADD * ID in XRANGE
// or XDEL, a CLIENT ID in CLIENT KILL ID or UNBLOCK): keep carries their
// replies. A random pick (SRANDMEMBER, HRANDFIELD) is not carried: the
// replay's own pick would make every later reply depend on it.
var carried = map[string]bool{"XADD": true, "CLIENT ID": true}

// minCarried is the shortest XADD reply keep carries: a shorter value
// would be found among unrelated arguments. A CLIENT ID is carried at any
// length, into CLIENT commands only.
const minCarried = 6

// keep captures the reply of ex when its command is one of carried: a
// later command that sends it (or a stream range's exclusive "(ID"), and
// a later reply or push that holds it as a blob string, use what the
// replay's server answered instead ({cap:vN}).
func (w *writer) keep(ex *clients.Exchange, indent string) {
	name := strings.ToUpper(string(ex.Args[0]))
	if len(ex.Args) > 1 && !carried[name] {
		name += " " + strings.ToUpper(string(ex.Args[1]))
	}
	if !carried[name] || len(ex.Replies) != 1 {
		return
	}
	_, v, err := resp.Parse(ex.Replies[0])
	if err != nil || len(v.Str) == 0 || name == "XADD" && len(v.Str) < minCarried {
		return
	}
	switch v.Kind {
	case resp.BlobString, resp.Integer:
	default:
		return
	}
	if w.caps == nil {
		w.caps = map[string]string{}
	}
	if _, ok := w.caps[string(v.Str)]; ok {
		return
	}
	cn := fmt.Sprintf("v%d", len(w.caps)+1)
	if name == "CLIENT ID" {
		cn = "id" + cn[1:]
	}
	w.caps[string(v.Str)] = cn
	fmt.Fprintf(w.b, "%scapture: %s\n", indent, cn)
}

// sendList is a command as a YAML flow list of quoted templates, an
// argument that is a carried value (keep) as its capture.
func (w *writer) sendList(args [][]byte) string {
	client := len(args) > 0 && strings.EqualFold(string(args[0]), "CLIENT")
	parts := make([]string, len(args))
	for i, a := range args {
		name, ok := w.caps[string(a)]
		excl := false
		if !ok && len(a) > 1 && a[0] == '(' {
			name, ok = w.caps[string(a[1:])]
			excl = ok && strings.HasPrefix(name, "v")
			ok = excl
		}
		// A client ID is carried into CLIENT commands only: its digits
		// are found everywhere else.
		if ok && i > 0 && (client || !strings.HasPrefix(name, "id")) {
			prefix := ""
			if excl {
				prefix = "("
			}
			parts[i] = `"` + prefix + `{cap:` + name + `}"`
			continue
		}
		parts[i] = cases.QuoteBytes(a)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// element is a string of a reply written in any order as a quoted
// template: a carried value (keep) as its capture, as template writes it
// inside a reply.
func (w *writer) element(b []byte) string {
	if name, ok := w.caps[string(b)]; ok && !strings.HasPrefix(name, "id") {
		return `"{cap:` + name + `}"`
	}
	return cases.QuoteBytes(b)
}

// template is reply r as a quoted template: each blob string that holds
// a carried value (keep) as its capture, its length computed.
func (w *writer) template(r []byte) string {
	q := cases.QuoteBytes(r)
	for _, val := range slices.Sorted(maps.Keys(w.caps)) {
		name := w.caps[val]
		if strings.HasPrefix(name, "id") {
			continue // an integer, never a blob string of a reply
		}
		blob := fmt.Appendf(nil, "$%d\r\n%s\r\n", len(val), val)
		if !bytes.Contains(r, blob) {
			continue
		}
		// The value's quoted form, inside the quoted reply.
		inner := cases.QuoteBytes(blob)
		q = strings.ReplaceAll(q, inner[1:len(inner)-1], `${len:{cap:`+name+`}}\r\n{cap:`+name+`}\r\n`)
	}
	return q
}

// shown is the command as the case file sends it: AUTH dropped (nil, and
// a note), HELLO without its AUTH user pass, other secrets
// (runner.SecretArgs) as asterisks.
func shown(args [][]byte) ([][]byte, string) {
	if len(args) == 0 {
		return nil, ""
	}
	switch name := strings.ToUpper(string(args[0])); {
	case name == "AUTH":
		return nil, "AUTH not written: respcheck's own connection authenticates"
	case name == "HELLO":
		for i := 1; i+2 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "AUTH") {
				return append(append([][]byte(nil), args[:i]...), args[i+3:]...), "HELLO's AUTH user password not written"
			}
		}
	}
	idx := runner.SecretArgs(args)
	if len(idx) == 0 {
		return args, ""
	}
	out := append([][]byte(nil), args...)
	for _, i := range idx {
		out[i] = bytes.Repeat([]byte("*"), len(args[i]))
	}
	return out, "a secret argument written as asterisks"
}

// short is b escaped, its first 60 bytes when longer.
func short(b []byte) string {
	if len(b) > 60 {
		return resp.Escape(b[:60]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return resp.Escape(b)
}
