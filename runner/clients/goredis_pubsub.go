package clients

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/push"
)

// goRedisPubsubDriver is go-redis's "/pubsub" configuration: a case
// connection's (P|S)(UN)SUBSCRIBE goes through a PubSub of its own
// (Client.Subscribe(ctx) with no channels, then PubSub.Subscribe,
// PSubscribe, SSubscribe, Unsubscribe, ...), whose first confirmation
// PubSub.Receive gives (*redis.Subscription); each push step is the next
// value of PubSub.ReceiveTimeout (*redis.Message, *redis.Subscription,
// *redis.Pong), and an invalidation push the handler
// Client.RegisterPushNotificationHandler("invalidate", ...) received
// (go-redis v9.23.0 has no client-side cache; it reads a pinned Conn's
// pushes before that Conn's next reply, not while it is idle). While
// the PubSub has subscriptions, PING is PubSub.Ping and its Pong, and
// other commands have no call (skipped); steps before the first subscribe
// and after the last unsubscribe go through Conn.Do.
var goRedisPubsubDriver = &goLibrary{name: "go-redis/pubsub", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	pubsub: pubsubOwn,
	api:    "Client.Subscribe(ctx) PubSub: Subscribe/PSubscribe/SSubscribe/Unsubscribe/... and Receive; Client.RegisterPushNotificationHandler(\"invalidate\"); Conn.Do otherwise",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, MaxRetries: -1,
			DialTimeout: 5 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute, PoolSize: 32})
		// The handler is the client's (its connections share one
		// processor: a second registration fails), so the invalidations of
		// every case connection share one queue.
		inv := newDeliveries()
		if err := rdb.RegisterPushNotificationHandler("invalidate", goRedisInvalidations{inv}, false); err != nil && proto == 3 {
			return nil, err
		}
		return newPinnedSession(func(context.Context) (*goRedisPubConn, error) {
			return &goRedisPubConn{rdb: rdb, c: rdb.Conn(), inv: inv}, nil
		}, func(c *goRedisPubConn) Conn { return c }, (*goRedisPubConn).close, rdb.Close), nil
	}}

// goRedisPubConn is one case connection of go-redis/pubsub: its pinned
// Conn, and its PubSub once it subscribed.
type goRedisPubConn struct {
	rdb *redis.Client
	c   *redis.Conn
	ps  *redis.PubSub
	// count is the subscription count of the last confirmation received.
	count int
	inv   *deliveries
}

func (c *goRedisPubConn) close() {
	if c.ps != nil {
		c.ps.Close()
	}
	c.c.Close()
}

// goRedisInvalidations queues the invalidations go-redis hands its
// push-notification handler.
type goRedisInvalidations struct{ d *deliveries }

// HandlePushNotification queues ["invalidate", keys].
func (h goRedisInvalidations) HandlePushNotification(_ context.Context, _ push.NotificationHandlerContext, n []interface{}) error {
	var keys any
	if len(n) > 1 {
		keys = n[1]
	}
	h.d.put(messageOf("[]interface {} (push notification)", "kind", "invalidate", "keys", keys))
	return nil
}

// Do runs args on the pinned Conn, or on the PubSub while it has
// subscriptions (PING only).
func (c *goRedisPubConn) Do(ctx context.Context, args [][]byte) Native {
	if c.ps == nil || c.count == 0 {
		v, err := c.c.Do(ctx, anyArgs(args)...).Result()
		return goRedisNative(v, err)
	}
	if !strings.EqualFold(string(args[0]), "PING") {
		return unsupported(fmt.Sprintf("go-redis PubSub has no call for %s (only the subscribe family and Ping)", args[0]))
	}
	var payload []string
	for _, a := range args[1:] {
		payload = append(payload, string(a))
	}
	if err := c.ps.Ping(ctx, payload...); err != nil {
		return goRedisNative(nil, err)
	}
	return c.receive(ctx, 4*time.Second)
}

// Subscribe sends args through the PubSub and returns the first value
// Receive gives after it.
func (c *goRedisPubConn) Subscribe(ctx context.Context, args [][]byte) Native {
	if c.ps == nil {
		c.ps = c.rdb.Subscribe(ctx)
	}
	chans := strArgs(args[1:])
	calls := map[string]func(context.Context, ...string) error{
		"SUBSCRIBE": c.ps.Subscribe, "PSUBSCRIBE": c.ps.PSubscribe, "SSUBSCRIBE": c.ps.SSubscribe,
		"UNSUBSCRIBE": c.ps.Unsubscribe, "PUNSUBSCRIBE": c.ps.PUnsubscribe, "SUNSUBSCRIBE": c.ps.SUnsubscribe,
	}
	call := calls[strings.ToUpper(string(args[0]))]
	if call == nil {
		return unsupported("not a subscribe command: " + string(args[0]))
	}
	if err := call(ctx, chans...); err != nil {
		return goRedisNative(nil, err)
	}
	return c.receive(ctx, 4*time.Second)
}

// Next is the next value of PubSub.ReceiveTimeout, or of the invalidation
// handler for an invalidate push.
func (c *goRedisPubConn) Next(ctx context.Context, kind string, wait time.Duration) Native {
	if kind == "invalidate" {
		n := c.inv.take(ctx, wait, func(string) bool { return true })
		if n.Kind == kindNone {
			// Not a hang: go-redis reads a pinned Conn's pushes only when
			// the Conn is next used.
			return unsupported("nothing delivered yet: go-redis reads a pinned Conn's push notifications before its next command, not while it is idle")
		}
		return n
	}
	if c.ps == nil {
		return unsupported("go-redis delivers " + kind + " frames through a PubSub only, and this connection has none")
	}
	return c.receive(ctx, wait)
}

// receive converts what PubSub.ReceiveTimeout gave.
func (c *goRedisPubConn) receive(ctx context.Context, wait time.Duration) Native {
	v, err := c.ps.ReceiveTimeout(ctx, wait)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Native{Kind: kindNone, Type: "none"}
	}
	if err != nil {
		return goRedisNative(nil, err)
	}
	typ := fmt.Sprintf("%T", v)
	switch m := v.(type) {
	case *redis.Subscription:
		c.count = m.Count
		return messageOf(typ, "kind", m.Kind, "channel", m.Channel, "count", int64(m.Count))
	case *redis.Message:
		fields := []any{"channel", m.Channel}
		if m.Pattern != "" {
			fields = append(fields, "pattern", m.Pattern)
		}
		if m.PayloadSlice != nil {
			fields = append(fields, "payload", m.PayloadSlice)
		} else {
			fields = append(fields, "payload", m.Payload)
		}
		return messageOf(typ, fields...)
	case *redis.Pong:
		return messageOf(typ, "kind", "pong", "payload", m.Payload)
	}
	return goNative(v)
}
