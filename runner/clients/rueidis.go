package clients

//go:generate go run ./internal/valkeygen rueidis.go valkeygo.go

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/redis/rueidis"
)

// This file is also valkey-go's: valkeygo.go is generated from it by
// renaming (valkey-go is a fork of rueidis with the same API under Valkey
// names: see internal/valkeygen). Edit this file, then run go generate.

// rueidisDriver drives github.com/redis/rueidis through Client.Dedicate()
// and Arbitrary commands; RESP3 by default, AlwaysRESP2 for RESP2.
var rueidisDriver = &goLibrary{name: "rueidis", module: "github.com/redis/rueidis", protos: []int{2, 3},
	api:  "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build())",
	open: rueidisOpen(dedicatedCalls[rueidis.DedicatedClient]{do: rueidisDo})}

// rueidisPipelineDriver is rueidis's "/pipeline" configuration: a group
// of async sends is one DoMulti, a MULTI … EXEC block one DoMulti of
// MULTI, the commands and EXEC (rueidis has no other transaction API on a
// DedicatedClient), each command with its RedisResult.
var rueidisPipelineDriver = &goLibrary{name: "rueidis/pipeline", module: "github.com/redis/rueidis", protos: []int{2, 3},
	batch: true,
	api:   "DedicatedClient.DoMulti(ctx, cmds...) (MULTI, cmds..., EXEC for a transaction); DedicatedClient.Do otherwise",
	open:  rueidisOpen(dedicatedCalls[rueidis.DedicatedClient]{do: rueidisDo, multi: rueidisMulti})}

// rueidisToAnyDriver is rueidis with the helper users call on a result:
// RedisResult.ToAny(), whose Go values are judged instead of the
// RedisMessage.
var rueidisToAnyDriver = &goLibrary{name: "rueidis/to-any", module: "github.com/redis/rueidis", protos: []int{2, 3},
	api:  "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build()).ToAny()",
	open: rueidisOpen(dedicatedCalls[rueidis.DedicatedClient]{do: rueidisToAny})}

func rueidisOpen(calls dedicatedCalls[rueidis.DedicatedClient]) func(context.Context, string, int) (Session, error) {
	return func(ctx context.Context, addr string, proto int) (Session, error) {
		c, err := rueidis.NewClient(rueidis.ClientOption{
			InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: proto == 2,
			DisableRetry: true, ForceSingleClient: true,
			ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
		})
		if err != nil {
			return nil, err
		}
		return dedicatedSession(c.Dedicate, c.Close, calls), nil
	}
}

func rueidisDo(ctx context.Context, dc rueidis.DedicatedClient, args [][]byte) Native {
	return rueidisNative(dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build()))
}

func rueidisMulti(ctx context.Context, dc rueidis.DedicatedClient, cmds [][][]byte) []Native {
	cs := make(rueidis.Commands, len(cmds))
	for i, args := range cmds {
		cs[i] = dc.B().Arbitrary(strArgs(args)...).Build()
	}
	var out []Native
	for _, r := range dc.DoMulti(ctx, cs...) {
		out = append(out, rueidisNative(r))
	}
	return out
}

// rueidisNative is a RedisResult's message, node by node.
func rueidisNative(r rueidis.RedisResult) Native {
	if err := r.NonRedisError(); err != nil {
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	m, err := r.ToMessage()
	n := messageNative("RedisMessage", m.CacheMarshal(nil))
	if err != nil && n.Kind == "error" {
		// What a caller sees: RedisError.Error() (rueidis trims "ERR ").
		n.Err.Message = err.Error()
	}
	return n
}

func rueidisToAny(ctx context.Context, dc rueidis.DedicatedClient, args [][]byte) Native {
	v, err := dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build()).ToAny()
	if err == nil {
		return goNative(v)
	}
	if rueidis.IsRedisNil(err) {
		return Native{Kind: "nil", Type: "nil (rueidis.Nil)"}
	}
	if _, ok := rueidis.IsRedisErr(err); ok {
		return errNative("error", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
}

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
	pubsub: pubsubSame, api: dedicatedPubsubAPI,
	open: rueidisOpen(dedicatedCalls[rueidis.DedicatedClient]{do: rueidisDo,
		pubsub: func(dc rueidis.DedicatedClient) subscriber {
			p := newDedicatedPubsub("rueidis")
			dc.SetPubSubHooks(rueidis.PubSubHooks{
				OnMessage:      func(m rueidis.PubSubMessage) { p.message(m.Pattern, m.Channel, m.Message) },
				OnSubscription: func(s rueidis.PubSubSubscription) { p.subscription(s.Kind, s.Channel, s.Count) },
			})
			dc.SetOnInvalidations(func(keys []rueidis.RedisMessage) { p.invalidation(keys == nil, marshalAll(keys)) })
			b := dc.B()
			p.send = func(ctx context.Context, args [][]byte) Native {
				cmd, ok := subscribeBuilder(args, map[string]func(...string) rueidis.Completed{
					"SUBSCRIBE":    func(c ...string) rueidis.Completed { return b.Subscribe().Channel(c...).Build() },
					"PSUBSCRIBE":   func(c ...string) rueidis.Completed { return b.Psubscribe().Pattern(c...).Build() },
					"SSUBSCRIBE":   func(c ...string) rueidis.Completed { return b.Ssubscribe().Channel(c...).Build() },
					"UNSUBSCRIBE":  func(c ...string) rueidis.Completed { return b.Unsubscribe().Channel(c...).Build() },
					"PUNSUBSCRIBE": func(c ...string) rueidis.Completed { return b.Punsubscribe().Pattern(c...).Build() },
					"SUNSUBSCRIBE": func(c ...string) rueidis.Completed { return b.Sunsubscribe().Channel(c...).Build() },
				})
				if !ok {
					return unsupported("not a subscribe command: " + string(args[0]))
				}
				return rueidisNative(dc.Do(ctx, cmd))
			}
			return p
		}})}
