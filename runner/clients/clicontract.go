package clients

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// The contract of a command-line client: its native value is the text it
// printed, and the text must be what its source prints for the bytes it
// received (resp.CLIOutput). The rules that differ between builds are
// cited per version: redis 7.0.15 (Debian bookworm's redis-tools source
// 5:7.0.15-1~deb12u10) and 8.6.3 (Debian experimental redis 5:8.6.3-1)
// src/redis-cli.c, valkey 9.1.2 (Debian sid valkey 9.1.2-1)
// src/valkey-cli.c; valkey-cli 8.0.1 is bookworm-backports' binary, whose
// source package this machine cannot fetch: its rules are those of the
// code it was forked from (redis 7.2) and were checked by running it.

// cliRules are the behaviours of one CLI build that the judge and the
// driver depend on.
type cliRules struct {
	// subscribeLoops: after (P|S)SUBSCRIBE the CLI reads messages until it
	// is killed and never reads another command.
	subscribeLoops bool
	// multiKeepsFormat: inside MULTI, the commands printed verbatim (INFO,
	// CLIENT LIST...) are printed in the normal format (their reply is
	// +QUEUED).
	multiKeepsFormat bool
}

func rulesOf(t *cliTool) cliRules {
	return cliRules{
		// redis 7.0.15 src/redis-cli.c cliSendCommand: "if
		// (config.pubsub_mode) { ... while (config.pubsub_mode) {
		// cliReadReply ..." (redis 7.2 made subscribed mode interactive:
		// 8.6.3 cliWaitForMessagesOrStdin; valkey forked from 7.2).
		subscribeLoops: t.family == "redis" && versionBefore(t.version, 7, 2),
		// valkey 9.1.2 src/valkey-cli.c cliSendCommand: "In a multi
		// block, commands will return status strings instead of
		// verbatim strings. if (config.in_multi) output_raw = 0;" (also
		// in valkey 8.1.1's, line 2364; not in redis 8.6.3; valkey-cli
		// 8.0.1 prints QUEUED without its newline, so it lacks it too).
		multiKeepsFormat: t.family == "valkey" && !versionBefore(t.version, 8, 1),
	}
}

// versionBefore reports whether version v (such as "7.0.15") is below
// major.minor.
func versionBefore(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return a < major || a == major && b < minor
}

// cliLocal says why the CLI's loop would not send args to the server as a
// command (it handles the line itself), or would never come back to read
// the next line; "" when it sends them. From repl() and cliSendCommand of
// every build above.
func cliLocal(t *cliTool, args [][]byte) string {
	if len(args) == 0 {
		return "an empty command line is skipped by the CLI"
	}
	name := strings.ToLower(string(args[0]))
	switch {
	case len(args) > 1 && repeatCount(args[0]):
		return fmt.Sprintf("a first argument %q that is a number is the CLI's repeat count (repl: strtol(argv[0]))", args[0])
	case name == "quit" || name == "exit":
		return "the CLI exits on " + name + " (repl)"
	case strings.HasPrefix(name, ":"):
		return "a line starting with ':' is a CLI preference (repl: cliSetPreferences)"
	case name == "help" || name == "?":
		return "the CLI prints its own help for " + name + " (issueCommandRepeat: cliOutputHelp)"
	case name == "restart" || name == "clear" && len(args) == 1 || name == "connect" && len(args) == 3:
		return "the CLI handles " + name + " itself (repl)"
	case name == "monitor":
		return "the CLI prints MONITOR's feed until it is killed (cliSendCommand: config.monitor_mode)"
	case name == "sync" || name == "psync":
		return "the CLI enters replica output mode on " + name + " (cliSendCommand)"
	case name == "script" && len(args) == 3 && strings.EqualFold(string(args[1]), "debug"):
		return "SCRIPT DEBUG turns the CLI into the Lua debugger (cliSendCommand: enable_ldb_on_eval)"
	case rulesOf(t).subscribeLoops && (name == "subscribe" || name == "psubscribe" || name == "ssubscribe"):
		return fmt.Sprintf("%s %s never reads another command after %s: it prints messages until killed (src/redis-cli.c cliSendCommand: while (config.pubsub_mode) cliReadReply)", t.name, t.version, strings.ToUpper(name))
	}
	return ""
}

// repeatCount reports whether strtol reads all of s (as repl does with the
// first argument: a repeat count when more arguments follow).
func repeatCount(s []byte) bool {
	s = bytes.TrimLeft(s, " \t\n\v\f\r")
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true // an empty string too: strtol stops at once, *endptr == '\0'
}

// verbatimCommand is cliSendCommand's output_raw: the commands whose reply
// the CLI prints with cliFormatReplyRaw alone, in either format (the same
// list in redis 7.0.15, 8.6.3 and valkey 9.1.2).
func verbatimCommand(args [][]byte) bool {
	name := strings.ToLower(string(args[0]))
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(string(args[1]))
	}
	n := len(args)
	switch name {
	case "info", "lolwut":
		return true
	case "debug":
		return n >= 2 && (sub == "htstats" || sub == "htstats-key" || sub == "client-eviction")
	case "memory":
		return n >= 2 && (sub == "malloc-stats" || sub == "doctor")
	case "cluster":
		return n == 2 && (sub == "nodes" || sub == "info")
	case "client":
		return n >= 2 && (sub == "list" || sub == "info")
	case "latency":
		return n == 3 && sub == "graph" || n == 2 && sub == "doctor"
	case "proxy":
		return n >= 2 && sub == "info"
	}
	return false
}

// cliStep is what the judge of a CLI step looks at.
type cliStep struct {
	args [][]byte
	// pushes arrived before the reply (out of band, or loose before the
	// command); after arrived after it, before the next command.
	pushes, frames, after []resp.Value
	// inMulti: the connection is inside MULTI (the CLI's config.in_multi).
	inMulti bool
	// prevArgs and prevFrames are the command before on the same
	// connection and its reply's frames: those the CLI did not wait for
	// are printed with this step's output.
	prevArgs   [][]byte
	prevFrames []resp.Value
}

// framesRead is how many frames of the reply to args the CLI reads before
// it takes the next command: one, except for the (un)subscribe family in
// builds since redis 7.2, which wait for one confirmation per channel
// given, or one without channels (redis 8.6.3 and valkey 9.1.2
// cliSendCommand: num_expected_pubsub_push = argc > 1 ? argc - 1 : 1;
// redis 7.0.15 reads one reply for every command). The server sends a
// confirmation per subscription to a bare UNSUBSCRIBE.
func (r cliRules) framesRead(args [][]byte) int {
	if len(args) == 0 {
		return 1
	}
	if _, _, ok := subscribeFamily(string(args[0])); ok && !r.subscribeLoops {
		return max(len(args)-1, 1)
	}
	return 1
}

// timingLine is what repl prints after a command that took 500 ms or
// more, in the standard format: printf("(%.2fs)\n", elapsed/1000).
var timingLine = regexp.MustCompile(`^\(\d+\.\d\ds\)\n`)

// judgeOutput judges the text a CLI printed for one step.
func (d *cliDriver) judgeOutput(st cliStep, n Native) (Verdict, []string) {
	if n.Kind == "exception" {
		return Crash, []string{"reply: " + n.String()}
	}
	got, _ := n.Bytes()
	mode := resp.CLIRaw
	if d.noRaw {
		mode = resp.CLIStandard
	}
	inMode := mode
	if verbatimCommand(st.args) && !(st.inMulti && rulesOf(d.tool).multiKeepsFormat) {
		inMode = resp.CLIVerbatim
	}
	var m outputMatch
	r := rulesOf(d.tool)
	if n := r.framesRead(st.prevArgs); len(st.prevFrames) > n {
		for _, v := range st.prevFrames[n:] {
			m.add(v, mode, true)
		}
	}
	for _, v := range st.pushes {
		m.add(v, inMode, true)
	}
	read := r.framesRead(st.args)
	for i, v := range st.frames {
		m.add(v, inMode, i >= read)
	}
	m.timing = mode == resp.CLIStandard
	for _, v := range st.after {
		m.add(v, mode, true)
	}
	if m.err != nil {
		return Mismatch, []string{fmt.Sprintf("reply: %v, yet it printed %s", m.err, resp.Escape(got))}
	}
	if m.matches(got) {
		return Match, nil
	}
	notes := []string{fmt.Sprintf("reply: printed %s, want %s", resp.Escape(got), resp.Escape([]byte(m.want())))}
	if len(st.pushes)+len(st.after) > 0 {
		notes = append(notes, fmt.Sprintf("(%d push or message frames around the reply may each be printed or not)", len(st.pushes)+len(st.after)))
	}
	return Mismatch, notes
}

// outputMatch is the text a step may print: parts in order, the optional
// ones printed or not (a push is printed when hiredis hands it to
// redis-cli, dropped when its push callback takes it), and after the
// reply's frames, in the standard format, repl's timing line.
type outputMatch struct {
	parts  []outputPart
	timing bool
	nreq   int // parts up to the reply's last frame
	err    error
}

type outputPart struct {
	text     string
	optional bool
}

func (m *outputMatch) add(v resp.Value, mode resp.CLIMode, optional bool) {
	b, err := v.CLIOutput(mode)
	var ue *resp.CLIUnprintableError
	if errors.As(err, &ue) {
		if !optional {
			m.err = err
		}
		return // a push the CLI would not survive: not expected printed
	}
	m.parts = append(m.parts, outputPart{string(b), optional})
	if !optional {
		m.nreq = len(m.parts)
	}
}

// want is the text with every required part and no optional one.
func (m *outputMatch) want() string {
	var b strings.Builder
	for _, p := range m.parts {
		if !p.optional {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// matches reports whether got is the parts in order, each optional one
// present or not, with the timing line allowed after the required ones.
func (m *outputMatch) matches(got []byte) bool {
	at := map[int]bool{0: true} // offsets of got reachable so far
	for i, p := range m.parts {
		if i == m.nreq {
			at = m.timed(got, at)
		}
		next := map[int]bool{}
		for off := range at {
			if p.optional {
				next[off] = true
			}
			if bytes.HasPrefix(got[off:], []byte(p.text)) {
				next[off+len(p.text)] = true
			}
		}
		at = next
	}
	if len(m.parts) <= m.nreq {
		at = m.timed(got, at)
	}
	return at[len(got)]
}

// timed adds, to each reachable offset, the offset after a timing line
// there.
func (m *outputMatch) timed(got []byte, at map[int]bool) map[int]bool {
	if !m.timing {
		return at
	}
	out := map[int]bool{}
	for off := range at {
		out[off] = true
		if loc := timingLine.FindIndex(got[off:]); loc != nil {
			out[off+loc[1]] = true
		}
	}
	return out
}

// cliCarriesToken reports whether a CLI printed the canary's token: ECHO's
// reply, or PING's ["pong", token] in RESP2 subscribed mode, in either
// format.
func cliCarriesToken(out, tok string) bool {
	switch out {
	case tok + "\n", `"` + tok + `"` + "\n", "pong\n" + tok + "\n", "1) \"pong\"\n2) \"" + tok + "\"\n":
		return true
	}
	return false
}

// cliContract is the contract of one CLI configuration.
func cliContract(d *cliDriver) *contract {
	format := "raw format (stdout is not a terminal): cliFormatReplyRaw, then \"\\n\""
	if d.noRaw {
		format = "standard format (--no-raw): cliFormatReplyTTY, and \"(N.NNs)\" after a command of 500 ms or more (repl)"
	}
	r := rulesOf(d.tool)
	notes := []string{
		"the value is the text printed; it must be what " + d.tool.name + " " + d.tool.version + "'s source prints for the bytes received: " + format,
		"INFO, CLIENT LIST/INFO, MEMORY DOCTOR... are printed verbatim (cliFormatReplyRaw without the delimiter: cliSendCommand's output_raw)",
		"a push or message frame may be printed or not (hiredis drops pushes through its push callback; redis-cli removes it for (un)subscribe and does not set it back when pushes are not shown, as on a pipe)",
		"big numbers and attributes cannot be printed (no case in cliFormatReplyTTY/Raw: \"Unknown reply type\", exit 1; hiredis refuses '|'): a CLI that exits on them is a crash",
	}
	if r.subscribeLoops {
		notes = append(notes, "(P|S)SUBSCRIBE is not sent: this build never reads another command after it (cliSendCommand: while (config.pubsub_mode) cliReadReply)")
	}
	if r.multiKeepsFormat {
		notes = append(notes, "inside MULTI, commands printed verbatim elsewhere are printed in the normal format (src/valkey-cli.c cliSendCommand: if (config.in_multi) output_raw = 0)")
	}
	c := newContract(d.Library(), notes, nil)
	c.output = d.judgeOutput
	return c
}

// trailing returns the frames that came after x's reply (its last frame)
// and before the next command on the same proxied connection: a CLI in
// subscribed mode prints those it has read while it waits for its next
// line (cliWaitForMessagesOrStdin), and the proxy pairs them with the next
// command.
func (p *proxy) trailing(x exchange) []resp.Value {
	t := x.tap
	if t == nil || x.reply == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	events := t.rec.events()
	pairs, _ := t.pairsLocked()
	pr := pairs[x.cmd]
	if pr == nil || pr.reply < 0 {
		return nil
	}
	last := pr.reply
	if len(pr.more) > 0 {
		last = pr.more[len(pr.more)-1]
	}
	var out []resp.Value
	for _, e := range events[last+1:] {
		if e.Dir == ToServer || e.Bad != nil {
			break
		}
		if !e.Injected {
			out = append(out, e.Value)
		}
	}
	return out
}

// previous returns the command before x's on the same proxied connection
// and its reply's frames.
func (p *proxy) previous(x exchange) ([][]byte, []resp.Value) {
	t := x.tap
	if t == nil {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	events := t.rec.events()
	prev := -1
	for i := x.cmd - 1; i >= 0; i-- {
		if events[i].Dir == ToServer {
			prev = i
			break
		}
	}
	if prev < 0 {
		return nil, nil
	}
	pairs, _ := t.pairsLocked()
	pr := pairs[prev]
	if pr == nil || pr.reply < 0 {
		return nil, nil
	}
	var args [][]byte
	for _, e := range events[prev].Value.Elems {
		args = append(args, e.Str)
	}
	frames := []resp.Value{events[pr.reply].Value}
	for _, i := range pr.more {
		frames = append(frames, events[i].Value)
	}
	return args, frames
}
