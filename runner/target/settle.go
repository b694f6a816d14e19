package target

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// settlePoll is the wait between two looks at a cluster that has not
// settled yet.
const settlePoll = 20 * time.Millisecond

// Settle waits, at most limit, until every node of the cluster describes
// its primaries alike in CLUSTER NODES (the same id, config epoch and
// slots for each) and no two primaries that serve slots share a config
// epoch. A case that moves a slot leaves a cluster that has not settled for
// some milliseconds: the source bumped its config epoch when it took the
// slot back, and a destination that has not heard of that bump yet claims
// the slot of the next migration with an epoch that loses to the source's
// older claim, after which source and destination send each other MOVED
// forever (Redis 8.6.3 cluster 3x1, a migration that followed another
// between the same nodes under load: 10 MOVED in a row, alternating).
// Redis's own cluster tests wait the same way between such steps
// (wait_for_cluster_propagation). It returns nil for a standalone target
// and for a cluster that does not answer CLUSTER NODES (a managed service
// may refuse it), else an error saying what still differs at the limit.
func (t *Target) Settle(ctx context.Context, limit time.Duration) error {
	topo := t.Current()
	if topo == nil {
		return nil
	}
	deadline := time.Now().Add(limit)
	for {
		differ, err := t.unsettled(ctx, topo.Nodes())
		if err != nil || differ == "" {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the cluster had not settled after %v: %s", limit, differ)
		}
		time.Sleep(settlePoll)
	}
}

// unsettled returns what differs between the nodes' views of the
// primaries, "" when nothing does.
func (t *Target) unsettled(ctx context.Context, nodes []Node) (string, error) {
	var first []string
	firstAddr := ""
	for _, n := range nodes {
		view, err := t.primariesView(ctx, n.Addr)
		if err != nil {
			return "", err
		}
		if dup := sharedEpoch(view); dup != "" {
			return fmt.Sprintf("%s sees %s", n.Addr, dup), nil
		}
		if firstAddr == "" {
			first, firstAddr = view, n.Addr
		} else if !slices.Equal(view, first) {
			return fmt.Sprintf("%s and %s describe the primaries differently (%q, %q)", firstAddr, n.Addr, onlyIn(first, view), onlyIn(view, first)), nil
		}
	}
	return "", nil
}

// primariesView returns one line per primary that CLUSTER NODES on the
// node at addr lists: "id epoch slot-range...", sorted. The node's own
// importing and migrating marks ("[slot-<-id]") are left out: only the
// node itself shows them.
func (t *Target) primariesView(ctx context.Context, addr string) ([]string, error) {
	cfg := t.NodeConfig(addr)
	cfg.Timeout = time.Second
	c, err := cfg.Dial(ctx, 2)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v, err := c.Do("CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	if v.Kind != resp.BlobString && v.Kind != resp.VerbatimString {
		return nil, &ReplyError{Cmd: "CLUSTER NODES", Reply: v.Clone()}
	}
	return primaries(string(v.Str)), nil
}

// primaries reads the primaries of a CLUSTER NODES reply as primariesView
// returns them.
func primaries(nodes string) []string {
	var view []string
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) < 8 || !slices.Contains(strings.Split(f[2], ","), "master") {
			continue
		}
		slots := slices.DeleteFunc(f[8:], func(s string) bool { return strings.HasPrefix(s, "[") })
		view = append(view, strings.Join(append([]string{f[0], f[6]}, slots...), " "))
	}
	slices.Sort(view)
	return view
}

// onlyIn returns the lines of a that b lacks, joined by "; ".
func onlyIn(a, b []string) string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

// sharedEpoch names two primaries of view that serve slots with the same
// config epoch, or returns "".
func sharedEpoch(view []string) string {
	owner := map[string]string{}
	for _, line := range view {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue // serves no slot
		}
		if id, dup := owner[f[1]]; dup {
			return fmt.Sprintf("primaries %.8s and %.8s with config epoch %s", id, f[0], f[1])
		}
		owner[f[1]] = f[0]
	}
	return ""
}
