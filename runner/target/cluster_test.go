package target

import (
	"context"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestDiscover reads the topology of a three-primary cluster with one
// replica each through CLUSTER SHARDS and through CLUSTER SLOTS: both see
// every node and give each slot the primary that CLUSTER KEYSLOT and
// CLUSTER NODES agree on.
func TestDiscover(t *testing.T) {
	for _, name := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cl := servers.ClusterForTest(t, name, servers.ClusterOptions{Primaries: 3, Replicas: 1})
			cfg := Config{Addr: cl.Nodes[4].Addr()}
			topo, err := Discover(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(topo.Shards) != 3 || len(topo.Nodes()) != 6 {
				t.Fatalf("%d shards, %d nodes: %+v", len(topo.Shards), len(topo.Nodes()), topo.Shards)
			}
			viaSlots := &Topology{Source: "CLUSTER SLOTS"}
			c, err := cfg.Dial(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			v, err := c.Do("CLUSTER", "SLOTS")
			if err != nil || viaSlots.fromSlots(v.Clone()) != nil || viaSlots.index() != nil {
				t.Fatalf("CLUSTER SLOTS: %v", err)
			}
			for _, key := range []string{"a", "rc:{0badf00d}:x", "{user1000}.following", "foo{}{bar}"} {
				slot := Slot([]byte(key))
				v, err := c.Do("CLUSTER", "KEYSLOT", key)
				if err != nil || int(v.Int) != slot {
					t.Errorf("Slot(%q) = %d, CLUSTER KEYSLOT %d (%v)", key, slot, v.Int, err)
				}
				a, _ := topo.Owner(slot)
				b, _ := viaSlots.Owner(slot)
				if a.Primary.Addr != b.Primary.Addr || a.Primary.ID != b.Primary.ID || len(a.Replicas) != 1 {
					t.Errorf("slot %d: SHARDS says %+v, SLOTS %+v", slot, a, b)
				}
			}
		})
	}
}
