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
// (MaxRedirects, 3).
var goRedisClusterDriver = &goLibrary{name: "go-redis/cluster", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	api: "ClusterClient.Do(ctx, args...), one ClusterClient per case connection",
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
		}, func(c *redis.ClusterClient) Conn {
			return funcConn(func(ctx context.Context, args [][]byte) Native {
				v, err := c.Do(ctx, anyArgs(args)...).Result()
				return goRedisNative(v, err)
			})
		}, func(c *redis.ClusterClient) { c.Close() }, nil), nil
	}}

// rueidisClusterDriver drives rueidis's cluster client (NewClient on a
// cluster seed, which it recognises by CLUSTER SHARDS or SLOTS): Client.Do
// of an Arbitrary command whose slot is its key's, the first argument that
// holds a hash tag (what a user declares with Keys; the generic builder
// has no key positions of its own), else keyless (a random node); it
// follows MOVED and ASK.
var rueidisClusterDriver = &goLibrary{name: "rueidis/cluster", module: "github.com/redis/rueidis", protos: []int{2, 3},
	api: "Client.Do(ctx, B().Arbitrary(args...).Build().SetSlot(key)), one cluster Client per case connection",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		seeds := strings.Split(addr, ",")
		return newPinnedSession(func(context.Context) (rueidis.Client, error) {
			return rueidis.NewClient(rueidis.ClientOption{
				InitAddress: seeds, DisableCache: true, AlwaysRESP2: proto == 2, DisableRetry: true,
				ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
			})
		}, func(c rueidis.Client) Conn {
			return funcConn(func(ctx context.Context, args [][]byte) Native {
				cmd := c.B().Arbitrary(strArgs(args)...).Build()
				if k := taggedArg(args); k != "" {
					cmd = cmd.SetSlot(k)
				}
				return rueidisNative(c.Do(ctx, cmd))
			})
		}, func(c rueidis.Client) { c.Close() }, nil), nil
	}}

// valkeyGoClusterDriver is rueidisClusterDriver for valkey-go (a fork of
// rueidis).
var valkeyGoClusterDriver = &goLibrary{name: "valkey-go/cluster", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	api: "Client.Do(ctx, B().Arbitrary(args...).Build().SetSlot(key)), one cluster Client per case connection",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		seeds := strings.Split(addr, ",")
		return newPinnedSession(func(context.Context) (valkey.Client, error) {
			return valkey.NewClient(valkey.ClientOption{
				InitAddress: seeds, DisableCache: true, AlwaysRESP2: proto == 2, DisableRetry: true,
				ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
			})
		}, func(c valkey.Client) Conn {
			return funcConn(func(ctx context.Context, args [][]byte) Native {
				cmd := c.B().Arbitrary(strArgs(args)...).Build()
				if k := taggedArg(args); k != "" {
					cmd = cmd.SetSlot(k)
				}
				return valkeyGoNative(c.Do(ctx, cmd))
			})
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
