package clients

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/valkey-io/valkey-go"
)

// valkeyGoDriver drives github.com/valkey-io/valkey-go (a fork of rueidis)
// through Client.Dedicate() and Arbitrary commands; RESP3 by default,
// AlwaysRESP2 for RESP2.
var valkeyGoDriver = &goLibrary{name: "valkey-go", module: "github.com/valkey-io/valkey-go", protos: []int{2, 3},
	api: "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build())",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		c, err := valkey.NewClient(valkey.ClientOption{
			InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: proto == 2,
			DisableRetry: true, ForceSingleClient: true,
			ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
		})
		if err != nil {
			return nil, err
		}
		return dedicatedSession(c.Dedicate, c.Close, valkeyGoDo), nil
	}}

func valkeyGoDo(ctx context.Context, dc valkey.DedicatedClient, args [][]byte) Native {
	r := dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build())
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
