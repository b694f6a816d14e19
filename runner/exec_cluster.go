package runner

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// maxRedirects bounds the MOVED and ASK replies followed for one step, as
// cluster clients bound theirs (go-redis MaxRedirects defaults to 3,
// redis-py's RedisCluster retries 16 times; a slot that moves back and
// forth must not keep a case forever). From the third hop on, each waits
// redirectBackoff times its number first, as clients back off: just after
// a slot migration, two nodes can send a command back and forth for some
// milliseconds until their configuration epochs settle (Valkey 9.1.2, a
// slot migrated right after another migration between the same nodes
// ended: 5 MOVED in a row, alternating).
const (
	maxRedirects    = 10
	redirectBackoff = 10 * time.Millisecond
)

// Redirect is a MOVED or ASK reply that the runner followed for a step, as
// a cluster client would: the case's expectation was not that error, so
// the command was sent again to the node the reply names (after ASKING for
// ASK). A redirect is a finding about the topology (a slot that moved
// while the case ran, or a key outside the case's slot), shown in reports;
// it does not fail the case.
type Redirect struct {
	// Reply is the error text: "MOVED 3999 127.0.0.1:30002" or "ASK ...".
	Reply string `json:"reply"`
	// Node is the address the command went to next.
	Node string `json:"node"`
	// Refresh is set when the reply was a MOVED to a node the run's
	// topology did not know: the runner read the topology again
	// (target.Target.Refresh, once per such node) and says what it found,
	// or why it could not; the command is sent to Node either way.
	Refresh string `json:"refresh,omitempty"`
}

// redirect parses a MOVED or ASK error reply: its kind, slot and address.
func redirect(v resp.Value) (kind string, slot int, addr string, ok bool) {
	if v.Kind != resp.SimpleError {
		return "", 0, "", false
	}
	f := bytes.Fields(v.Str)
	if len(f) != 3 || string(f[0]) != "MOVED" && string(f[0]) != "ASK" {
		return "", 0, "", false
	}
	slot, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return "", 0, "", false
	}
	addr = string(f[2])
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		// Redis 7+ may announce ":port" when the node has no known
		// endpoint: the node the client already talks to.
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return string(f[0]), slot, addr, true
}

// followRedirects follows the MOVED and ASK replies to a send step on a
// cluster, unless the step expects that very reply: MOVED moves the case
// connection to the named node (a new connection there takes its name,
// the old one is closed), ASK sends ASKING and the command on a connection
// to the named node and keeps the case connection where it was. It
// returns the last reply and the connection it came from.
func (x *caseRun) followRedirects(ctx context.Context, c *conn, timeout time.Duration, st *cases.Step, exp *cases.Expect, v resp.Value, sr *StepResult) (resp.Value, *conn, error) {
	if x.t.Topology == nil || st.Action != cases.ActSend || x.sentBig {
		return v, c, nil
	}
	for hop := 0; ; hop++ {
		kind, _, addr, ok := redirect(v)
		if !ok || x.expects(exp, v) {
			return v, c, nil
		}
		if hop == maxRedirects {
			return v, c, fmt.Errorf("%d redirects in a row, the last %s", hop, resp.Escape(v.Raw))
		}
		if hop >= 2 {
			time.Sleep(time.Duration(hop) * redirectBackoff)
		}
		rd := Redirect{Reply: string(v.Str), Node: addr}
		if kind == "MOVED" {
			rd.Refresh = x.refreshFor(ctx, addr, c.node)
		}
		sr.Redirects = append(sr.Redirects, rd)
		var to *conn
		var err error
		if kind == "MOVED" {
			to, err = x.moveConn(ctx, c, addr)
		} else {
			to, err = x.askConn(ctx, addr, timeout)
		}
		if err != nil {
			return v, c, fmt.Errorf("following %s: %w", resp.Escape(v.Raw), err)
		}
		if kind == "MOVED" {
			c = to
		}
		if _, _, err := to.writeCommand(timeout, x.args); err != nil {
			return v, c, writeError(err)
		}
		before := len(to.pushes)
		if v, err = to.readReply(timeout, pushAccepter(exp, x.env)); err != nil {
			return v, c, fmt.Errorf("read after %s: %w", kind, err)
		}
		for _, p := range to.pushes[before:] {
			sr.Pushes = append(sr.Pushes, x.keep(p.Raw))
		}
		sr.Reply, sr.ReplySize = x.keep(v.Raw), len(v.Raw)
	}
}

// refreshFor reads the topology again, from the node at from that sent
// the MOVED reply, when addr, which it names, is not a node of the current
// topology, and returns what it found ("" when addr is known, or when the
// topology was read again for addr already).
func (x *caseRun) refreshFor(ctx context.Context, addr, from string) string {
	if _, known := x.t.Current().Node(addr); known {
		return ""
	}
	topo, did, err := x.t.Refresh(ctx, addr, from)
	switch {
	case !did:
		return ""
	case err != nil:
		return fmt.Sprintf("%s is not in the topology; reading it again from %s failed: %v", addr, from, err)
	}
	_, known := topo.Node(addr)
	return fmt.Sprintf("%s was not in the topology; read again from %s (%s): %d shards, %d nodes, %s known now: %t",
		addr, from, topo.Source, len(topo.Shards), len(topo.Nodes()), addr, known)
}

// expects reports whether v meets exp (a case asserting MOVED or ASK).
func (x *caseRun) expects(exp *cases.Expect, v resp.Value) bool {
	if exp == nil {
		return false
	}
	fail, err := compare(exp, v, x.env)
	return fail == nil && err == nil
}

// moveConn replaces case connection c by a new connection to addr under
// the same name.
func (x *caseRun) moveConn(ctx context.Context, c *conn, addr string) (*conn, error) {
	nc, err := dialAddr(ctx, x.t.NodeConfig(addr), c.name, x.proto)
	if err != nil {
		return nil, err
	}
	x.addConn(ctx, c.name, nc)
	c.close()
	return nc, nil
}

// askConn returns the case's connection to addr for ASK redirects (one
// per node, opened on first use), after sending ASKING on it: ASKING
// holds for the next command only.
func (x *caseRun) askConn(ctx context.Context, addr string, timeout time.Duration) (*conn, error) {
	name := "ask " + addr
	x.mu.Lock()
	ac := x.conns[name]
	x.mu.Unlock()
	if ac == nil {
		var err error
		if ac, err = dialAddr(ctx, x.t.NodeConfig(addr), name, x.proto); err != nil {
			return nil, err
		}
		x.addConn(ctx, name, ac)
		x.order = append(x.order, name)
	}
	v, err := ac.roundTrip(timeout, "ASKING")
	if err != nil {
		return nil, fmt.Errorf("ASKING: %w", err)
	}
	if v.Kind != resp.SimpleString {
		return nil, fmt.Errorf("ASKING: server replied %s", resp.Escape(v.Raw))
	}
	return ac, nil
}
