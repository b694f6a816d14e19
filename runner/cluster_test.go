package runner_test

import (
	"context"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// clusterBuilds are the builds whose clusters CI runs the bundled suite on.
var clusterBuilds = []string{"redis-8.6.3", "valkey-9.1.2"}

// checkClusterRun checks a run of the bundled suite on a cluster (see
// TestBundledSuite): the cluster cases pass, every case that does not run
// says why, and the cases gated to standalone servers give their reason.
func checkClusterRun(t *testing.T, rep *runner.Report) {
	t.Helper()
	clusterCases, standalone := 0, 0
	for _, res := range rep.Results {
		name := res.Case.FullName()
		switch {
		case res.Status == runner.Fail || res.Status == runner.Error:
			t.Errorf("%s [RESP%d]: %s: %s", name, res.Proto, res.Status, res.Reason)
		case res.Status == runner.Skip && res.Reason == "":
			t.Errorf("%s [RESP%d]: skipped without a reason", name, res.Proto)
		case strings.HasPrefix(name, "cluster/") && res.Status != runner.Pass:
			t.Errorf("%s [RESP%d]: %s (%s), want pass", name, res.Proto, res.Status, res.Reason)
		case strings.HasPrefix(name, "cluster/"):
			clusterCases++
		case strings.HasPrefix(res.Reason, "standalone only: "):
			standalone++
		}
	}
	t.Logf("%+v; %d cluster results passed, %d standalone-only skips", rep.Summary, clusterCases, standalone)
	if clusterCases < 20 || standalone == 0 {
		t.Errorf("%d cluster results, %d standalone-only skips", clusterCases, standalone)
	}
}

// TestSlotMigrationRedirects runs the bundled case that migrates its own
// slot to another primary: connection "c" is redirected by ASK during the
// migration and by MOVED after it, the runner follows both (ASKING first
// for ASK; the connection moves for MOVED, so the next step goes straight
// to the new owner), and the result lists each with the node it went to.
func TestSlotMigrationRedirects(t *testing.T) {
	files, err := cases.LoadPaths([]string{"../cases/suite/cluster.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range clusterBuilds {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			cl := servers.ClusterForTest(t, b, servers.ClusterOptions{Primaries: 3})
			rep := run(t, cl.Nodes[0].Addr(), files, runner.Options{Run: regexp.MustCompile("slot migrating")})
			if len(rep.Results) != 2 {
				t.Fatalf("%d results", len(rep.Results))
			}
			for _, res := range rep.Results {
				if res.Status != runner.Pass {
					t.Fatalf("RESP%d: %s: %s", res.Proto, res.Status, res.Reason)
				}
				var seen []string
				for _, sr := range res.Steps {
					for _, r := range sr.Redirects {
						if sr.Conn != "c" || !strings.HasSuffix(r.Reply, " "+r.Node) {
							t.Errorf("%s [%s]: redirect %+v", sr.Step.Pos, sr.Conn, r)
						}
						seen = append(seen, strings.Fields(r.Reply)[0])
					}
				}
				if strings.Join(seen, ",") != "ASK,MOVED" {
					t.Errorf("RESP%d: redirects followed %v, want [ASK MOVED]", res.Proto, seen)
				}
			}
		})
	}
}

// TestKilledPrimaryEndsTheRun kills a primary (SIGKILL) while cases wait
// on every shard: the watchdog, which pings every node, ends the run with
// the lost node named (its address and slots), and the cases that ran on
// it end saying so, without waiting out their step deadline.
func TestKilledPrimaryEndsTheRun(t *testing.T) {
	cl := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	victim := cl.Nodes[1]
	go func() {
		time.Sleep(700 * time.Millisecond)
		victim.Kill()
	}()
	rep := run(t, cl.Nodes[0].Addr(), load(t, frozenCases(40)), runner.Options{Jobs: 8, StepTimeout: time.Hour})
	if rep.ServerLost == nil || !strings.Contains(rep.ServerLost.Error(), "the cluster node "+victim.Addr()+" (primary of slots ") {
		t.Fatalf("ServerLost = %v, want the node %s named", rep.ServerLost, victim.Addr())
	}
	if !strings.Contains(rep.ServerLost.Error(), " while ") {
		t.Errorf("ServerLost names no case: %v", rep.ServerLost)
	}
	for _, res := range rep.Results {
		if res.Status == runner.Error && !strings.Contains(res.Reason, "stopped answering") {
			t.Errorf("%s: %s", res.Case.Name, res.Reason)
		}
	}
	t.Logf("%v; %+v", rep.ServerLost, rep.Summary)
}

// TestClusterSelectors: the cluster and standalone selector terms and
// gates pick the per-topology expectation on each.
func TestClusterSelectors(t *testing.T) {
	src := `suite: topology
cases:
  - name: HELLO mode
    steps:
      - send: [HELLO, "3"]
        volatile: true
        value:
          cluster: {map: [[server, {type: blob string}], [version, {type: blob string}], [proto, 3], [id, {type: integer}], [mode, cluster], [role, master], [modules, {type: array}]]}
          standalone: {map: [[server, {type: blob string}], [version, {type: blob string}], [proto, 3], [id, {type: integer}], [mode, standalone], [role, master], [modules, {type: array}]]}
  - name: standalone only
    requires: {standalone: "a reason"}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: cluster only
    requires: {cluster: true}
    steps: [{send: [PING], reply: "+PONG\r\n"}]
`
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	srv := servers.ForTest(t, "valkey-9.1.2")
	for _, tc := range []struct {
		addr string
		want map[string]string
	}{
		{cl.Nodes[0].Addr(), map[string]string{"HELLO mode": "pass", "standalone only": "skip: standalone only: a reason", "cluster only": "pass"}},
		{srv.Addr(), map[string]string{"HELLO mode": "pass", "standalone only": "pass", "cluster only": "skip: runs on a cluster only"}},
	} {
		rep := run(t, tc.addr, load(t, src), runner.Options{Protos: []int{3}})
		for _, res := range rep.Results {
			got := res.Status.String()
			if res.Status == runner.Skip {
				got += ": " + res.Reason
			}
			if got != tc.want[res.Case.Name] {
				t.Errorf("%s: %s: %q, want %q (%s)", tc.addr, res.Case.Name, got, tc.want[res.Case.Name], res.Reason)
			}
		}
	}
}

// TestMovedToUnknownNodeRefreshes adds a node to a cluster after the run
// discovered its topology (CLUSTER MEET, in OnStart) and moves the case's
// slot to it: the old owner's MOVED names a node the topology does not
// know, so the runner reads the topology again (once), follows the
// redirect, and says so in the result and the report's topology.
func TestMovedToUnknownNodeRefreshes(t *testing.T) {
	for _, b := range clusterBuilds {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			cl := servers.ClusterForTest(t, b, servers.ClusterOptions{Primaries: 3})
			extra := servers.ForTestWith(t, b, servers.Options{ExtraArgs: []string{
				"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "3000"}})
			files := load(t, "suite: refresh\ncases:\n  - name: moved away\n    steps:\n"+
				"      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n      - {send: [GET, \"{key}\"], reply: \"$1\\r\\nv\\r\\n\"}\n")
			prefix := cases.KeyPrefix(" " + files[0].Cases[0].ID() + " 2")
			slot := target.KeySlot(prefix)
			opts := runner.Options{Protos: []int{2}, OnStart: func(int) { moveSlotToNewNode(t, cl, extra.Addr(), slot) }}
			rep := run(t, cl.Nodes[0].Addr(), files, opts)
			res := rep.Results[0]
			if res.KeyPrefix != prefix || res.Status != runner.Pass {
				t.Fatalf("prefix %s (want %s), %s: %s; %q %+v", res.KeyPrefix, prefix, res.Status, res.Reason, res.Steps[0].Reply, res.Steps[0].Redirects)
			}
			rd := res.Steps[0].Redirects
			if len(rd) != 1 || rd[0].Node != extra.Addr() || !strings.Contains(rd[0].Refresh, extra.Addr()+" was not in the topology") ||
				!strings.HasSuffix(rd[0].Refresh, "known now: true") {
				t.Fatalf("redirects %+v", rd)
			}
			if n := len(rep.Topology.Nodes()); n != 4 || len(res.Steps[1].Redirects) != 0 {
				t.Errorf("%d nodes in the report's topology; the GET was redirected: %+v", n, res.Steps[1].Redirects)
			}
			t.Log(rd[0].Refresh)
		})
	}
}

// moveSlotToNewNode joins the node at addr to the cluster (CLUSTER MEET)
// and gives it slot, as redis-cli --cluster reshard does (SETSLOT
// IMPORTING, MIGRATING, NODE on both).
func moveSlotToNewNode(t *testing.T, cl *servers.Cluster, addr string, slot int) {
	t.Helper()
	ctx := context.Background()
	do := func(at string, args ...string) string {
		c, err := target.Config{Addr: at}.Dial(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		v, err := c.Do(args...)
		if err != nil || target.IsError(v) {
			t.Fatalf("%s %v: %v %s", at, args, err, v.Raw)
		}
		return string(v.Str)
	}
	topo, err := target.Discover(ctx, target.Config{Addr: cl.Nodes[0].Addr()})
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := topo.Owner(slot)
	newID := do(addr, "CLUSTER", "MYID")
	host, port, _ := net.SplitHostPort(addr)
	do(owner.Primary.Addr, "CLUSTER", "MEET", host, port)
	// Joined: every node knows it, and it knows every slot's owner.
	joined := func() bool {
		for _, s := range cl.Nodes {
			if !strings.Contains(do(s.Addr(), "CLUSTER", "NODES"), newID) {
				return false
			}
		}
		return strings.Contains(do(addr, "CLUSTER", "INFO"), "cluster_state:ok")
	}
	for deadline := time.Now().Add(30 * time.Second); !joined(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not join the cluster", addr)
		}
	}
	s := strconv.Itoa(slot)
	do(addr, "CLUSTER", "SETSLOT", s, "IMPORTING", owner.Primary.ID)
	do(owner.Primary.Addr, "CLUSTER", "SETSLOT", s, "MIGRATING", newID)
	do(addr, "CLUSTER", "SETSLOT", s, "NODE", newID)
	do(owner.Primary.Addr, "CLUSTER", "SETSLOT", s, "NODE", newID)
}

// TestRedirectSendsTheNamespacedCommand: a command whose literal key was
// moved into the case's namespace, sent on a connection to a node that
// does not serve that slot, is sent again after the MOVED as it was sent
// the first time, namespaced (the redirect sent the command as written:
// SET foo outside the run's keys, on a user's cluster).
func TestRedirectSendsTheNamespacedCommand(t *testing.T) {
	f, err := cases.Load("redirect.yaml", []byte(`suite: redirect
cases:
  - name: a literal key on another node's connection
    steps:
      - {conn: {name: b, node: other}, send: [SET, foo, v], reply: "+OK\r\n"}
      - {send: [GET, foo], value: v}
`))
	if err != nil {
		t.Fatal(err)
	}
	cl := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	rep := run(t, cl.Nodes[0].Addr(), []*cases.File{f}, runner.Options{Shared: true, Protos: []int{2}})
	for _, res := range rep.Results {
		if res.Status != runner.Pass {
			t.Errorf("RESP%d: %s: %s", res.Proto, res.Status, res.Reason)
		}
		redirects := 0
		for _, sr := range res.Steps {
			redirects += len(sr.Redirects)
		}
		if redirects != 1 {
			t.Errorf("RESP%d: %d redirects followed, want 1", res.Proto, redirects)
		}
	}
	for _, n := range cl.Nodes {
		c, err := target.Config{Addr: n.Addr()}.Dial(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := c.Do("DBSIZE"); err != nil || v.Int != 0 {
			t.Errorf("node %s after the run: DBSIZE %v %v, want 0", n.Addr(), v, err)
		}
		c.Close()
	}
}
