package clients

import (
	"context"
	"strings"
	"time"

	"github.com/redis/rueidis"
	"github.com/valkey-io/valkey-go"
)

// rueidisPubsubDriver is rueidis's "/pubsub" configuration: each case
// connection is a DedicatedClient with DedicatedClient.SetPubSubHooks
// (OnMessage, OnSubscription: the non-blocking alternative to Receive,
// which blocks until the unsubscribe) and SetOnInvalidations (the
// invalidations of CLIENT TRACKING on a dedicated connection; DoCache, the
// client-side cache, exists on Client only, not on a DedicatedClient);
// (P|S)(UN)SUBSCRIBE go through the command builder (B().Subscribe()...,
// Arbitrary refuses them), and their first confirmation is the one
// OnSubscription delivered; each push step is the next item a hook
// delivered (PubSubMessage, PubSubSubscription, []RedisMessage).
var rueidisPubsubDriver = &goLibrary{name: "rueidis/pubsub", module: "github.com/redis/rueidis", protos: []int{2, 3},
	pubsub: pubsubSame,
	api:    "DedicatedClient.SetPubSubHooks and SetOnInvalidations; Do(ctx, B().Subscribe().Channel(...).Build()) and the other subscribe builders; Do(Arbitrary) otherwise",
	open: rueidisOpen(dedicatedCalls[rueidis.DedicatedClient]{do: rueidisDo,
		pubsub: func(dc rueidis.DedicatedClient) Subscriber {
			got := newDeliveries()
			dc.SetPubSubHooks(rueidis.PubSubHooks{
				OnMessage: func(m rueidis.PubSubMessage) {
					got.put(pubsubMessage("rueidis.PubSubMessage", m.Pattern, m.Channel, m.Message))
				},
				OnSubscription: func(s rueidis.PubSubSubscription) {
					got.put(messageOf("rueidis.PubSubSubscription", "kind", s.Kind, "channel", s.Channel, "count", s.Count))
				},
			})
			dc.SetOnInvalidations(func(keys []rueidis.RedisMessage) {
				got.put(invalidationOf("[]rueidis.RedisMessage", keys == nil, len(keys), func(i int) Native {
					return messageNative("RedisMessage", keys[i].CacheMarshal(nil))
				}))
			})
			return &dedicatedPubsub{got: got, send: func(ctx context.Context, args [][]byte) Native {
				b := dc.B()
				chans := strArgs(args[1:])
				cmd := map[string]func() rueidis.Completed{
					"SUBSCRIBE":    func() rueidis.Completed { return b.Subscribe().Channel(chans...).Build() },
					"PSUBSCRIBE":   func() rueidis.Completed { return b.Psubscribe().Pattern(chans...).Build() },
					"SSUBSCRIBE":   func() rueidis.Completed { return b.Ssubscribe().Channel(chans...).Build() },
					"UNSUBSCRIBE":  func() rueidis.Completed { return b.Unsubscribe().Channel(chans...).Build() },
					"PUNSUBSCRIBE": func() rueidis.Completed { return b.Punsubscribe().Pattern(chans...).Build() },
					"SUNSUBSCRIBE": func() rueidis.Completed { return b.Sunsubscribe().Channel(chans...).Build() },
				}[strings.ToUpper(string(args[0]))]
				if cmd == nil {
					return unsupported("not a subscribe command: " + string(args[0]))
				}
				return rueidisNative(dc.Do(ctx, cmd()))
			}}
		}})}

// valkeyGoPubsubDriver is valkey-go's "/pubsub" configuration, the same
// calls as rueidis/pubsub (valkey-go is its fork).
var valkeyGoPubsubDriver = &goLibrary{name: "valkey-go/pubsub", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	pubsub: pubsubSame,
	api:    "DedicatedClient.SetPubSubHooks and SetOnInvalidations; Do(ctx, B().Subscribe().Channel(...).Build()) and the other subscribe builders; Do(Arbitrary) otherwise",
	open: valkeyGoOpen(dedicatedCalls[valkey.DedicatedClient]{do: valkeyGoDo,
		pubsub: func(dc valkey.DedicatedClient) Subscriber {
			got := newDeliveries()
			dc.SetPubSubHooks(valkey.PubSubHooks{
				OnMessage: func(m valkey.PubSubMessage) {
					got.put(pubsubMessage("valkey.PubSubMessage", m.Pattern, m.Channel, m.Message))
				},
				OnSubscription: func(s valkey.PubSubSubscription) {
					got.put(messageOf("valkey.PubSubSubscription", "kind", s.Kind, "channel", s.Channel, "count", s.Count))
				},
			})
			dc.SetOnInvalidations(func(keys []valkey.ValkeyMessage) {
				got.put(invalidationOf("[]valkey.ValkeyMessage", keys == nil, len(keys), func(i int) Native {
					return messageNative("ValkeyMessage", keys[i].CacheMarshal(nil))
				}))
			})
			return &dedicatedPubsub{got: got, send: func(ctx context.Context, args [][]byte) Native {
				b := dc.B()
				chans := strArgs(args[1:])
				cmd := map[string]func() valkey.Completed{
					"SUBSCRIBE":    func() valkey.Completed { return b.Subscribe().Channel(chans...).Build() },
					"PSUBSCRIBE":   func() valkey.Completed { return b.Psubscribe().Pattern(chans...).Build() },
					"SSUBSCRIBE":   func() valkey.Completed { return b.Ssubscribe().Channel(chans...).Build() },
					"UNSUBSCRIBE":  func() valkey.Completed { return b.Unsubscribe().Channel(chans...).Build() },
					"PUNSUBSCRIBE": func() valkey.Completed { return b.Punsubscribe().Pattern(chans...).Build() },
					"SUNSUBSCRIBE": func() valkey.Completed { return b.Sunsubscribe().Channel(chans...).Build() },
				}[strings.ToUpper(string(args[0]))]
				if cmd == nil {
					return unsupported("not a subscribe command: " + string(args[0]))
				}
				return valkeyGoNative(dc.Do(ctx, cmd()))
			}}
		}})}

// pubsubMessage is a rueidis or valkey-go PubSubMessage as delivered:
// Pattern is set for a pmessage only (the struct has no kind).
func pubsubMessage(typ, pattern, channel, payload string) Native {
	if pattern != "" {
		return messageOf(typ, "pattern", pattern, "channel", channel, "payload", payload)
	}
	return messageOf(typ, "channel", channel, "payload", payload)
}

// invalidationOf is an invalidation a callback received: its keys, or
// nil (the whole cache) when isNil.
func invalidationOf(typ string, isNil bool, n int, key func(int) Native) Native {
	keys := Native{Kind: "nil", Type: typ + "(nil)"}
	if !isNil {
		keys = Native{Kind: "list", Type: typ, Elems: []Native{}}
		for i := 0; i < n; i++ {
			keys.Elems = append(keys.Elems, key(i))
		}
	}
	return messageOf(typ, "kind", "invalidate", "keys", keys)
}

// dedicatedPubsub is the Subscriber of a rueidis or valkey-go dedicated
// connection: send sends a subscribe command, got holds what the hooks
// delivered.
type dedicatedPubsub struct {
	got  *deliveries
	send func(ctx context.Context, args [][]byte) Native
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
