package runner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// guardClient refuses, on a shared target, the CLIENT forms that act on
// or read another client: CLIENT UNBLOCK of a client that is not one of
// the case's connections (an UNBLOCK ... ERROR fails another
// application's blocking call), CLIENT TRACKING ... REDIRECT to such a
// client (the invalidations of the case's keys would reach it), and
// CLIENT LIST without an ID filter or with IDs of such clients (the
// addresses, names and last commands of every connection). An ID that no
// connected client has is let through (the server answers its own
// error), except inside MULTI, where the command runs only at EXEC.
// Which client an ID is comes from CLIENT LIST ID asked of the node the
// command goes to (client IDs are each node's own on a cluster), on the
// case's side connection when that is the node, else on a connection of
// the guard's own; the reply is read by the guard and never recorded:
// the ID is the case's when the client's addr= is the local address of
// one of the case's connections to that node.
func (x *caseRun) guardClient(ctx context.Context, c *conn, args [][]byte) error {
	if len(args) < 2 {
		return nil
	}
	sub := strings.ToUpper(string(args[1]))
	var ids [][]byte
	switch sub {
	case "UNBLOCK":
		if len(args) > 2 {
			ids = args[2:3]
		}
	case "TRACKING":
		for i := 2; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "REDIRECT") {
				ids = append(ids, args[i+1])
			}
		}
	case "LIST":
		var ok bool
		if ids, ok = clientListIDs(args); !ok && !badClientType(args) {
			return &refusal{"sends CLIENT LIST without ID, which reads the address, name and last command of every client (CLIENT INFO, or CLIENT LIST ID of the case's own connections, reads the case's)"}
		}
	default:
		return nil
	}
	for _, id := range ids {
		if err := x.ownClient(ctx, c, sub, id); err != nil {
			return err
		}
	}
	return nil
}

// clientTypes are the client types CLIENT LIST TYPE accepts (Redis 8.6.3,
// Valkey 9.1.2; slave is master's old name for replica).
var clientTypes = []string{"normal", "master", "replica", "slave", "pubsub"}

// badClientType reports a CLIENT LIST ... TYPE whose type is none of
// clientTypes: the server answers "ERR Unknown client type" and lists
// nobody.
func badClientType(args [][]byte) bool {
	for i := 2; i+1 < len(args); i++ {
		if strings.EqualFold(string(args[i]), "TYPE") && !slices.ContainsFunc(clientTypes, func(t string) bool { return strings.EqualFold(t, string(args[i+1])) }) {
			return true
		}
	}
	return false
}

// clientListIDs returns the IDs a CLIENT LIST filters on, and false when
// it has no ID filter. The arguments are read as Valkey's filter parser
// reads them (Redis takes ID only right after LIST, where this reads it
// too): ID takes the decimal numbers after it, NOT-ID likewise, and
// every other word is a filter that takes one value, so an "ID" in a
// value's place (CLIENT LIST NOT-NAME ID: every client not named ID) is
// no ID filter.
func clientListIDs(args [][]byte) ([][]byte, bool) {
	var ids [][]byte
	found := false
	for i := 2; i < len(args); {
		word := strings.ToUpper(string(args[i]))
		i++
		switch word {
		case "ID", "NOT-ID":
			for i < len(args) && isDecimal(args[i]) {
				if word == "ID" {
					ids = append(ids, args[i])
				}
				i++
			}
			found = found || word == "ID"
		default:
			i++ // the filter's value
		}
	}
	return ids, found
}

// isDecimal reports whether b is an optionally signed run of decimal
// digits, the words a server's string2ll may read as a number.
func isDecimal(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("-"))
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ownClient refuses id unless no client of the node c is on (the owner
// of the case's slot for a nil c) has it or it is one of the case's
// connections.
func (x *caseRun) ownClient(ctx context.Context, c *conn, sub string, id []byte) error {
	if _, err := strconv.ParseUint(string(id), 10, 64); err != nil {
		return nil // not an ID: the server refuses it
	}
	if err := x.sideConn(ctx); err != nil {
		return fmt.Errorf("guard: opening a side connection: %w", err)
	}
	ask := x.keysConn
	if c != nil && c.node != x.keysConn.node {
		q, err := dialAddr(ctx, x.t.NodeConfig(c.node), "guard", 2)
		if err != nil {
			return fmt.Errorf("guard: opening a connection to %s: %w", c.node, err)
		}
		defer q.close()
		ask = q
	}
	v, err := ask.roundTrip(x.opts.StepTimeout, "CLIENT", "LIST", "ID", string(id))
	if err != nil {
		return fmt.Errorf("guard: CLIENT LIST ID %s: %w", id, err)
	}
	if v.Kind != resp.BlobString && v.Kind != resp.VerbatimString {
		return &refusal{fmt.Sprintf("sends CLIENT %s %s, and the guard cannot tell whose client that is (CLIENT LIST ID answered %s)", sub, id, resp.Escape(v.Raw))}
	}
	addr := clientField(string(v.Str), "addr")
	if addr == "" && c != nil && c.multi {
		return &refusal{fmt.Sprintf("sends CLIENT %s %s inside MULTI: no client has that ID now, but another client may have it by EXEC", sub, id)}
	}
	if addr == "" || x.ownAddr(ask.node, addr) {
		return nil
	}
	return &refusal{fmt.Sprintf("sends CLIENT %s %s, a client that is not one of the case's connections", sub, id)}
}

// clientField returns the value of name= in a CLIENT LIST line.
func clientField(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// ownAddr reports whether addr is the local address of one of the case's
// connections to node (its side connection included). Connections to
// other nodes do not count: a local port may be in use towards two
// nodes at once, by the case towards one and by another client towards
// the other.
func (x *caseRun) ownAddr(node, addr string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range x.conns {
		if c.node == node && c.nc.LocalAddr().String() == addr {
			return true
		}
	}
	return x.keysConn != nil && x.keysConn.node == node && x.keysConn.nc.LocalAddr().String() == addr
}
