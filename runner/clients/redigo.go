package clients

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// redigoDriver drives github.com/gomodule/redigo: one redis.Conn per case
// connection, Conn.Do; RESP2 only.
var redigoDriver = &goLibrary{name: "redigo", module: "github.com/gomodule/redigo", protos: []int{2},
	api: "redis.Conn.Do(command, args...)",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		return newPinnedSession(
			func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr, redis.DialConnectTimeout(5*time.Second))
			},
			func(c redis.Conn) Conn { return redigoConn{c} },
			func(c redis.Conn) { c.Close() }, nil), nil
	}}

type redigoConn struct{ c redis.Conn }

func (c redigoConn) Do(ctx context.Context, args [][]byte) Native {
	rest := make([]any, len(args)-1)
	for i, a := range args[1:] {
		rest[i] = a
	}
	v, err := redis.DoContext(c.c, ctx, string(args[0]), rest...)
	if err != nil {
		if re, ok := err.(redis.Error); ok {
			return errNative("error", "redis.Error", "redis.Error", re.Error())
		}
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	return goNative(v)
}
