package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mediocregopher/radix/v4"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// slotCount is the number of hash slots of a Redis Cluster.
const slotCount = 16384

// Slot returns the hash slot of a key: CRC16 (XMODEM) of the key, or of its
// hash tag (the text between the first "{" and the next "}", when not
// empty), modulo 16384, as CLUSTER KEYSLOT computes it.
func Slot(key []byte) int { return int(radix.ClusterSlot(key)) }

// Node is one node of a cluster as the topology announces it.
type Node struct {
	// ID is the node's 40-character id.
	ID string `json:"id"`
	// Addr is host:port as announced (the endpoint, else the ip; the
	// tls-port over TLS).
	Addr string `json:"addr"`
	// Primary is false for a replica.
	Primary bool `json:"primary"`
	// Port is the node's plain-TCP port and TLSPort its TLS port (0: none
	// announced), as CLUSTER SHARDS gives them; from CLUSTER SLOTS, Port is
	// the one port announced (the TLS port under tls-cluster) and TLSPort 0.
	Port    int `json:"port,omitempty"`
	TLSPort int `json:"tls_port,omitempty"`
}

// Shard is one primary, its replicas and the slots it serves.
type Shard struct {
	// Slots are inclusive [start, end] ranges.
	Slots    [][2]int `json:"slots"`
	Primary  Node     `json:"primary"`
	Replicas []Node   `json:"replicas,omitempty"`
}

// Topology is a cluster's shards and which one serves each slot.
type Topology struct {
	Shards []Shard `json:"shards"`
	// Source is the command that described it: "CLUSTER SHARDS" (Redis
	// >= 7.0, Valkey) or "CLUSTER SLOTS" (older builds).
	Source string           `json:"source"`
	owner  [slotCount]int16 // shard index + 1; 0: unassigned
}

// Owner returns the shard that serves slot, and false for a slot no shard
// serves.
func (t *Topology) Owner(slot int) (Shard, bool) {
	if slot < 0 || slot >= slotCount || t.owner[slot] == 0 {
		return Shard{}, false
	}
	return t.Shards[t.owner[slot]-1], true
}

// Nodes returns every node, primaries first (in shard order), then
// replicas.
func (t *Topology) Nodes() []Node {
	var out []Node
	for _, s := range t.Shards {
		out = append(out, s.Primary)
	}
	for _, s := range t.Shards {
		out = append(out, s.Replicas...)
	}
	return out
}

// Node returns the node at addr.
func (t *Topology) Node(addr string) (Node, bool) {
	for _, n := range t.Nodes() {
		if n.Addr == addr {
			return n, true
		}
	}
	return Node{}, false
}

// NewTopology returns the topology of shards as source describes them (a
// topology read some other way than Discover, or made by a test); an error
// for a slot range outside 0-16383.
func NewTopology(source string, shards []Shard) (*Topology, error) {
	t := &Topology{Source: source, Shards: shards}
	return t, t.index()
}

// index fills owner from the shards' slot ranges.
func (t *Topology) index() error {
	slices.SortFunc(t.Shards, func(a, b Shard) int { return firstSlot(a) - firstSlot(b) })
	for i, s := range t.Shards {
		for _, r := range s.Slots {
			if r[0] < 0 || r[1] >= slotCount || r[0] > r[1] {
				return fmt.Errorf("%s: slot range %d-%d", t.Source, r[0], r[1])
			}
			for slot := r[0]; slot <= r[1]; slot++ {
				t.owner[slot] = int16(i + 1)
			}
		}
	}
	return nil
}

func firstSlot(s Shard) int {
	if len(s.Slots) == 0 {
		return slotCount
	}
	return s.Slots[0][0]
}

// Discover reads the topology from the node at cfg.Addr: CLUSTER SHARDS,
// or CLUSTER SLOTS where SHARDS is unknown. Shards that serve no slot (a
// primary without slots) are kept, with no Slots.
func Discover(ctx context.Context, cfg Config) (*Topology, error) {
	c, err := cfg.Dial(ctx, 2)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v, err := c.Do("CLUSTER", "SHARDS")
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SHARDS: %w", err)
	}
	t := &Topology{Source: "CLUSTER SHARDS"}
	if IsError(v) {
		if v, err = c.Do("CLUSTER", "SLOTS"); err != nil {
			return nil, fmt.Errorf("CLUSTER SLOTS: %w", err)
		}
		if IsError(v) {
			return nil, fmt.Errorf("CLUSTER SLOTS: server replied %s", resp.Escape(v.Raw))
		}
		t.Source = "CLUSTER SLOTS"
		err = t.fromSlots(v)
	} else {
		err = t.fromShards(v, cfg.TLS != nil)
	}
	if err != nil {
		return nil, err
	}
	return t, t.index()
}

// fromShards reads CLUSTER SHARDS (RESP2): an array of shards, each a flat
// field-value array with "slots" (start, end, ... as integers) and "nodes"
// (each a flat field-value array: id, port, tls-port, ip, endpoint, role,
// health, ...).
func (t *Topology) fromShards(v resp.Value, tls bool) error {
	for _, sv := range v.Elems {
		f := fields(sv)
		var sh Shard
		slots := f["slots"].Elems
		for i := 0; i+1 < len(slots); i += 2 {
			sh.Slots = append(sh.Slots, [2]int{int(slots[i].Int), int(slots[i+1].Int)})
		}
		for _, nv := range f["nodes"].Elems {
			nf := fields(nv)
			port := nf["port"]
			if tls && nf["tls-port"].Kind == resp.Integer {
				port = nf["tls-port"]
			}
			host := string(nf["endpoint"].Str)
			if host == "" || host == "?" {
				host = string(nf["ip"].Str)
			}
			n := Node{ID: string(nf["id"].Str), Addr: net.JoinHostPort(host, strconv.FormatInt(port.Int, 10)),
				Primary: string(nf["role"].Str) == "master", Port: int(nf["port"].Int), TLSPort: int(nf["tls-port"].Int)}
			if string(nf["health"].Str) == "fail" {
				continue
			}
			if n.Primary {
				sh.Primary = n
			} else {
				sh.Replicas = append(sh.Replicas, n)
			}
		}
		if sh.Primary.Addr == "" {
			return fmt.Errorf("CLUSTER SHARDS: a shard without a primary: %s", resp.Escape(sv.Raw))
		}
		t.Shards = append(t.Shards, sh)
	}
	return nil
}

// fields reads a flat field-value array (or a map) into a map by field name.
func fields(v resp.Value) map[string]resp.Value {
	out := map[string]resp.Value{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		out[strings.ToLower(string(v.Elems[i].Str))] = v.Elems[i+1]
	}
	return out
}

// fromSlots reads CLUSTER SLOTS: an array of [start, end, primary,
// replica...], each node [ip, port, id, ...] (the port clients should use:
// the TLS port under tls-cluster); ranges of one primary are merged into
// one shard.
func (t *Topology) fromSlots(v resp.Value) error {
	byID := map[string]int{}
	for _, rv := range v.Elems {
		e := rv.Elems
		if len(e) < 3 {
			return fmt.Errorf("CLUSTER SLOTS: a range without a node: %s", resp.Escape(rv.Raw))
		}
		nodes := make([]Node, 0, len(e)-2)
		for j, nv := range e[2:] {
			if len(nv.Elems) < 2 {
				return fmt.Errorf("CLUSTER SLOTS: a node entry %s", resp.Escape(nv.Raw))
			}
			n := Node{Addr: net.JoinHostPort(string(nv.Elems[0].Str), strconv.FormatInt(nv.Elems[1].Int, 10)), Primary: j == 0,
				Port: int(nv.Elems[1].Int)}
			if len(nv.Elems) > 2 {
				n.ID = string(nv.Elems[2].Str)
			}
			nodes = append(nodes, n)
		}
		key := nodes[0].ID + "@" + nodes[0].Addr
		i, ok := byID[key]
		if !ok {
			i = len(t.Shards)
			byID[key] = i
			t.Shards = append(t.Shards, Shard{Primary: nodes[0], Replicas: nodes[1:]})
		}
		t.Shards[i].Slots = append(t.Shards[i].Slots, [2]int{int(e[0].Int), int(e[1].Int)})
	}
	return nil
}

// Shape is "3x1": the number of shards, "x", and the fewest replicas a
// primary has.
func (t *Topology) Shape() string {
	least := -1
	for _, s := range t.Shards {
		if least < 0 || len(s.Replicas) < least {
			least = len(s.Replicas)
		}
	}
	return fmt.Sprintf("%dx%d", len(t.Shards), max(least, 0))
}

// Current returns the topology the run routes by: Topology as discovered
// by Open, or the last one Refresh read. Nil for a standalone server.
func (t *Target) Current() *Topology {
	if c := t.current.Load(); c != nil {
		return c
	}
	return t.Topology
}

// Refresh reads the topology again (Discover) from the node at from (the
// one whose MOVED reply named addr, a node the current topology does not
// know: it knows addr), else from t's address, and routes by it from then
// on. It reads it at most once per such address in the life of t: for an
// address it refreshed for already, it returns the current topology and
// false. Topology keeps the first one.
func (t *Target) Refresh(ctx context.Context, addr, from string) (*Topology, bool, error) {
	t.mu.Lock()
	if t.refreshed == nil {
		t.refreshed = map[string]bool{}
	}
	again := t.refreshed[addr]
	t.refreshed[addr] = true
	t.mu.Unlock()
	if again {
		return t.Current(), false, nil
	}
	topo, err := Discover(ctx, t.NodeConfig(from))
	if err != nil && from != t.Addr {
		topo, err = Discover(ctx, t.Config)
	}
	if err != nil {
		return t.Current(), true, err
	}
	t.current.Store(topo)
	return topo, true, nil
}

// NodeConfig is t's configuration with Addr set to addr: how to reach one
// node of a cluster with the target's credentials, TLS and limits.
func (t *Target) NodeConfig(addr string) Config {
	cfg := t.Config
	cfg.Addr = addr
	return cfg
}

// Place returns the node a connection of a case whose keys hash to slot
// goes to: the primary that owns slot (place "" or cases.NodeOwner), a primary of another
// shard (cases.NodeOther) or a replica of the owner (cases.NodeReplica).
// On a standalone server it is the server itself whatever place says.
func (t *Target) Place(slot int, place string) (Node, error) {
	topo := t.Current()
	if topo == nil {
		return Node{Addr: t.Addr, Primary: true}, nil
	}
	owner, ok := topo.Owner(slot)
	if !ok {
		return Node{}, fmt.Errorf("slot %d is served by no node (%s)", slot, topo.Source)
	}
	switch place {
	case "", cases.NodeOwner:
		return owner.Primary, nil
	case cases.NodeOther:
		for _, s := range topo.Shards {
			if s.Primary.Addr != owner.Primary.Addr {
				return s.Primary, nil
			}
		}
		return Node{}, errors.New("the cluster has one shard: no other primary")
	case cases.NodeReplica:
		if len(owner.Replicas) == 0 {
			return Node{}, fmt.Errorf("the primary of slot %d (%s) has no replica", slot, owner.Primary.Addr)
		}
		return owner.Replicas[0], nil
	}
	return Node{}, fmt.Errorf("unknown node placement %q", place)
}

// DialSlot dials the node that Place names, with the handshake for proto.
func (t *Target) DialSlot(ctx context.Context, proto, slot int, place string) (*Conn, Node, error) {
	n, err := t.Place(slot, place)
	if err != nil {
		return nil, n, err
	}
	c, err := t.NodeConfig(n.Addr).Dial(ctx, proto)
	return c, n, err
}

// KeySlot is the slot of the keys under a case's key prefix
// (cases.KeyPrefix: its braces are the hash tag).
func KeySlot(prefix string) int { return Slot([]byte(prefix)) }

// topologyGate returns why a case gated on the topology (cluster,
// replicas, standalone) cannot run on t, or "".
func (t *Target) topologyGate(g *cases.Gates) string {
	switch {
	case g.Cluster && t.Topology == nil:
		return "runs on a cluster only"
	case g.Standalone != "" && t.Topology != nil:
		return "standalone only: " + g.Standalone
	case g.Replicas:
		for _, s := range t.Current().Shards {
			if len(s.Replicas) == 0 {
				return fmt.Sprintf("requires a replica of every primary (%s has none)", s.Primary.Addr)
			}
		}
	}
	return ""
}

// SeedError is the error of FirstSeed when no seed answered: each seed's
// address and why it could not be reached.
type SeedError struct {
	Seeds []string
	Errs  []error
}

// Error names every seed with its error.
func (e *SeedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "none of the %d seed nodes answered:", len(e.Seeds))
	for i, s := range e.Seeds {
		fmt.Fprintf(&b, " %s: %v;", s, e.Errs[i])
	}
	return strings.TrimSuffix(b.String(), ";")
}

// FirstSeed returns cfg with Addr set to the first of seeds that answers
// (a connection and its handshake; a handshake refused with an error
// reply, such as a wrong password, is an answer: that seed is returned and
// its error comes when the run dials it), and a note for each seed before
// it that could not be reached. When none answers, the error is a
// *SeedError naming each.
func FirstSeed(ctx context.Context, cfg Config, seeds []string) (Config, []string, error) {
	var notes []string
	se := &SeedError{}
	for _, s := range seeds {
		c := cfg
		c.Addr = s
		cn, err := c.Dial(ctx, 2)
		var re *ReplyError
		if err == nil || errors.As(err, &re) {
			if cn != nil {
				cn.Close()
			}
			return c, notes, nil
		}
		if ctx.Err() != nil {
			return cfg, notes, ctx.Err()
		}
		notes = append(notes, fmt.Sprintf("seed %s skipped: %v", s, err))
		se.Seeds, se.Errs = append(se.Seeds, s), append(se.Errs, err)
	}
	return cfg, notes, se
}
