// Package capture turns an application's recorded traffic (the
// exchanges of runner/clients' Recorder) into a case file that replays it
// on another server, each reply expected byte for byte as the upstream
// sent it (respcheck capture).
package capture

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// Options are what CaseFile writes around the steps.
type Options struct {
	// Suite is the file's suite name, Case the case's; Header is written
	// as comment lines first (where and when the traffic was captured).
	Suite, Case, Header string
	// Noise are the exchanges (by index) whose replies differed when the
	// file ran on a twin of the upstream's build (LearnNoise): their
	// steps expect any reply, as volatileCommands ones.
	Noise map[int]bool
	// Unordered are the exchanges (by index) whose commands' replies have
	// no order (Unordered): an array, set or map of scalars expects its
	// elements in any order.
	Unordered map[int]bool
	// Blocking are the exchanges (by index) whose commands may wait for
	// another connection (Blocking; BLPOP, XREAD, WAIT and the rest of
	// blockingWithoutFlags are whatever it says): overtaken by another
	// connection's command, such a command is sent async and read where
	// its reply came, any other is sent and read at once.
	Blocking map[int]bool
	// Before are the keys as they were before the capture touched them
	// (Recorder.KeysBefore): built again first, on connection setup.
	Before []clients.KeyBefore
}

// volatileCommands lists the commands (and COMMAND SUBCOMMAND pairs) whose reply
// changes from one run to the next on one server, for reasons of their
// own (the time, a connection's ID, random picks, the server's state):
// their steps expect any reply, the captured bytes kept in a comment.
var volatileCommands = map[string]bool{
	"TIME": true, "INFO": true, "LASTSAVE": true, "RANDOMKEY": true, "SRANDMEMBER": true,
	"SPOP": true, "HRANDFIELD": true, "ZRANDMEMBER": true, "PTTL": true, "EXPIRETIME": true,
	"PEXPIRETIME": true, "HELLO": true, "ROLE": true, "DBSIZE": true, "SLOWLOG": true,
	"LATENCY": true, "MEMORY": true, "DEBUG": true, "MONITOR": true, "PUBSUB": true,
	"CLIENT ID": true, "CLIENT INFO": true, "CLIENT LIST": true, "CLIENT GETNAME": false,
	"OBJECT IDLETIME": true, "OBJECT FREQ": true, "CLUSTER": true, "COMMAND": true,
	"XADD": true, "SCAN": true, "HSCAN": true, "SSCAN": true, "ZSCAN": true,
}

// volatile reports whether args is a command of volatileCommands.
func volatile(args [][]byte) bool {
	if len(args) == 0 {
		return false
	}
	name := strings.ToUpper(string(args[0]))
	if len(args) > 1 && volatileCommands[name+" "+strings.ToUpper(string(args[1]))] {
		return true
	}
	return volatileCommands[name]
}

// CaseFile writes exchanges (in the order they crossed the proxy) as one
// case of named connections c1, c2, ... in that order, run in RESP2 only
// (requires: {proto: 2}: the connections start as the proxy's did, the
// application's own HELLO a step). A command whose connection had
// another command in flight, or that may have waited for another
// connection's command that overtook it before its reply (Blocking), is
// sent async and read where its reply came (a 2 ms sleep after it when
// another connection sends next, settleAsync); every other one waits for
// its reply, expected byte for byte (a
// (un)subscribe's several confirmations as replies:). Out-of-band frames
// are push steps at their place. Keys are written as the application sent
// them: the runner moves them into the case's namespace (literal keys),
// so the file also runs on a shared server. Passwords (runner.SecretArgs)
// are not written: AUTH is dropped (respcheck's own connection
// authenticates) and HELLO's AUTH user pass removed. A command with no
// reply (the capture ended first) is written as a comment.
func CaseFile(exchanges []clients.Exchange, o Options) []byte {
	b, _ := caseFile(exchanges, o)
	return b
}

// caseFile is CaseFile, and the exchange (by index) whose reply each line
// of the file expects, by line number (from 1).
func caseFile(exchanges []clients.Exchange, o Options) ([]byte, map[int]int) {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(o.Header, "\n"), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	fmt.Fprintf(&b, "suite: %s\ncases:\n  - name: %s\n    requires: {proto: 2}\n    continue_on_failure: true\n    steps:\n", cases.QuoteBytes([]byte(o.Suite)), cases.QuoteBytes([]byte(o.Case)))
	writeBefore(&b, o.Before, exchanges)
	events := timeline(exchanges)
	w := &writer{b: &b, sends: indexSends(events), inFlight: map[int]int{}, async: map[*clients.Exchange]bool{},
		index: map[*clients.Exchange]int{}, noise: o.Noise, unordered: o.Unordered, blocking: o.Blocking, expectAt: map[int]int{},
		queued: map[int][]*clients.Exchange{}, exec: map[*clients.Exchange][]*clients.Exchange{}}
	for i := range exchanges {
		w.index[&exchanges[i]] = i
		if t := exchanges[i].SentTime; !t.IsZero() && (w.start.IsZero() || t.Before(w.start)) {
			w.start = t
		}
	}
	for _, ev := range events {
		w.write(ev)
	}
	if w.steps == 0 {
		b.WriteString("      - sleep: 1ms # nothing was captured\n")
	}
	return b.Bytes(), w.expectAt
}

// writeBefore writes the steps that build the keys of before again, on
// connection setup, each expecting the reply the command gets on a server
// where the key does not exist yet; a key not rebuilt is a comment, and so
// is one whose command the server refused with NOPERM (the proxy read it
// as respcheck's user: the application's may not read it).
func writeBefore(b *bytes.Buffer, before []clients.KeyBefore, exchanges []clients.Exchange) {
	refused := map[uint64]bool{}
	for _, ex := range exchanges {
		if len(ex.Replies) > 0 && bytes.HasPrefix(ex.Replies[0], []byte("-NOPERM")) {
			refused[ex.SentAt] = true
		}
	}
	for _, kb := range before {
		if refused[kb.Seq] {
			fmt.Fprintf(b, "      # %s is not built again: the command that named it was refused NOPERM\n", resp.Escape(kb.Key))
			continue
		}
		if kb.Note != "" {
			fmt.Fprintf(b, "      # %s (%s) as it was is not built again: %s\n", resp.Escape(kb.Key), kb.Type, kb.Note)
		}
		for _, r := range kb.Rebuild {
			fmt.Fprintf(b, "      - conn: setup\n        send: %s\n        reply: %s\n", quotedList(r.Args), cases.QuoteBytes(r.Reply))
		}
	}
}

// quotedList is a command as a YAML flow list of quoted bytes.
func quotedList(args [][]byte) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = cases.QuoteBytes(a)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
