package clients

import (
	"bytes"
	"fmt"
	"net"
	"strconv"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// newClusterProxy listens once per node of t's cluster (primaries and
// replicas), seed's listener first, each forwarding to its node, and
// rewrites the nodes' addresses in every server→client frame into the
// listeners' (addrMap), so that a cluster client that follows the topology
// (CLUSTER SLOTS, SHARDS, NODES) or a redirect (MOVED, ASK) reconnects
// through the proxy and everything it receives is recorded.
func newClusterProxy(t *target.Target, seed string, fault Fault) (*proxy, error) {
	nodes := []string{seed}
	for _, n := range t.Topology.Nodes() {
		if n.Addr != seed {
			nodes = append(nodes, n.Addr)
		}
	}
	ups := make([]target.Config, len(nodes))
	for i, n := range nodes {
		ups[i] = t.NodeConfig(n)
	}
	p, err := listenProxy(ups, fault)
	if err != nil {
		return nil, err
	}
	m := &addrMap{to: map[string]string{}}
	for i, n := range nodes {
		if err := m.add(n, p.lns[i].ln.Addr().String()); err != nil {
			p.Close()
			return nil, err
		}
	}
	p.addrs = m
	p.start()
	return p, nil
}

// addrMap maps the cluster nodes' announced addresses (host:port, as
// target.Topology names them) to the proxy listeners' (127.0.0.1:port).
// rewrite applies it to a frame:
//
//   - in every string (simple, blob, verbatim, error), each "host:port" of
//     a node (not followed by a digit) becomes the listener's: the
//     addresses of CLUSTER NODES' text ("127.0.0.1:30001@40001") and of
//     MOVED and ASK errors ("MOVED 3999 127.0.0.1:30002"), and ":port"
//     where a MOVED or ASK names no host (Redis 7 for a node without a
//     known endpoint);
//   - in an aggregate that holds a string equal to a node's host and an
//     integer equal to its port, that string becomes the listener's host
//     and that integer its port: the node entries of CLUSTER SLOTS ([ip,
//     port, id, ...]) and of CLUSTER SHARDS (ip, endpoint and hostname
//     fields beside port, in RESP2 flat arrays and RESP3 maps).
//
// The cluster bus port ("@40001") is left alone: clients never dial it.
// INFO's tcp_port and HELLO are not rewritten: no library dials what they
// say (HELLO names no address; INFO server's tcp_port is the node's own
// port, read by no cluster client).
type addrMap struct {
	to    map[string]string // node host:port → listener host:port
	nodes []addrPair
}

type addrPair struct {
	host     string
	port     int64
	toHost   string
	toPort   int64
	from, at string // host:port of the node and of the listener
}

func (m *addrMap) add(node, listener string) error {
	h, ps, err := net.SplitHostPort(node)
	if err != nil {
		return fmt.Errorf("node address %q: %v", node, err)
	}
	lh, lps, err := net.SplitHostPort(listener)
	if err != nil {
		return err
	}
	port, _ := strconv.ParseInt(ps, 10, 64)
	lport, _ := strconv.ParseInt(lps, 10, 64)
	m.to[node] = listener
	m.nodes = append(m.nodes, addrPair{host: h, port: port, toHost: lh, toPort: lport, from: node, at: listener})
	return nil
}

// Listener is the listener address of a node's, or "" for an address that
// is no node's.
func (m *addrMap) Listener(node string) string { return m.to[node] }

// rewrite returns v with the nodes' addresses replaced (see addrMap),
// re-encoded and parsed again so that Raw is the new frame; ok is false
// when v holds no node address (v is then used as it came).
func (m *addrMap) rewrite(v resp.Value) (resp.Value, bool) {
	nv, changed := m.walk(v)
	if !changed {
		return v, false
	}
	raw := resp.Append(nil, nv)
	_, out, err := resp.Parse(raw)
	if err != nil {
		return v, false
	}
	return out.Clone(), true
}

func (m *addrMap) walk(v resp.Value) (resp.Value, bool) {
	switch v.Kind {
	case resp.SimpleString, resp.SimpleError, resp.BlobString, resp.BlobError, resp.VerbatimString:
		s, ok := m.text(v.Str, v.Kind == resp.SimpleError || v.Kind == resp.BlobError)
		if ok {
			v.Str = s
		}
		return v, ok
	case resp.Array, resp.Map, resp.Set, resp.Push:
	default:
		return v, false
	}
	elems := append([]resp.Value(nil), v.Elems...)
	changed := m.entry(elems)
	for i := range elems {
		if e, ok := m.walk(elems[i]); ok {
			elems[i], changed = e, true
		}
	}
	v.Elems = elems
	return v, changed
}

// entry rewrites a node entry in place: an aggregate's elements holding
// a node's host (as a string) and its port (as an integer).
func (m *addrMap) entry(elems []resp.Value) bool {
	for _, n := range m.nodes {
		hostAt, portAt := -1, -1
		for i, e := range elems {
			switch {
			case e.Kind == resp.Integer && e.Int == n.port && portAt < 0:
				portAt = i
			case (e.Kind == resp.BlobString || e.Kind == resp.SimpleString) && string(e.Str) == n.host && hostAt < 0:
				hostAt = i
			}
		}
		if hostAt < 0 || portAt < 0 {
			continue
		}
		for i, e := range elems {
			switch {
			case e.Kind == resp.Integer && e.Int == n.port:
				elems[i].Int, elems[i].Str = n.toPort, []byte(strconv.FormatInt(n.toPort, 10))
			case (e.Kind == resp.BlobString || e.Kind == resp.SimpleString) && string(e.Str) == n.host:
				elems[i].Str = []byte(n.toHost)
			}
		}
		return true
	}
	return false
}

// text replaces every node host:port in s (and, in a MOVED or ASK error,
// a bare ":port") by its listener's.
func (m *addrMap) text(s []byte, isErr bool) ([]byte, bool) {
	out, changed := s, false
	for _, n := range m.nodes {
		if r, ok := replaceAddr(out, []byte(n.from), []byte(n.at)); ok {
			out, changed = r, true
		}
	}
	if isErr {
		f := bytes.Fields(out)
		if len(f) == 3 && (string(f[0]) == "MOVED" || string(f[0]) == "ASK") && len(f[2]) > 0 && f[2][0] == ':' {
			for _, n := range m.nodes {
				if string(f[2][1:]) == strconv.FormatInt(n.port, 10) {
					out = []byte(string(f[0]) + " " + string(f[1]) + " " + n.at)
					changed = true
					break
				}
			}
		}
	}
	return out, changed
}

// replaceAddr replaces each from in s that no digit follows and no digit
// or dot precedes by to.
func replaceAddr(s, from, to []byte) ([]byte, bool) {
	var b []byte
	last, changed := 0, false
	for i := 0; i+len(from) <= len(s); {
		j := bytes.Index(s[i:], from)
		if j < 0 {
			break
		}
		at := i + j
		end := at + len(from)
		if (end < len(s) && isDigit(s[end])) || (at > 0 && (isDigit(s[at-1]) || s[at-1] == '.')) {
			i = at + 1
			continue
		}
		b = append(append(b, s[last:at]...), to...)
		last, i, changed = end, end, true
	}
	if !changed {
		return s, false
	}
	return append(b, s[last:]...), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
