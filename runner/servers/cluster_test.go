package servers

import (
	"strings"
	"testing"
)

// TestStartCluster starts three primaries with one replica each on Redis
// 8.6.3 and Valkey 9.1.2 and checks that every node agrees on the topology.
func TestStartCluster(t *testing.T) {
	for _, name := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := ClusterForTest(t, name, ClusterOptions{Primaries: 3, Replicas: 1})
			if len(c.Nodes) != 6 {
				t.Fatalf("%d nodes", len(c.Nodes))
			}
			for _, s := range c.Nodes {
				info, err := infoText(s.Addr(), "", "CLUSTER", "INFO")
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{"cluster_state:ok", "cluster_size:3", "cluster_known_nodes:6"} {
					if !strings.Contains(info, want) {
						t.Errorf("%s: no %q in CLUSTER INFO:\n%s", s.Addr(), want, info)
					}
				}
			}
		})
	}
}
