package main

import (
	"context"
	"strings"

	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/servers"
)

// clusterFlags shape a throwaway cluster: --cluster N primaries (with
// --server or --server-bin, or the build found on PATH), --replicas R each.
type clusterFlags struct {
	primaries int
	replicas  int
}

func (f *clusterFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&f.primaries, "cluster", 0, "start a throwaway cluster of `N` primaries (at least 3) of the build instead of one server, created with the build's own redis-cli/valkey-cli --cluster create; an existing cluster (--addr/-u of any node) is recognised without it")
	fl.IntVar(&f.replicas, "replicas", 0, "replicas of each primary of the throwaway --cluster")
}

// check validates the flags against the target flags.
func (f clusterFlags) check(tf targetFlags) error {
	switch {
	case f.primaries == 0 && f.replicas != 0:
		return usageErr("--replicas needs --cluster N")
	case f.primaries == 0:
		return nil
	case f.primaries < 3:
		return usageErr("bad --cluster %d: a cluster needs at least 3 primaries", f.primaries)
	case f.replicas < 0:
		return usageErr("bad --replicas %d", f.replicas)
	case tf.named():
		return usageErr("--cluster N starts a throwaway cluster; against --addr/-u a cluster is recognised by itself (INFO's redis_mode): drop --cluster")
	case tf.server == "miniredis":
		return usageErr("miniredis has no cluster mode")
	}
	return nil
}

// clusterNodes is a throwaway cluster as one throwaway target: its address
// is the first primary's (the seed the runner discovers the topology
// from); it has exited when any node has.
type clusterNodes struct{ *servers.Cluster }

// spawnCluster starts the throwaway cluster of f for the build spawn would
// start.
func spawnCluster(ctx context.Context, bin, name string, f clusterFlags) (throwaway, error) {
	b, err := findBuild(bin, name)
	if err != nil {
		return nil, err
	}
	c, err := servers.StartCluster(ctx, b, servers.ClusterOptions{Primaries: f.primaries, Replicas: f.replicas})
	if err != nil {
		return nil, err
	}
	return clusterNodes{c}, nil
}

func (c clusterNodes) Addr() string { return c.Nodes[0].Addr() }
func (c clusterNodes) Pid() int     { return c.Nodes[0].Pid() }

// Exited reports whether a node's process has ended.
func (c clusterNodes) Exited() bool {
	for _, s := range c.Nodes {
		if s.Exited() {
			return true
		}
	}
	return false
}

// Log is the log tail of the nodes that exited, else of the first node.
func (c clusterNodes) Log() string {
	var b strings.Builder
	for _, s := range c.Nodes {
		if s.Exited() {
			b.WriteString("node " + s.Addr() + ":\n" + s.Log())
		}
	}
	if b.Len() == 0 {
		return c.Nodes[0].Log()
	}
	return b.String()
}
