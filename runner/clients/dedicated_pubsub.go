package clients

import (
	"context"
	"strings"
	"time"
)

// dedicatedPubsubAPI is the API of rueidis/pubsub and valkey-go/pubsub.
const dedicatedPubsubAPI = "DedicatedClient.SetPubSubHooks and SetOnInvalidations; Do(ctx, B().Subscribe().Channel(...).Build()) and the other subscribe builders; Do(Arbitrary) otherwise"

// subscribeBuilder builds args (a subscribe command) with the library's
// builder of that command name, given the channels.
func subscribeBuilder[C any](args [][]byte, builders map[string]func(...string) C) (C, bool) {
	build, ok := builders[strings.ToUpper(string(args[0]))]
	if !ok {
		var zero C
		return zero, false
	}
	return build(strArgs(args[1:])...), true
}

// marshalAll serialises rueidis RedisMessages or valkey-go
// ValkeyMessages (CacheMarshal, see messageNative).
func marshalAll[M any, P interface {
	*M
	CacheMarshal([]byte) []byte
}](ms []M) [][]byte {
	out := make([][]byte, len(ms))
	for i := range ms {
		out[i] = P(&ms[i]).CacheMarshal(nil)
	}
	return out
}

// dedicatedPubsub is the subscriber of a rueidis or valkey-go dedicated
// connection (lib names the library's package): send sends a subscribe
// command; got holds what the hooks delivered, converted by message,
// subscription and invalidation.
type dedicatedPubsub struct {
	lib  string
	got  *deliveries
	send func(ctx context.Context, args [][]byte) Native
}

func newDedicatedPubsub(lib string) *dedicatedPubsub {
	return &dedicatedPubsub{lib: lib, got: newDeliveries()}
}

// message queues a PubSubMessage as delivered: Pattern is set for a
// pmessage only (the struct has no kind).
func (p *dedicatedPubsub) message(pattern, channel, payload string) {
	typ := p.lib + ".PubSubMessage"
	if pattern != "" {
		p.got.put(messageOf(typ, "pattern", pattern, "channel", channel, "payload", payload))
		return
	}
	p.got.put(messageOf(typ, "channel", channel, "payload", payload))
}

// subscription queues a PubSubSubscription.
func (p *dedicatedPubsub) subscription(kind, channel string, count int64) {
	p.got.put(messageOf(p.lib+".PubSubSubscription", "kind", kind, "channel", channel, "count", count))
}

// invalidation queues the keys SetOnInvalidations received (serialised
// messages), or nil (the whole cache) when isNil.
func (p *dedicatedPubsub) invalidation(isNil bool, keys [][]byte) {
	msg := map[string]string{"rueidis": "RedisMessage", "valkey": "ValkeyMessage"}[p.lib]
	typ := "[]" + p.lib + "." + msg
	n := Native{Kind: "nil", Type: typ + "(nil)"}
	if !isNil {
		n = Native{Kind: "list", Type: typ, Elems: []Native{}}
		for _, k := range keys {
			n.Elems = append(n.Elems, messageNative(msg, k))
		}
	}
	p.got.put(messageOf(typ, "kind", "invalidate", "keys", n))
}

// Subscribe sends args and returns the first confirmation the hooks
// delivered after it (or the call's error).
func (p *dedicatedPubsub) Subscribe(ctx context.Context, args [][]byte) Native {
	if n := p.send(ctx, args); n.Kind == "error" || n.Kind == "exception" || n.Kind == kindUnsupported {
		return n
	}
	return p.got.take(ctx, 4*time.Second, isConfirmation)
}

// Next returns the next item the hooks delivered.
func (p *dedicatedPubsub) Next(ctx context.Context, kind string, wait time.Duration) Native {
	return p.got.take(ctx, wait, func(string) bool { return true })
}
