package clients

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/valkey-io/valkey-go"
)

// valkeyGoDriver drives github.com/valkey-io/valkey-go (a fork of rueidis)
// through Client.Dedicate() and Arbitrary commands; RESP3 by default, AlwaysRESP2 for RESP2.
var valkeyGoDriver = &goLibrary{name: "valkey-go", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	api:  "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build())",
	open: valkeyGoOpen(dedicatedCalls[valkey.DedicatedClient]{do: valkeyGoDo})}

// valkeyGoPipelineDriver is valkey-go's "/pipeline" configuration: a group
// of async sends is one DoMulti, a MULTI … EXEC block one DoMulti of
// MULTI, the commands and EXEC (valkey-go has no other transaction API on a
// DedicatedClient), each command with its ValkeyResult.
var valkeyGoPipelineDriver = &goLibrary{name: "valkey-go/pipeline", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	batch: true,
	api:   "DedicatedClient.DoMulti(ctx, cmds...) (MULTI, cmds..., EXEC for a transaction); DedicatedClient.Do otherwise",
	open:  valkeyGoOpen(dedicatedCalls[valkey.DedicatedClient]{do: valkeyGoDo, multi: valkeyGoMulti})}

// valkeyGoToAnyDriver is valkey-go with the helper users call on a result:
// ValkeyResult.ToAny(), whose Go values are judged instead of the
// ValkeyMessage.
var valkeyGoToAnyDriver = &goLibrary{name: "valkey-go/to-any", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	api:  "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build()).ToAny()",
	open: valkeyGoOpen(dedicatedCalls[valkey.DedicatedClient]{do: valkeyGoToAny})}

func valkeyGoOpen(calls dedicatedCalls[valkey.DedicatedClient]) func(context.Context, string, int) (Session, error) {
	return func(ctx context.Context, addr string, proto int) (Session, error) {
		c, err := valkey.NewClient(valkey.ClientOption{
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

func valkeyGoDo(ctx context.Context, dc valkey.DedicatedClient, args [][]byte) Native {
	return valkeyGoNative(dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build()))
}

func valkeyGoMulti(ctx context.Context, dc valkey.DedicatedClient, cmds [][][]byte) []Native {
	cs := make(valkey.Commands, len(cmds))
	for i, args := range cmds {
		cs[i] = dc.B().Arbitrary(strArgs(args)...).Build()
	}
	var out []Native
	for _, r := range dc.DoMulti(ctx, cs...) {
		out = append(out, valkeyGoNative(r))
	}
	return out
}

// valkeyGoNative is a ValkeyResult's message, node by node.
func valkeyGoNative(r valkey.ValkeyResult) Native {
	if err := r.NonValkeyError(); err != nil {
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	m, err := r.ToMessage()
	n := messageNative("ValkeyMessage", m.CacheMarshal(nil))
	if err != nil && n.Kind == "error" {
		// What a caller sees: ValkeyError.Error() (valkey-go trims "ERR ").
		n.Err.Message = err.Error()
	}
	return n
}

func valkeyGoToAny(ctx context.Context, dc valkey.DedicatedClient, args [][]byte) Native {
	v, err := dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build()).ToAny()
	if err == nil {
		return goNative(v)
	}
	if valkey.IsValkeyNil(err) {
		return Native{Kind: "nil", Type: "nil (valkey.Nil)"}
	}
	if _, ok := valkey.IsValkeyErr(err); ok {
		return errNative("error", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
}
