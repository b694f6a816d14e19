package target

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"slices"
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

// TestDiscoverTLS reads the topology of a TLS cluster (tls-port beside
// the plain port, tls-cluster and tls-replication yes) over TLS: CLUSTER
// SHARDS gives both ports and Discover takes tls-port; CLUSTER SLOTS on a
// TLS connection announces the TLS port itself. Every node address the
// runner would dial is a TLS one.
func TestDiscoverTLS(t *testing.T) {
	certs := servers.TestCerts(t)
	pem, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	for _, name := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cl := servers.ClusterForTest(t, name, servers.ClusterOptions{Primaries: 3, Replicas: 1, TLS: &certs})
			cfg := Config{Addr: cl.TLSAddrs[2], TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}}
			topo, err := Discover(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := cfg.Dial(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			v, err := c.Do("CLUSTER", "SLOTS")
			viaSlots := &Topology{Source: "CLUSTER SLOTS"}
			if err != nil || viaSlots.fromSlots(v.Clone()) != nil || viaSlots.index() != nil {
				t.Fatalf("CLUSTER SLOTS: %v", err)
			}
			for _, tp := range []*Topology{topo, viaSlots} {
				// CLUSTER SLOTS leaves out a replica it does not consider
				// available yet (health "loading" in CLUSTER SHARDS right
				// after its first sync, before any write): its primaries
				// are all there.
				nodes := tp.Nodes()
				if len(tp.Shards) != 3 || tp == topo && len(nodes) != 6 {
					t.Errorf("%s: %d shards, %d nodes", tp.Source, len(tp.Shards), len(nodes))
				}
				for _, n := range nodes {
					if !slices.Contains(cl.TLSAddrs, n.Addr) {
						t.Errorf("%s: node %s is not at a TLS port %v", tp.Source, n.Addr, cl.TLSAddrs)
					}
				}
			}
			t.Logf("CLUSTER SHARDS over TLS: %+v", topo.Shards[0].Primary)
		})
	}
}
