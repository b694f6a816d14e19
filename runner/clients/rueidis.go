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
	api: "DedicatedClient.Do(ctx, B().Arbitrary(args...).Build())",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		c, err := rueidis.NewClient(rueidis.ClientOption{
			InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: proto == 2,
			DisableRetry: true, ForceSingleClient: true,
			ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
		})
		if err != nil {
			return nil, err
		}
		return dedicatedSession(c.Dedicate, c.Close, rueidisDo), nil
	}}

func rueidisDo(ctx context.Context, dc rueidis.DedicatedClient, args [][]byte) Native {
	r := dc.Do(ctx, dc.B().Arbitrary(strArgs(args)...).Build())
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
