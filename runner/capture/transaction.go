package capture

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
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
// default pipeline is a transaction), one that changes from run to run (a
// queued TIME or XADD) or one that counts down (a TTL), with what the
// comment after it says: the other replies are expected exactly as they
// came, those in any order, any reply or within the capture's time so far
// (as ttl). "" where no queued command is such, or the reply cannot be
// written so (bytes are expected).
func (w *writer) execValue(ex *clients.Exchange) (value, note string) {
	q := w.exec[ex]
	var named []string
	rule := func(i int, v resp.Value) (cases.ElementRule, string) {
		if i >= len(q) {
			return cases.Exact, ""
		}
		qe := q[i]
		switch {
		case w.unordered[w.index[qe]]:
			return cases.InAnyOrder, ""
		case volatile(qe.Args):
			return cases.AnyValue, ""
		}
		if t := w.ttlOf(qe.Args, v.Raw, ex.SentTime); t != "" {
			return cases.Given, t
		}
		return cases.Exact, ""
	}
	_, reply, err := resp.Parse(ex.Replies[0])
	if err != nil {
		return "", ""
	}
	for i, qe := range q {
		if i >= len(reply.Elems) {
			break
		}
		switch r, _ := rule(i, reply.Elems[i]); r {
		case cases.InAnyOrder:
			named = append(named, commandName(qe.Args)+" in any order")
		case cases.AnyValue:
			named = append(named, commandName(qe.Args)+" any reply")
		case cases.Given:
			named = append(named, commandName(qe.Args)+" counting down")
		}
	}
	if len(named) == 0 {
		return "", ""
	}
	v, ok := cases.ArrayValue(ex.Replies[0], rule, w.element)
	if !ok {
		return "", ""
	}
	return v, "the queued commands' replies, " + strings.Join(named, ", ")
}

// unsubscribedAny is the typed value of a confirmation reply of an
// UNSUBSCRIBE, PUNSUBSCRIBE or SUNSUBSCRIBE of every channel (no
// arguments): the server names them in the order of its hash table,
// which differs from one process to the next (a capture's replay failed
// 3 of 4 times), so the channel is any string, the kind and the count
// exact; "" for any other reply.
func unsubscribedAny(args [][]byte, reply []byte) string {
	if len(args) != 1 {
		return ""
	}
	switch commandName(args) {
	case "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE":
	default:
		return ""
	}
	_, v, err := resp.Parse(reply)
	if err != nil || v.Kind != resp.Array && v.Kind != resp.Push || len(v.Elems) != 3 ||
		v.Elems[0].Kind != resp.BlobString || v.Elems[1].Kind != resp.BlobString || v.Elems[2].Kind != resp.Integer {
		return ""
	}
	tag := "array"
	if v.Kind == resp.Push {
		tag = "push"
	}
	return fmt.Sprintf("{%s: [%s, {type: blob string}, {int: %d}]}", tag, cases.QuoteBytes(v.Elems[0].Str), v.Elems[2].Int)
}
