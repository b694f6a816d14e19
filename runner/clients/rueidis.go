package clients

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/redis/rueidis"
)

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
