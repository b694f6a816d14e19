package clients

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// ClusterVariant ends the label of a cluster configuration: the library's
// cluster client ("go-redis/cluster", "ioredis-6.0.0/cluster"), opened
// with the seed list of the proxy's listeners ("addr" is then a
// comma-separated list of host:port, the listener of the node that owns
// the case's slot first). A cluster configuration runs against a cluster
// target only; the other configurations run on a cluster too, connected to
// the listener of the node that owns the case's slot (where every key of
// a case that runs on a cluster lives: see clusterCaseSkip).
const ClusterVariant = "/cluster"

// IsCluster reports whether d is a cluster configuration (its label ends
// in ClusterVariant).
func IsCluster(d Driver) bool { return strings.HasSuffix(d.Library(), ClusterVariant) }

// notClusterTarget is why a cluster configuration skips a case on a
// standalone server.
const notClusterTarget = "a cluster configuration: runs against a cluster only (respcheck clients --cluster N, or --addr of a cluster node)"

// clusterTransactionSkip is why a cluster configuration without a
// transaction API on its cluster client skips a case that sends MULTI:
// through a cluster client's generic command API, MULTI, EXEC and DISCARD
// carry no key, and the library sends each to a node of its choice
// (node-redis 6.3.1's createCluster and valkey-glide 2.5.2's customCommand
// picked another node from one run to the next, leaving the owner of the
// case's slot inside MULTI: its replies were "QUEUED"), so what the case's
// commands meet depends on that choice, not on decoding.
const clusterTransactionSkip = "a cluster client sends MULTI, EXEC and DISCARD (no key) through its generic command API to a node of its choosing, and this library's cluster client has no transaction API respcheck drives"

// clusterTxLoose is why a cluster configuration that runs transactions
// through its cluster client's transaction API (see clusterTx) skips a
// case whose transaction is not one MULTI … EXEC block of plain sends on
// one case connection (multiBlock): a pipelined MULTI, a DISCARD, or a
// WATCH or UNWATCH, which that API takes no part in (the generic call
// sends WATCH on a pooled or multiplexed connection of the slot's node
// that the transaction need not use).
const clusterTxLoose = "a cluster client runs a transaction through its transaction API only as one MULTI … EXEC block: this case's %s would go through the generic call, to a connection of the library's choosing"

// clusterTx reports whether the cluster configuration d runs a MULTI …
// EXEC block through its cluster client's transaction API (its
// connections are Batchers, of which only Transaction is called). If not,
// why is the reason its cases with MULTI are skipped ("" when it gives
// none: clusterTransactionSkip).
func clusterTx(d Driver) (ok bool, why string) {
	if t, is := d.(interface{ clusterTx() (bool, string) }); is {
		return t.clusterTx()
	}
	return false, ""
}

// txOK reports whether the cluster configuration d runs transactions
// through its cluster client's transaction API (see clusterTx).
func txOK(d Driver) bool { ok, _ := clusterTx(d); return ok }

// txWord is the transaction command step st sends (MULTI, EXEC, DISCARD,
// WATCH or UNWATCH), or "".
func txWord(st *cases.Step) string {
	if st.Action != cases.ActSend || len(st.Send) == 0 {
		return ""
	}
	for _, w := range []string{"MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"} {
		if st.Send[0].IsWord(w) {
			return w
		}
	}
	return ""
}

// clusterTxSkip is why the cluster configuration d skips case c for its
// transactions, or "" (c sends none, or each is a block d's transaction
// API runs).
func clusterTxSkip(d Driver, c *cases.Case) string {
	if !slices.ContainsFunc(c.Steps, func(st *cases.Step) bool { return txWord(st) != "" }) {
		return ""
	}
	if ok, why := clusterTx(d); !ok {
		return cmp.Or(why, clusterTransactionSkip)
	}
	inBlock := map[*cases.Step]bool{}
	for _, g := range planBatches(c) {
		for _, st := range g.steps {
			inBlock[st] = g.mode == modeMulti
		}
	}
	for _, st := range c.Steps {
		if w := txWord(st); w != "" && !inBlock[st] {
			return fmt.Sprintf(clusterTxLoose, w+" at "+st.Pos.String())
		}
	}
	return ""
}

// migratesSlots reports whether a step of c sends CLUSTER SETSLOT (the
// case migrates a slot).
func migratesSlots(c *cases.Case) bool {
	for _, st := range c.Steps {
		if st.Action == cases.ActSend && len(st.Send) > 1 && st.Send[0].IsWord("CLUSTER") && st.Send[1].IsWord("SETSLOT") {
			return true
		}
	}
	return false
}

// clusterSkips returns, for a cluster target, why each case that cannot
// run there is skipped (see clusterCaseSkip), by case.
func clusterSkips(ctx context.Context, t *target.Target, items []item) map[*cases.Case]string {
	if t.Topology == nil {
		return nil
	}
	out := map[*cases.Case]string{}
	c, err := t.Dial(ctx, 2)
	if err != nil {
		return out // each session then meets the problem itself
	}
	defer c.Close()
	seen := map[*cases.Case]bool{}
	for _, it := range items {
		if seen[it.c] {
			continue
		}
		seen[it.c] = true
		if why := clusterCaseSkip(ctx, t, c, it.c); why != "" {
			out[it.c] = why
		}
	}
	return out
}

// clusterCaseSkip says why case c cannot run on a cluster, or "": a step
// of an unplaced connection of a literal_keys case touches a key
// (target.KeyPositions, with the key prefix of a probe) that is not under
// the case's key prefix, so not in the case's hash slot (the literal keys
// of other cases are moved there, see session.args). Steps whose
// arguments need a capture are not looked at.
func clusterCaseSkip(ctx context.Context, t *target.Target, c *target.Conn, cs *cases.Case) string {
	if !cs.LiteralKeys {
		return ""
	}
	env := &cases.Env{KeyPrefix: cases.KeyPrefix("cluster probe " + cs.ID()), Captures: map[string][]byte{}}
	for _, st := range cs.Steps {
		if st.Action != cases.ActSend || cs.ConnNode(st.Conn) != "" {
			continue
		}
		args, err := expandArgs(st, env)
		if err != nil || len(args) == 0 {
			continue
		}
		prefix := []byte(env.KeyPrefix)
		pos, err := t.KeyPositions(ctx, args, prefix, func(q [][]byte) ([][]byte, error) { return target.GetKeys(c.Do, q) })
		if err != nil {
			continue
		}
		for _, p := range pos {
			if !bytes.HasPrefix(args[p], prefix) {
				return fmt.Sprintf("not for a cluster: step %s touches key %s, outside the case's hash tag", st.Pos, resp.Escape(args[p]))
			}
		}
	}
	return ""
}

// clusterSeed is the node a session on a cluster starts from: the primary
// that owns the slot of the case's keys.
func clusterSeed(t *target.Target, keyPrefix string) (string, error) {
	n, err := t.Place(target.KeySlot(keyPrefix), "")
	return n.Addr, err
}

// placed reports whether step st's connection is one respcheck keeps to
// itself on a cluster: a connection the case places on a node (conn:
// {name, node: owner|other|replica}). A cluster client chooses nodes by
// key, so the steps a case sends to a given node (a slot migration's
// SETSLOT and MIGRATE) go there on respcheck's own connection, shown but
// not judged.
func (s *session) placed(st *cases.Step) bool {
	return s.t != nil && s.t.Topology != nil && s.it.c.ConnNode(st.Conn) != ""
}

// placedStep sends st on respcheck's own connection to its node (see
// placed) and shows the reply, unjudged (Skip).
func (s *session) placedStep(sv *StepView, st *cases.Step) {
	sv.Verdict = Skip
	args, err := s.args(st)
	if err != nil {
		sv.Notes = []string{fmt.Sprintf("not sent: %v", err)}
		return
	}
	sv.Args = args
	c, node, err := s.direct(st.Conn)
	if err != nil {
		sv.Notes = []string{fmt.Sprintf("connection %q: %v", st.Conn, err)}
		return
	}
	v, err := c.DoBytes(resp.AppendCommand(nil, args...))
	if err != nil {
		sv.Notes = []string{fmt.Sprintf("sent by respcheck to %s: %v", node, err)}
		return
	}
	sv.Reply = bytes.Clone(v.Raw)
	sv.Notes = []string{fmt.Sprintf("sent by respcheck on its own connection to %s (placed: node %s), not through the library: not judged",
		node, s.it.c.ConnNode(st.Conn))}
}

// direct returns respcheck's own connection name (opened on first use on
// the node the case places it on, RESP2).
func (s *session) direct(name string) (*target.Conn, string, error) {
	if dc, ok := s.directs[name]; ok {
		return dc.c, dc.node, nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.StepTimeout)
	defer cancel()
	c, n, err := s.t.DialSlot(ctx, 2, target.KeySlot(s.env.KeyPrefix), s.it.c.ConnNode(name))
	if err != nil {
		return nil, "", err
	}
	if s.directs == nil {
		s.directs = map[string]directConn{}
	}
	s.directs[name] = directConn{c, n.Addr}
	return c, n.Addr, nil
}

type directConn struct {
	c    *target.Conn
	node string
}

// cleanupSteps runs the case's cleanup steps on respcheck's own
// connections (on a cluster a placed connection's node, else the owner
// of the case's slot), whatever they answer: a case that moves its slot
// moves it back there, so that later cases find the topology the run
// discovered, and a case that changes the configuration (CONFIG SET
// busy-reply-threshold) restores it on a standalone server as on a
// cluster. It closes the direct connections.
func (s *session) cleanupSteps() {
	if s.t == nil {
		return
	}
	for _, st := range s.it.c.Cleanup {
		if st.Action != cases.ActSend {
			continue
		}
		args, err := s.args(st)
		if err != nil {
			continue
		}
		if c, _, err := s.direct(st.Conn); err == nil {
			c.DoBytes(resp.AppendCommand(nil, args...))
		}
	}
	for _, dc := range s.directs {
		dc.c.Close()
	}
}

// followRedirect, on a cluster, follows a MOVED or ASK reply the library
// received for its command x as the library did: the same command sent
// again after it, on another proxied connection (after ASKING for ASK),
// whose reply the library decoded instead. Each hop is a note of the view
// (the reply, and the node the command went to next). x is returned as
// it is when the library sent nothing more (it returned the redirect).
func (s *session) followRedirect(sv *StepView, pc *pinned, w wanted, x exchange) exchange {
	for hop := 0; hop < 5 && x.reply != nil && isRedirect(*x.reply); hop++ {
		x.tap.mu.Lock()
		w.from = x.tap.rec.events()[x.cmd].seq
		x.tap.mu.Unlock()
		w.own = nil
		nx, ok := s.proxy.claim(w)
		if !ok {
			return x
		}
		if nx.pending {
			for i := 0; i < 20 && nx.pending; i++ {
				time.Sleep(10 * time.Millisecond)
				nx = s.proxy.replyOf(nx)
			}
		}
		sv.Cluster = append(sv.Cluster, fmt.Sprintf("redirect: the library received %s on connection %d (node %s) and sent the command again on connection %d (node %s)",
			resp.Escape(x.reply.Raw), x.tap.ID, x.tap.Node, nx.tap.ID, nx.tap.Node))
		s.bind(pc, nx.tap)
		x = nx
	}
	return x
}

// isRedirect reports whether v is a MOVED or ASK error.
func isRedirect(v resp.Value) bool {
	return v.Kind == resp.SimpleError && (bytes.HasPrefix(v.Str, []byte("MOVED ")) || bytes.HasPrefix(v.Str, []byte("ASK ")))
}

// rewriteNote describes what the proxy changed in the reply x: the bytes
// the server sent, beside those the library received (sv.Reply).
func rewriteNote(x exchange) string {
	if x.tap == nil || x.reply == nil {
		return ""
	}
	x.tap.mu.Lock()
	defer x.tap.mu.Unlock()
	for _, e := range x.tap.rec.events()[x.cmd:] {
		if e.seq > 0 && e.Upstream != nil && bytes.Equal(e.Value.Raw, x.reply.Raw) {
			return "the proxy rewrote the node addresses in the reply: the server sent " + resp.Escape(e.Upstream)
		}
	}
	return ""
}
