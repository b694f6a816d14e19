package target

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestSettle gives a slot away on its owner alone (CLUSTER SETSLOT NODE
// on the source, not on the destination): the source routes the slot to
// the destination, which still routes it to the source, a disagreement
// no gossip repairs, and Settle says so at its limit. Once the
// destination takes the slot too (bumping its config epoch), the cluster
// settles and Settle returns nil.
func TestSettle(t *testing.T) {
	cl := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	ctx := context.Background()
	tg, err := Open(ctx, Config{Addr: cl.Nodes[0].Addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Settle(ctx, time.Second); err != nil {
		t.Fatalf("a fresh cluster: %v", err)
	}
	slot := Slot([]byte("settle"))
	src, _ := tg.Topology.Owner(slot)
	dst := tg.Topology.Shards[0]
	if dst.Primary.ID == src.Primary.ID {
		dst = tg.Topology.Shards[1]
	}
	setslot := func(addr, node string) {
		t.Helper()
		c, err := tg.NodeConfig(addr).Dial(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if v, err := c.Do("CLUSTER", "SETSLOT", strconv.Itoa(slot), "NODE", node); err != nil || string(v.Str) != "OK" {
			t.Fatalf("SETSLOT on %s: %q %v", addr, v.Str, err)
		}
	}
	setslot(src.Primary.Addr, dst.Primary.ID)
	err = tg.Settle(ctx, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "describe the primaries differently") {
		t.Fatalf("slot given away on its source only: Settle returned %v", err)
	}
	t.Log(err)
	setslot(dst.Primary.Addr, dst.Primary.ID)
	start := time.Now()
	if err := tg.Settle(ctx, 10*time.Second); err != nil {
		t.Fatalf("the destination took the slot: %v", err)
	}
	t.Logf("settled %v after the destination took the slot", time.Since(start))
}

// TestSharedEpoch reads the primaries of a CLUSTER NODES reply (replicas,
// importing marks and hostnames left out) and finds two primaries serving
// slots with one config epoch.
func TestSharedEpoch(t *testing.T) {
	nodes := "" +
		"aaaa 127.0.0.1:7000@17000,host myself,master - 0 0 3 connected 0-5460 [5461-<-bbbb]\n" +
		"bbbb 127.0.0.1:7001@17001 master - 0 1 3 connected 5461-10922\n" +
		"cccc 127.0.0.1:7002@17002 master - 0 1 5 connected 10923-16383\n" +
		"dddd 127.0.0.1:7003@17003 slave aaaa 0 1 3 connected\n" +
		"eeee 127.0.0.1:7004@17004 master - 0 1 3 connected\n"
	view := primaries(nodes)
	want := []string{"aaaa 3 0-5460", "bbbb 3 5461-10922", "cccc 5 10923-16383", "eeee 3"}
	if strings.Join(view, "|") != strings.Join(want, "|") {
		t.Fatalf("primaries: %q, want %q", view, want)
	}
	if got := sharedEpoch(view); got != "primaries aaaa and bbbb with config epoch 3" {
		t.Errorf("sharedEpoch: %q", got)
	}
	if got := sharedEpoch(want[2:]); got != "" {
		t.Errorf("sharedEpoch of distinct epochs: %q", got)
	}
}
