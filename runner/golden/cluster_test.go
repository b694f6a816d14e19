package golden

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// testTopology is three shards of one primary and one replica on host, the
// nodes' ports base+0..5 (TLS ports base+100.. when tls), ids made of the
// digit d.
func testTopology(t *testing.T, host string, base int, d byte, tls bool) *target.Topology {
	t.Helper()
	node := func(i int, primary bool) target.Node {
		n := target.Node{ID: strings.Repeat(string(d), 39) + strconv.Itoa(i), Port: base + i, Primary: primary}
		n.Addr = host + ":" + strconv.Itoa(n.Port)
		if tls {
			n.TLSPort = base + 100 + i
		}
		return n
	}
	var shards []target.Shard
	for i, r := range [][2]int{{0, 5460}, {5461, 10922}, {10923, 16383}} {
		shards = append(shards, target.Shard{Slots: [][2]int{r}, Primary: node(i, true), Replicas: []target.Node{node(i+3, false)}})
	}
	topo, err := target.NewTopology("CLUSTER SHARDS", shards)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// prefixOfShard returns a key prefix whose slot the shard i serves.
func prefixOfShard(topo *target.Topology, i int) string {
	for n := 0; ; n++ {
		p := fmt.Sprintf("rc:{%08x}:", n)
		if s, _ := topo.Owner(target.KeySlot(p)); s.Primary.ID == topo.Shards[i].Primary.ID {
			return p
		}
	}
}

// TestClusterNormalize: the replacements are the documented ones, the same
// reply of two clusters of one shape (other hosts, ports, ids and slots,
// the case's slot on another shard) normalises to the same bytes, and what
// is not a node's id, address or port, or the case's slot, is kept.
func TestClusterNormalize(t *testing.T) {
	a, b := testTopology(t, "127.0.0.1", 30001, 'a', false), testTopology(t, "10.1.2.3", 7000, 'b', false)
	pa, pb := prefixOfShard(a, 0), prefixOfShard(b, 2)
	sa, sb := target.KeySlot(pa), target.KeySlot(pb)
	// What each cluster sends: its own ids, addresses and slot in the
	// same places.
	type reply struct {
		cmd  string
		make func(topo *target.Topology, slot int) []byte
		want string
	}
	owner := func(topo *target.Topology, slot int) target.Node { s, _ := topo.Owner(slot); return s.Primary }
	other := func(topo *target.Topology, slot int) target.Node {
		n, _ := (&target.Target{Topology: topo}).Place(slot, "other")
		return n
	}
	script := strings.Repeat("e", 40)
	for _, tc := range []reply{
		{"GET", func(t *target.Topology, s int) []byte {
			return []byte(fmt.Sprintf("-MOVED %d %s\r\n", s, owner(t, s).Addr))
		}, "-MOVED {slot} {addr:owner}\r\n"},
		{"GET", func(t *target.Topology, s int) []byte {
			return []byte(fmt.Sprintf("-ASK %d %s\r\n", s, other(t, s).Addr))
		}, "-ASK {slot} {addr:other1}\r\n"},
		{"CLUSTER KEYSLOT", func(t *target.Topology, s int) []byte { return []byte(fmt.Sprintf(":%d\r\n", s)) }, ":{slot}\r\n"},
		{"CLUSTER MYID", func(t *target.Topology, s int) []byte {
			return []byte("$40\r\n" + owner(t, s).ID + "\r\n")
		}, "$40\r\n{node-id:owner}_________________________\r\n"},
		{"CLUSTER NODES", func(t *target.Topology, s int) []byte {
			line := fmt.Sprintf("%s %s@%d myself,master - 0 0 1 connected 0-5460 [%d->-%s]\n", owner(t, s).ID, owner(t, s).Addr, owner(t, s).Port+10000, s, other(t, s).ID)
			return []byte(fmt.Sprintf("=%d\r\ntxt:%s\r\n", len(line)+4, line))
		}, "=160\r\ntxt:{node-id:owner}_________________________ {addr:owner}@{bus-port} myself,master - 0 0 1 connected 0-5460 [{slot}->-{node-id:other1}________________________]\n\r\n"},
		{"CLUSTER SLOTS", func(t *target.Topology, s int) []byte {
			o := owner(t, s)
			host := o.Addr[:strings.LastIndexByte(o.Addr, ':')]
			return []byte(fmt.Sprintf("*1\r\n*3\r\n:0\r\n:5460\r\n*3\r\n$%d\r\n%s\r\n:%d\r\n$40\r\n%s\r\n", len(host), host, o.Port, o.ID))
		}, ""}, // the host is kept: compared below within one host only
		{"EVALSHA", func(t *target.Topology, s int) []byte {
			return []byte("-ERR Script attempted to access a non local key in a cluster node script: " + script + "\r\n")
		}, "-ERR Script attempted to access a non local key in a cluster node script: " + script + "\r\n"},
	} {
		cmd := bytes.Fields([]byte(tc.cmd))
		na := newNorm(a, pa).reply(tc.make(a, sa), cmd)
		nb := newNorm(b, pb).reply(tc.make(b, sb), cmd)
		if tc.want == "" {
			if !bytes.Contains(na, []byte(":{port:owner}\r\n$40\r\n{node-id:owner}")) {
				t.Errorf("%s: %s", tc.cmd, resp.Escape(na))
			}
			continue
		}
		if string(na) != tc.want || string(nb) != tc.want {
			t.Errorf("%s:\n a: %s\n b: %s\nwant %s", tc.cmd, resp.Escape(na), resp.Escape(nb), resp.Escape([]byte(tc.want)))
		}
	}
	// A sent command: the slot and a node's port as whole arguments.
	sent := resp.AppendCommandString(nil, "MIGRATE", "127.0.0.1", strconv.Itoa(other(a, sa).Port), "", "0", "5000", "KEYS", pa+"a")
	if got, want := resp.Escape(newNorm(a, pa).sent(sent)), resp.Escape(resp.AppendCommandString(nil, "MIGRATE", "127.0.0.1", "{port:other1}", "", "0", "5000", "KEYS", Placeholder+"a")); got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
	// Numbers that are not the case's slot, and addresses that are not a
	// node's (a longer port), are kept.
	z := newNorm(a, pa)
	for _, keep := range []string{
		fmt.Sprintf(":%d\r\n", sa+1),
		fmt.Sprintf("-MOVED %d 127.0.0.1:300010\r\n", sa+1),
		fmt.Sprintf(":%d\r\n", sa), // not a CLUSTER KEYSLOT reply
	} {
		if got := z.reply([]byte(keep), [][]byte{[]byte("GET")}); string(got) != keep {
			t.Errorf("%s became %s", resp.Escape([]byte(keep)), resp.Escape(got))
		}
	}
}

// TestClusterNormalizeKeepsDifferences changes, one at a time, every byte
// of a reply that lies outside the normalised fields: the normalised bytes
// of the changed reply always differ from the original's.
func TestClusterNormalizeKeepsDifferences(t *testing.T) {
	topo := testTopology(t, "127.0.0.1", 30001, 'c', false)
	prefix := prefixOfShard(topo, 1)
	slot := target.KeySlot(prefix)
	o, _ := topo.Owner(slot)
	line := fmt.Sprintf("%s %s@40002 myself,master - 0 0 2 connected 5461-10922\n", o.Primary.ID, o.Primary.Addr)
	for _, tc := range []struct {
		cmd   string
		reply string
		// fields are the substrings the normalisation replaces.
		fields []string
	}{
		{"GET", fmt.Sprintf("-MOVED %d %s\r\n", slot, o.Primary.Addr), []string{strconv.Itoa(slot), o.Primary.Addr}},
		{"CLUSTER NODES", fmt.Sprintf("$%d\r\n%s\r\n", len(line), line), []string{strconv.Itoa(len(line)), o.Primary.ID, o.Primary.Addr, "40002"}},
		{"CLUSTER KEYSLOT", fmt.Sprintf("*2\r\n:%d\r\n+%s\r\n", slot, prefix), []string{strconv.Itoa(slot), prefix}},
	} {
		z := newNorm(topo, prefix)
		cmd := bytes.Fields([]byte(tc.cmd))
		base := z.reply([]byte(tc.reply), cmd)
		inField := make([]bool, len(tc.reply))
		for _, f := range tc.fields {
			for i := 0; ; {
				j := strings.Index(tc.reply[i:], f)
				if j < 0 {
					break
				}
				for k := i + j; k < i+j+len(f); k++ {
					inField[k] = true
				}
				i += j + 1
			}
		}
		checked := 0
		for i := range tc.reply {
			if inField[i] {
				continue
			}
			for _, c := range []byte{'x', '0', ' '} {
				if tc.reply[i] == c {
					continue
				}
				changed := []byte(tc.reply)
				changed[i] = c
				if got := z.reply(changed, cmd); bytes.Equal(got, base) {
					t.Errorf("%s: byte %d changed to %q normalises to the original's %s", tc.cmd, i, c, resp.Escape(base))
				}
				checked++
			}
		}
		t.Logf("%s: %d changed replies, each still differs (normalised: %s)", tc.cmd, checked, resp.Escape(base))
	}
}
