package golden

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Cluster normalisation: what differs between two runs on clusters of one
// build and shape is replaced, in recorded and live bytes alike, by
// placeholders named after each node's place relative to the case's slot
// (see nodeLabels). The replacements, and nothing else:
//
//   - a node id of the topology (its 40 hex digits, exactly as announced)
//     becomes "{node-id:LABEL}" padded with "_" to 40 bytes, anywhere in a
//     string; other 40-hex-digit strings (script SHA1s) are kept;
//   - "HOST:PORT" of a node, where HOST:PORT is not followed by a digit,
//     becomes "{addr:LABEL}" (the plain port) or "{tls-addr:LABEL}" (its
//     TLS port), anywhere in a string; a "@DIGITS" right after it (the
//     cluster bus port of CLUSTER NODES) becomes "@{bus-port}";
//   - the case's slot (target.KeySlot of its key prefix, which depends on
//     the run id) becomes "{slot}" as the slot of a MOVED or ASK error
//     ("MOVED {slot} {addr:owner}"), in CLUSTER NODES' migration markers
//     ("[{slot}->-" and "[{slot}-<-"), as the integer reply to CLUSTER
//     KEYSLOT, and as a whole argument of a sent command;
//   - a node's port or TLS port becomes "{port:LABEL}" or
//     "{tls-port:LABEL}" as an integer of a CLUSTER SHARDS or CLUSTER
//     SLOTS reply and as a whole argument of a sent command (MIGRATE's
//     port), when no other node has the same port (nodes of several hosts
//     on one port keep it).
//
// A reply is rewritten leaf by leaf: each RESP string or integer that
// changes is written again with its length header recomputed (an integer
// placeholder is written ":{slot}\r\n", which is no longer RESP), and every
// other byte is copied as it is, so a difference anywhere else stays a
// difference. Bytes that are not one RESP frame (raw steps, a reply cut at
// 1 MiB) and case reasons get the string replacements on their bytes as
// they are. Hosts alone (an ip field, MIGRATE's host) and slot ranges are
// kept. A golden file records which normalisation it holds on its
// "topology" line.

// nodeLabels names every node of topo by its place relative to the shard
// that serves slot: that shard's primary "owner" and its replicas
// "owner.r0", "owner.r1", ... in the order the topology lists them (the
// node a case's node: replica goes to is owner.r0); the other shards'
// primaries "other1", "other2", ... in shard order (node: other is other1)
// and their replicas "other1.r0", .... A slot no shard serves numbers every
// shard as other.
func nodeLabels(topo *target.Topology, slot int) map[string]target.Node {
	owner, _ := topo.Owner(slot)
	out := map[string]target.Node{}
	n := 0
	for _, s := range topo.Shards {
		name := "owner"
		if s.Primary.ID != owner.Primary.ID || s.Primary.Addr != owner.Primary.Addr {
			n++
			name = "other" + strconv.Itoa(n)
		}
		out[name] = s.Primary
		for i, r := range s.Replicas {
			out[name+".r"+strconv.Itoa(i)] = r
		}
	}
	return out
}

// clusterNorm holds the replacements of one case on one topology.
type clusterNorm struct {
	ids   []repl // node id → placeholder (40 bytes)
	addrs []repl // HOST:PORT → {addr:L}, HOST:TLSPORT → {tls-addr:L}
	ports map[int64]string
	slot  int64
}

type repl struct{ from, to []byte }

// newClusterNorm prepares the replacements for a case whose key prefix is
// prefix, on topo; nil for a standalone server.
func newClusterNorm(topo *target.Topology, prefix string) *clusterNorm {
	if topo == nil || prefix == "" {
		return nil
	}
	slot := target.KeySlot(prefix)
	n := &clusterNorm{ports: map[int64]string{}, slot: int64(slot)}
	seen := map[int64]int{}
	labels := nodeLabels(topo, slot)
	for label, nd := range labels {
		if len(nd.ID) == 40 {
			ph := "{node-id:" + label + "}"
			n.ids = append(n.ids, repl{[]byte(nd.ID), []byte(ph + strings.Repeat("_", max(0, 40-len(ph))))})
		}
		host := nd.Addr[:max(0, strings.LastIndexByte(nd.Addr, ':'))]
		for _, p := range []struct {
			port int
			kind string
		}{{nd.Port, ""}, {nd.TLSPort, "tls-"}} {
			if p.port == 0 {
				continue
			}
			hp := host + ":" + strconv.Itoa(p.port)
			n.addrs = append(n.addrs, repl{[]byte(hp), []byte("{" + p.kind + "addr:" + label + "}")})
			seen[int64(p.port)]++
			n.ports[int64(p.port)] = "{" + p.kind + "port:" + label + "}"
		}
		if nd.Port == 0 && nd.TLSPort == 0 && nd.Addr != "" {
			n.addrs = append(n.addrs, repl{[]byte(nd.Addr), []byte("{addr:" + label + "}")})
		}
	}
	for p, k := range seen {
		if k > 1 {
			delete(n.ports, p)
		}
	}
	return n
}

// text applies the string replacements to b (a copy when anything
// changes).
func (n *clusterNorm) text(b []byte) []byte {
	for _, r := range n.ids {
		if bytes.Contains(b, r.from) {
			b = bytes.ReplaceAll(b, r.from, r.to)
		}
	}
	for _, r := range n.addrs {
		b = replaceAddr(b, r)
	}
	slot := []byte(strconv.FormatInt(n.slot, 10))
	for _, pre := range []string{"MOVED ", "ASK "} {
		if bytes.HasPrefix(b, []byte(pre)) && bytes.HasPrefix(b[len(pre):], append(slot, ' ')) {
			b = append([]byte(pre+"{slot}"), b[len(pre)+len(slot):]...)
		}
	}
	for _, mark := range []string{"->-", "-<-"} {
		old := append(append([]byte("["), slot...), mark...)
		if bytes.Contains(b, old) {
			b = bytes.ReplaceAll(b, old, []byte("[{slot}"+mark))
		}
	}
	return b
}

// replaceAddr replaces r.from where it is a whole address: not preceded
// by a host character nor followed by a digit; a "@DIGITS" bus port after
// it becomes "@{bus-port}".
func replaceAddr(b []byte, r repl) []byte {
	var out []byte
	last := 0
	for i := 0; ; {
		j := bytes.Index(b[i:], r.from)
		if j < 0 {
			break
		}
		s, e := i+j, i+j+len(r.from)
		i = s + 1
		if s > 0 && hostByte(b[s-1]) || e < len(b) && isDigit(b[e]) {
			continue
		}
		out = append(append(out, b[last:s]...), r.to...)
		if e+1 < len(b) && b[e] == '@' && isDigit(b[e+1]) {
			for e++; e < len(b) && isDigit(b[e]); e++ {
			}
			out = append(out, "@{bus-port}"...)
		}
		last, i = e, e
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hostByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == ':' || c == '_'
}

// reply normalises a reply (or push) to the command cmd (its arguments as
// sent, nil when unknown).
func (n *clusterNorm) reply(b []byte, cmd [][]byte) []byte {
	name := commandName(cmd)
	return n.frame(b, func(v *resp.Value) ([]byte, bool) {
		if v.Kind != resp.Integer {
			return n.stringLeaf(v, false)
		}
		switch {
		case name == "CLUSTER KEYSLOT" && v.Int == n.slot:
			return []byte(":{slot}\r\n"), true
		case name == "CLUSTER SHARDS" || name == "CLUSTER SLOTS":
			if ph, ok := n.ports[v.Int]; ok {
				return []byte(":" + ph + "\r\n"), true
			}
		}
		return nil, false
	})
}

// sent normalises the bytes of a sent command.
func (n *clusterNorm) sent(b []byte) []byte {
	return n.frame(b, func(v *resp.Value) ([]byte, bool) { return n.stringLeaf(v, true) })
}

// stringLeaf rewrites a string leaf whose text changes; whole, it also
// replaces the slot and the ports (arguments of a sent command).
func (n *clusterNorm) stringLeaf(v *resp.Value, whole bool) ([]byte, bool) {
	if v.Streamed {
		return nil, false
	}
	var s []byte
	if whole && v.Kind == resp.BlobString {
		if x, err := strconv.ParseInt(string(v.Str), 10, 64); err == nil && strconv.FormatInt(x, 10) == string(v.Str) {
			switch ph, port := n.ports[x]; {
			case x == n.slot:
				s = []byte("{slot}")
			case port:
				s = []byte(ph)
			}
		}
	}
	if s == nil {
		s = n.text(v.Str)
		if bytes.Equal(s, v.Str) {
			return nil, false
		}
	}
	switch v.Kind {
	case resp.SimpleString, resp.SimpleError:
		return append(append(append([]byte(nil), v.Raw[0]), s...), "\r\n"...), true
	case resp.BlobString, resp.BlobError:
		return append(append(strconv.AppendInt([]byte{v.Raw[0]}, int64(len(s)), 10), "\r\n"...), append(s, "\r\n"...)...), true
	case resp.VerbatimString:
		out := strconv.AppendInt([]byte("="), int64(len(s)+4), 10)
		out = append(append(append(out, "\r\n"...), v.Format[:]...), ':')
		return append(append(out, s...), "\r\n"...), true
	}
	return nil, false
}

// frame rewrites b, one RESP frame, leaf by leaf (see the comment at the
// top); bytes that are not one frame get the string replacements only.
func (n *clusterNorm) frame(b []byte, leaf func(*resp.Value) ([]byte, bool)) []byte {
	m, v, err := resp.Parse(b)
	if err != nil || m != len(b) {
		return n.text(b)
	}
	out, changed := rewrite(nil, &v, leaf)
	if !changed {
		return b
	}
	return out
}

// rewrite appends v's bytes to out with the leaves that leaf rewrites
// replaced, and reports whether any was.
func rewrite(out []byte, v *resp.Value, leaf func(*resp.Value) ([]byte, bool)) ([]byte, bool) {
	raw, changed := v.Raw, false
	if v.Attr != nil {
		out, changed = rewrite(out, v.Attr, leaf)
		raw = raw[len(v.Attr.Raw):]
	}
	switch v.Kind {
	case resp.Array, resp.Map, resp.Set, resp.Push, resp.Attribute:
		body := 0
		for _, e := range v.Elems {
			body += len(e.Raw)
		}
		tail := 0
		if v.Streamed {
			tail = len(".\r\n")
		}
		out = append(out, raw[:len(raw)-body-tail]...)
		for i := range v.Elems {
			var c bool
			out, c = rewrite(out, &v.Elems[i], leaf)
			changed = changed || c
		}
		return append(out, raw[len(raw)-tail:]...), changed
	}
	if r, ok := leaf(v); ok {
		return append(out, r...), true
	}
	return append(out, raw...), changed
}

// commandName is "CLUSTER KEYSLOT" for a command sent as CLUSTER keyslot
// ..., else the first argument upper-cased.
func commandName(args [][]byte) string {
	if len(args) == 0 {
		return ""
	}
	name := strings.ToUpper(string(args[0]))
	if name == "CLUSTER" && len(args) > 1 {
		name += " " + strings.ToUpper(string(args[1]))
	}
	return name
}
