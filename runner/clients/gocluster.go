package clients

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/valkey-io/valkey-go"
)

// The Go cluster configurations (see ClusterVariant). None of these
// libraries pins a connection of its cluster client (go-redis's
// ClusterClient has no Conn(); a rueidis or valkey-go DedicatedClient of a
// cluster keeps the node of its first command's slot and follows no MOVED
// or ASK), so each case connection is a cluster client of its own, whose
// connection to each node is then that case connection's.

// goRedisClusterDriver drives go-redis's ClusterClient: it routes each
// command by its first key (the positions from COMMAND, which it asks
// itself), a keyless one to a random node, and follows MOVED and ASK
// (MaxRedirects, 3). A MULTI … EXEC block goes through
// ClusterClient.TxPipelined, each command by pipe.Do: go-redis v9.23.0
// sends MULTI, the commands and EXEC on one connection of the master of
// the commands' one slot (keyless ones join it; more than one slot is
// ErrCrossSlot, osscluster.go processTxPipeline) and, as Conn.TxPipelined
// does, stamps an EXECABORT on each command and returns no value of its
// own for EXEC.
var goRedisClusterDriver = &goLibrary{name: "go-redis/cluster", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	tx:  true,
	api: "ClusterClient.Do(ctx, args...); ClusterClient.TxPipelined(ctx, fn) of pipe.Do(ctx, args...) for MULTI … EXEC; one ClusterClient per case connection",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		seeds := strings.Split(addr, ",")
		return newPinnedSession(func(context.Context) (*redis.ClusterClient, error) {
			return redis.NewClusterClient(&redis.ClusterOptions{
				Addrs: seeds, Protocol: proto,
				MaxRetries:   -1,
				DialTimeout:  5 * time.Second,
				ReadTimeout:  time.Minute, // respcheck enforces the step deadline itself
				WriteTimeout: time.Minute,
				PoolSize:     4,
			}), nil
		}, func(c *redis.ClusterClient) Conn { return goRedisClusterConn{c} },
			func(c *redis.ClusterClient) { c.Close() }, nil), nil
	}}

// goRedisClusterConn is one case connection of go-redis/cluster.
type goRedisClusterConn struct{ c *redis.ClusterClient }

func (c goRedisClusterConn) Do(ctx context.Context, args [][]byte) Native {
	v, err := c.c.Do(ctx, anyArgs(args)...).Result()
	return goRedisNative(v, err)
}

// Pipeline is not called on a cluster configuration (only its
// transactions are batches): it runs cmds through ClusterClient.Pipelined.
func (c goRedisClusterConn) Pipeline(ctx context.Context, cmds [][][]byte) []Native {
	return goRedisBatch(ctx, c.c.Pipelined, cmds)
}

// Transaction runs cmds through ClusterClient.TxPipelined.
func (c goRedisClusterConn) Transaction(ctx context.Context, cmds [][][]byte) ([]Native, *Native) {
	return goRedisBatch(ctx, c.c.TxPipelined, cmds), nil
}

// rueidisClusterDriver drives rueidis's cluster client (NewClient on a
// cluster seed, which it recognises by CLUSTER SHARDS or SLOTS): Client.Do
// of an Arbitrary command whose slot is its key's, the first argument that
// holds a hash tag (what a user declares with Keys; the generic builder
// has no key positions of its own), else keyless (a random node); it
// follows MOVED and ASK. A MULTI … EXEC block is one Client.DoMulti of
// MULTI, the commands (each with its slot, as Do's) and EXEC, as rueidis's
// README writes a transaction: rueidis v1.0.79 sends the keyless MULTI
// and EXEC to the node of the commands' slot (cluster.go _pickMulti), in
// order on its connection, and gives each command its RedisResult (its
// QUEUED or queue-time error) and EXEC's.
var rueidisClusterDriver = &goLibrary{name: "rueidis/cluster", module: "github.com/redis/rueidis", protos: []int{2, 3},
	tx:  true,
	api: "Client.Do(ctx, B().Arbitrary(args...).Build().SetSlot(key)); Client.DoMulti(ctx, MULTI, cmds..., EXEC) for MULTI … EXEC; one cluster Client per case connection",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		seeds := strings.Split(addr, ",")
		return newPinnedSession(func(context.Context) (rueidis.Client, error) {
			return rueidis.NewClient(rueidis.ClientOption{
				InitAddress: seeds, DisableCache: true, AlwaysRESP2: proto == 2, DisableRetry: true,
				ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
			})
		}, func(c rueidis.Client) Conn {
			build := func(args [][]byte) rueidis.Completed {
				cmd := c.B().Arbitrary(strArgs(args)...).Build()
				if k := taggedArg(args); k != "" {
					cmd = cmd.SetSlot(k)
				}
				return cmd
			}
			return multiConn{func(ctx context.Context, args [][]byte) Native { return rueidisNative(c.Do(ctx, build(args))) },
				func(ctx context.Context, cmds [][][]byte) []Native {
					var out []Native
					for _, r := range c.DoMulti(ctx, slotted(cmds, build)...) {
						out = append(out, rueidisNative(r))
					}
					return out
				}}
		}, func(c rueidis.Client) { c.Close() }, nil), nil
	}}

// valkeyGoClusterDriver is rueidisClusterDriver for valkey-go (a fork of
// rueidis; v1.0.79's cluster.go _pickMulti routes MULTI and EXEC as
// rueidis's does).
var valkeyGoClusterDriver = &goLibrary{name: "valkey-go/cluster", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	tx:  true,
	api: "Client.Do(ctx, B().Arbitrary(args...).Build().SetSlot(key)); Client.DoMulti(ctx, MULTI, cmds..., EXEC) for MULTI … EXEC; one cluster Client per case connection",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		seeds := strings.Split(addr, ",")
		return newPinnedSession(func(context.Context) (valkey.Client, error) {
			return valkey.NewClient(valkey.ClientOption{
				InitAddress: seeds, DisableCache: true, AlwaysRESP2: proto == 2, DisableRetry: true,
				ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
			})
		}, func(c valkey.Client) Conn {
			build := func(args [][]byte) valkey.Completed {
				cmd := c.B().Arbitrary(strArgs(args)...).Build()
				if k := taggedArg(args); k != "" {
					cmd = cmd.SetSlot(k)
				}
				return cmd
			}
			return multiConn{func(ctx context.Context, args [][]byte) Native { return valkeyGoNative(c.Do(ctx, build(args))) },
				func(ctx context.Context, cmds [][][]byte) []Native {
					var out []Native
					for _, r := range c.DoMulti(ctx, slotted(cmds, build)...) {
						out = append(out, valkeyGoNative(r))
					}
					return out
				}}
		}, func(c valkey.Client) { c.Close() }, nil), nil
	}}

// taggedArg is the first argument after the command name that holds a
// non-empty hash tag ("{...}"): the key a cluster client routes by, as the
// cases' keys all carry the case's tag (cases.KeyPrefix); "" if none.
func taggedArg(args [][]byte) string {
	for _, a := range args[min(1, len(args)):] {
		s := string(a)
		if i := strings.IndexByte(s, '{'); i >= 0 {
			if j := strings.IndexByte(s[i+1:], '}'); j > 0 {
				return s
			}
		}
	}
	return ""
}

// slotted builds each command of cmds with build (a cluster client's
// Arbitrary command with the slot of its tagged argument, see taggedArg).
func slotted[C any](cmds [][][]byte, build func([][]byte) C) []C {
	out := make([]C, len(cmds))
	for i, a := range cmds {
		out[i] = build(a)
	}
	return out
}
