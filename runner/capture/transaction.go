package capture

import (
	"bytes"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
)

// track follows each connection's transaction as its commands are
// written: the commands a MULTI queued (their replies +QUEUED) are kept
// for the EXEC that runs them (w.exec).
func (w *writer) track(ex *clients.Exchange) {
	if len(ex.Args) == 0 || len(ex.Replies) != 1 {
		return
	}
	switch name := commandName(ex.Args); {
	case name == "MULTI":
		if bytes.Equal(ex.Replies[0], []byte("+OK\r\n")) {
			w.queued[ex.Conn] = []*clients.Exchange{}
		}
	case name == "EXEC":
		if q, ok := w.queued[ex.Conn]; ok {
			w.exec[ex] = q
		}
		delete(w.queued, ex.Conn)
	case name == "DISCARD":
		delete(w.queued, ex.Conn)
	case w.queued[ex.Conn] != nil && bytes.Equal(ex.Replies[0], []byte("+QUEUED\r\n")):
		w.queued[ex.Conn] = append(w.queued[ex.Conn], ex)
	}
}

// execValue is the typed value of an EXEC's reply when one of the
// commands it ran has a reply in no order (a queued SMEMBERS: redis-py's
// default pipeline is a transaction) or one that changes from run to run
// (a queued TIME or XADD), with what the comment after it says: the
// other replies are expected exactly as they came, those in any order or
// any reply. "" where no queued command is such, or the reply cannot be
// written so (bytes are expected).
func (w *writer) execValue(ex *clients.Exchange) (value, note string) {
	q := w.exec[ex]
	rules := make([]cases.ElementRule, len(q))
	var named []string
	for i, qe := range q {
		switch {
		case w.unordered[w.index[qe]]:
			rules[i] = cases.InAnyOrder
			named = append(named, commandName(qe.Args)+" in any order")
		case volatile(qe.Args):
			rules[i] = cases.AnyValue
			named = append(named, commandName(qe.Args)+" any reply")
		}
	}
	if len(named) == 0 {
		return "", ""
	}
	v, ok := cases.ArrayValue(ex.Replies[0], func(i int) cases.ElementRule {
		if i < len(rules) {
			return rules[i]
		}
		return cases.Exact
	}, w.element)
	if !ok {
		return "", ""
	}
	return v, "the queued commands' replies, " + strings.Join(named, ", ")
}
