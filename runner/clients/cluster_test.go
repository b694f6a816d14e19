package clients

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// clusterDrivers are the cluster configurations, the Go ones first, each
// in its adapter process (rueidis panics in a goroutine of its own on a
// shifted reply: that ends its process, not the test).
func clusterDrivers(t *testing.T) []Driver {
	var ds []Driver
	for _, d := range externalDrivers(t, "go-redis/cluster", "rueidis/cluster", "valkey-go/cluster", "ioredis", "node-redis", "valkey-glide", "redis-py") {
		if IsCluster(d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// TestClusterAddrRewrite checks the proxy's rewrite on the replies of a
// real Valkey 9.1.2 cluster (3 primaries, 1 replica each): CLUSTER SLOTS,
// SHARDS (RESP2 and RESP3) and NODES name the listeners and no node port,
// and a MOVED error ({a}x, slot 15495, asked of the first shard's
// primary) no node port.
func TestClusterAddrRewrite(t *testing.T) {
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3, Replicas: 1})
	tg, err := target.Open(context.Background(), target.Config{Addr: cl.Nodes[0].Addr()})
	if err != nil {
		t.Fatal(err)
	}
	seed := tg.Topology.Shards[0].Primary.Addr
	p, err := newClusterProxy(tg, seed, Fault{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := len(p.Addrs()); got != 6 {
		t.Fatalf("%d listeners, want one per node (6)", got)
	}
	for _, proto := range []int{2, 3} {
		c, err := tg.NodeConfig(seed).Dial(context.Background(), proto)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"CLUSTER", "SLOTS"}, {"CLUSTER", "SHARDS"}, {"CLUSTER", "NODES"}, {"GET", "{a}x"}} {
			v, err := c.Do(cmd...)
			if err != nil {
				t.Fatal(err)
			}
			nv, ok := p.addrs.rewrite(v.Clone())
			if !ok {
				t.Errorf("RESP%d %v: nothing rewritten in %s", proto, cmd, resp.Escape(v.Raw))
				continue
			}
			for _, n := range tg.Topology.Nodes() {
				_, port, _ := strings.Cut(n.Addr, ":")
				named := regexp.MustCompile(`(:|\$\d+\r\n)` + port + `\r\n|:` + port + `@|:` + port + `$`)
				if named.Match(nv.Raw) {
					t.Errorf("RESP%d %v: node port %s left in %s", proto, cmd, port, resp.Escape(nv.Raw))
				}
				// A replica that has not synced yet is missing from SLOTS.
				if named.Match(v.Raw) && !strings.Contains(string(nv.Raw), strings.TrimPrefix(p.addrs.Listener(n.Addr), "127.0.0.1:")) {
					t.Errorf("RESP%d %v: listener of %s missing in %s", proto, cmd, n.Addr, resp.Escape(nv.Raw))
				}
			}
		}
		c.Close()
	}
}

// TestClusterClients runs testdata/clients through the Go cluster
// configurations on a Valkey 9.1.2 cluster (3 primaries, 1 replica each;
// on Redis 8.6.3 TestClientMatrixCluster runs it), and the migration case
// through every cluster configuration on both builds' clusters: no result is an error, the cases outside their hash tag
// are skipped, transactions run through the cluster clients' transaction
// APIs, the MOVED of the migrated slot is followed and named in
// the view, and a shifted connection (the proxy's extra reply after SET,
// through rueidis/cluster) is not a match.
func TestClusterClients(t *testing.T) {
	if raceEnabled {
		t.Skip("runs the whole corpus through cluster clients: without the race detector (scripts/test)")
	}
	all, err := cases.LoadPaths([]string{filepath.Join("..", "..", "testdata", "clients")})
	if err != nil {
		t.Fatal(err)
	}
	migration := loadTestdata(t, "cluster.yaml")
	ds := clusterDrivers(t)
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			t.Parallel() // the two clusters side by side: the run mostly waits
			cl := servers.ClusterForTest(t, build, servers.ClusterOptions{Primaries: 3, Replicas: 1})
			opts := Options{Target: target.Config{Addr: cl.Nodes[0].Addr()}, Drivers: ds[:3], RunID: "cluster-test"}
			// The corpus through the Go cluster configurations on Valkey;
			// on Redis 8.6.3 TestClientMatrixCluster (cmd/respcheck) runs
			// it through every cluster configuration, these three
			// included, and compares each cell with the committed matrix
			// (a verdict that became an error, a transaction no longer
			// run, a match lost: each a changed cell), so a second run
			// here checked nothing more.
			if build == "valkey-9.1.2" {
				rep, err := Run(context.Background(), all, opts)
				if err != nil {
					t.Fatal(err)
				}
				counts := map[string]map[Verdict]int{}
				transactions := 0
				for _, res := range rep.Results {
					if len(planBatches(res.Case)) > 0 && res.Verdict != Skip && slices.ContainsFunc(res.Steps, func(sv StepView) bool { return sv.Step.Send != nil && sv.Step.Send[0].IsWord("MULTI") }) {
						transactions++
					}
					if counts[res.Client] == nil {
						counts[res.Client] = map[Verdict]int{}
					}
					counts[res.Client][res.Verdict]++
					if res.Verdict == Error {
						t.Errorf("%s %s: error: %s", res.Client, res.Case.ID(), res.Reason)
					}
				}
				if transactions == 0 {
					t.Error("no case of the corpus ran a transaction through a cluster client")
				}
				for c, n := range counts {
					t.Logf("%s: %v", c, n)
					if n[Match]+n[Erased] < 80 { // of about 124 cases, a quarter skipped on a cluster or for their MULTI
						t.Errorf("%s: only %d matching or erased results: %v", c, n[Match]+n[Erased], n)
					}
				}
			}
			// Another run id: the first run migrated these clients' slots of
			// cluster.yaml already, and rueidis and valkey-go v1.0.79
			// (RESP2) then hung on the case's first SET in a second run
			// with the same key prefix (seen before this was split; not
			// reproduced outside respcheck yet).
			opts.Drivers, opts.RunID = ds, "cluster-test-migration"
			rep, err := Run(context.Background(), migration, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range rep.Results {
				if followedMoved(t, res) {
					continue
				}
				// Run alone again (another run id each time): rueidis
				// v1.0.79's cluster client once panicked here under CI load
				// ("protocol bug, message handled out of order", pipe.go:476,
				// RESP3, redis-8.6.3); a finding that comes and goes is
				// logged, one that stays fails.
				lib := res.Client[:strings.LastIndex(res.Client, "/resp")]
				alone, err := Select(ds, lib)
				if err != nil {
					t.Fatal(err)
				}
				o := opts
				o.Drivers, o.Protos = alone[:1], []int{res.Proto}
				ok := false
				for i := 0; i < 3 && !ok; i++ {
					o.RunID = fmt.Sprintf("cluster-test-migration-%d", i)
					again, err := Run(context.Background(), migration, o)
					if err != nil {
						t.Fatal(err)
					}
					ok = len(again.Results) == 1 && followedMoved(t, again.Results[0])
				}
				if !ok {
					t.Errorf("%s: the GET after the migration did not follow MOVED in four runs", res.Client)
				}
			}
			// rueidis reads the extra frame as the next reply; go-redis's
			// pool drops a connection that has unread data before reusing
			// it (go-redis v9.23.0 pool.go, "Conn has unread data"), so
			// its ClusterClient is not shifted.
			opts.Drivers, opts.Fault = ds[1:2], Fault{ExtraAfter: "SET"}
			opts.Run = regexp.MustCompile(`^errors/simple error WRONGTYPE from LPUSH on a string$`)
			rep, err = Run(context.Background(), all, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range rep.Results {
				if res.Verdict < Mismatch {
					t.Errorf("%s: %s after an extra reply to SET, want a mismatch or desync", res.Client, res.Verdict)
				}
			}
		})
	}
}

// TestClusterConfigurationSkipsStandalone: a cluster configuration skips
// every case on a standalone server, saying why.
func TestClusterConfigurationSkipsStandalone(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), loadTestdata(t, "errors.yaml"), Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisClusterDriver}})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict != Skip || res.Reason != notClusterTarget {
			t.Errorf("%s %s: %s %q", res.Client, res.Case.ID(), res.Verdict, res.Reason)
		}
	}
}

// followedMoved reports whether res's GET after the slot migration (line
// 41 of the migration case) matched after the library followed a MOVED,
// logging why not.
func followedMoved(t *testing.T, res *Result) bool {
	t.Helper()
	i := slices.IndexFunc(res.Steps, func(sv StepView) bool { return sv.Step.Pos.Line == 41 })
	if i < 0 {
		t.Logf("%s: no step at line 41 (result %s: %s)", res.Client, res.Verdict, res.Reason)
		return false
	}
	sv := res.Steps[i]
	if sv.Verdict == Match && len(sv.Cluster) > 0 && strings.HasPrefix(sv.Cluster[0], `redirect: the library received "-MOVED `) {
		return true
	}
	t.Logf("%s: the GET after the migration: %s %v %v", res.Client, sv.Verdict, sv.Notes, sv.Cluster)
	for _, st := range res.Steps {
		t.Logf("  %s %s %s %v %s %s", st.Step.Pos, resp.EscapeCommand(st.Args), st.Verdict, st.Notes, st.Canary, st.Native)
	}
	return false
}
