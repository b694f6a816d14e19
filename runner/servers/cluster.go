package servers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// ClusterOptions shape a throwaway cluster.
type ClusterOptions struct {
	// Primaries is the number of primaries (at least 3, as redis-cli
	// --cluster create requires).
	Primaries int
	// Replicas is the number of replicas of each primary.
	Replicas int
	// Server is passed to every node's Start (ExtraArgs come after the
	// cluster's own arguments).
	Server Options
	// ReadyTimeout bounds the wait for every node to report
	// cluster_state:ok with all 16384 slots assigned; 30s when zero.
	ReadyTimeout time.Duration
	// TLS, when set, gives every node a TLS port besides its plain one
	// (Cluster.TLSAddrs) with these files, and makes the cluster bus and
	// replication use TLS (tls-cluster yes, tls-replication yes); clients
	// need no certificate (tls-auth-clients no). The build must have TLS
	// (Build.TLS). The CLI and the readiness checks use the plain ports.
	TLS *TLSFiles
}

// TLSFiles are the PEM files of a TLS server: its certificate, key and the
// CA that signed it (which the nodes also verify each other with).
type TLSFiles struct {
	Cert, Key, CA string
}

// password returns the --requirepass of opt.Server.ExtraArgs (the last
// one), which the CLI and the readiness checks authenticate with, or "".
// Replicas need the same as --masterauth to sync.
func (opt ClusterOptions) password() string {
	pw := ""
	for i, a := range opt.Server.ExtraArgs {
		if a == "--requirepass" && i+1 < len(opt.Server.ExtraArgs) {
			pw = opt.Server.ExtraArgs[i+1]
		}
	}
	return pw
}

// Cluster is a throwaway Redis Cluster or Valkey cluster started by
// StartCluster: its nodes run on 127.0.0.1 with free ports, in cluster mode,
// joined by the build's own CLI (redis-cli or valkey-cli --cluster create).
type Cluster struct {
	// Nodes are the servers, primaries first (in the order --cluster create
	// was given them, which makes the first Primaries nodes the primaries)
	// then replicas.
	Nodes []*Server
	// Primaries is the number of primaries.
	Primaries int
	// TLSAddrs are the nodes' TLS host:port addresses, in Nodes order
	// (ClusterOptions.TLS), else nil.
	TLSAddrs []string
	build    Build
	password string
}

// Cli returns the build's command-line client: redis-cli or valkey-cli next
// to the server binary.
func (b Build) Cli() string {
	return filepath.Join(filepath.Dir(b.Bin), b.Family+"-cli")
}

// StartCluster starts opt.Primaries × (1 + opt.Replicas) nodes of b with
// cluster-enabled, creates the cluster with `<cli> --cluster create …
// --cluster-replicas R --cluster-yes` (about a second on loopback), and
// waits until every node reports cluster_state:ok and cluster_slots_ok:16384
// and knows every other node, and every replica has synced with its
// primary. On error every node started is stopped.
func StartCluster(ctx context.Context, b Build, opt ClusterOptions) (*Cluster, error) {
	if opt.Primaries < 3 {
		return nil, fmt.Errorf("servers: a cluster needs at least 3 primaries (got %d)", opt.Primaries)
	}
	if opt.Replicas < 0 {
		return nil, fmt.Errorf("servers: negative replica count %d", opt.Replicas)
	}
	if opt.ReadyTimeout <= 0 {
		opt.ReadyTimeout = 30 * time.Second
	}
	c := &Cluster{Primaries: opt.Primaries, build: b, password: opt.password()}
	n := opt.Primaries * (1 + opt.Replicas)
	for range n {
		nodeOpt := opt.Server
		nodeOpt.ExtraArgs = []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "3000",
		}
		if opt.TLS != nil {
			// The TLS port is picked at each start attempt, as the main
			// port: a port taken meanwhile (its cluster bus port is the TLS
			// port + 10000) is retried with others.
			nodeOpt.TLSPort = true
			nodeOpt.ExtraArgs = append(nodeOpt.ExtraArgs,
				"--tls-cert-file", opt.TLS.Cert, "--tls-key-file", opt.TLS.Key, "--tls-ca-cert-file", opt.TLS.CA,
				"--tls-cluster", "yes", "--tls-replication", "yes", "--tls-auth-clients", "no")
		}
		nodeOpt.ExtraArgs = append(nodeOpt.ExtraArgs, opt.Server.ExtraArgs...)
		s, err := Start(ctx, b, nodeOpt)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
		if p := s.TLSPort(); p != 0 {
			c.TLSAddrs = append(c.TLSAddrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		}
	}
	if err := c.create(ctx, opt.Replicas); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.waitReady(ctx, opt.ReadyTimeout); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// create runs the CLI's --cluster create.
func (c *Cluster) create(ctx context.Context, replicas int) error {
	var args []string
	if c.password != "" {
		args = append(args, "-a", c.password, "--no-auth-warning")
	}
	args = append(args, "--cluster", "create")
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.build.Cli(), args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("servers: %s --cluster create: %w\n%s", filepath.Base(c.build.Cli()), err, indentLog(string(out)))
	}
	return nil
}

// waitReady polls CLUSTER INFO on every node until each is ok with every
// slot assigned and sees every node.
func (c *Cluster) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		last = ""
		for i, s := range c.Nodes {
			if last = c.nodeReady(i, s); last != "" {
				break
			}
		}
		if last == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("servers: cluster not ready after %v: %s", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// nodeReady returns what node i still waits for, or "": cluster_state:ok
// with every slot assigned and every node known, and for a replica a
// finished first sync (INFO replication: master_link_status:up and
// master_sync_in_progress:0), so that WAIT and READONLY reads work at once.
func (c *Cluster) nodeReady(i int, s *Server) string {
	info, err := infoText(s.Addr(), c.password, "CLUSTER", "INFO")
	if err != nil {
		return fmt.Sprintf("%s: %v", s.Addr(), err)
	}
	if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") ||
		!strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(len(c.Nodes))+"\r\n") {
		return fmt.Sprintf("%s: %s", s.Addr(), strings.Join(strings.Fields(info), " "))
	}
	if i < c.Primaries {
		return ""
	}
	repl, err := infoText(s.Addr(), c.password, "INFO", "replication")
	if err != nil {
		return fmt.Sprintf("%s: %v", s.Addr(), err)
	}
	if !strings.Contains(repl, "master_link_status:up") || !strings.Contains(repl, "master_sync_in_progress:0") {
		return fmt.Sprintf("replica %s not in sync: %s", s.Addr(), strings.Join(strings.Fields(repl), " "))
	}
	return ""
}

// infoText sends a command on a new connection (after AUTH password when
// one is set) and returns its reply's text (CLUSTER INFO, INFO
// replication).
func infoText(addr, password string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	var cmd []byte
	if password != "" {
		cmd = resp.AppendCommandString(cmd, "AUTH", password)
	}
	if _, err := c.Write(resp.AppendCommandString(cmd, args...)); err != nil {
		return "", err
	}
	r := resp.NewReader(c)
	if password != "" {
		if v, err := r.Read(); err != nil || v.Kind != resp.SimpleString {
			return "", fmt.Errorf("AUTH: %v %s", err, resp.Escape(v.Raw))
		}
	}
	v, err := r.Read()
	if err != nil {
		return "", err
	}
	if v.Kind != resp.BlobString && v.Kind != resp.VerbatimString {
		return "", fmt.Errorf("%s replied %s", strings.Join(args, " "), resp.Escape(v.Raw))
	}
	return string(v.Str), nil
}

// Addrs returns the nodes' host:port addresses, in Nodes order.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		out[i] = s.Addr()
	}
	return out
}

// Build returns the build the nodes run.
func (c *Cluster) Build() Build { return c.build }

// Stop stops every node (see Server.Stop) and joins their errors.
func (c *Cluster) Stop() error {
	var errs []error
	for _, s := range c.Nodes {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}

// ClusterForTest starts a cluster of the named build for a test and stops
// it in t.Cleanup; a missing build fails under CI and skips otherwise (see
// ForTest), and so does, for opt.TLS, a build without TLS.
func ClusterForTest(t TB, name string, opt ClusterOptions) *Cluster {
	t.Helper()
	b := requireBuild(t, name)
	if opt.TLS != nil && !b.TLS() {
		msg := fmt.Sprintf("%s at %s was built without TLS; build it again with %s", name, b.Bin, installHint)
		if InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c, err := StartCluster(t.Context(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return c
}
