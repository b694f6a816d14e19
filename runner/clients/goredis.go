package clients

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// goRedisDriver drives github.com/redis/go-redis/v9 through Client.Conn()
// and Conn.Do, in RESP2 and RESP3 (Options.Protocol).
var goRedisDriver = &goLibrary{name: "go-redis", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	api: "Conn.Do(ctx, args...) on a pinned Client.Conn()",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		return goRedisSession(addr, proto, func(c *redis.Conn) Conn { return &goRedisConn{c} }), nil
	}}

// goRedisSession pins one Client.Conn() per case connection of a client
// with one attempt per command (a retry would send the command twice).
func goRedisSession(addr string, proto int, wrap func(*redis.Conn) Conn) Session {
	rdb := redis.NewClient(&redis.Options{
		Addr: addr, Protocol: proto,
		MaxRetries:   -1,
		DialTimeout:  5 * time.Second,
		ReadTimeout:  time.Minute, // respcheck enforces the step deadline itself
		WriteTimeout: time.Minute,
		PoolSize:     32,
	})
	return newPinnedSession(func(context.Context) (*redis.Conn, error) { return rdb.Conn(), nil },
		wrap, func(c *redis.Conn) { c.Close() }, rdb.Close)
}

// goRedisPipelineDriver is go-redis's "/pipeline" configuration: a group
// of async sends goes through Conn.Pipelined, a MULTI … EXEC block through
// Conn.TxPipelined (go-redis sends MULTI and EXEC and reads the QUEUED
// replies itself), each command by pipe.Do; TxPipelined's error is the
// first command's (cmdsFirstErr, go-redis v9.23.0 redis.go), never the
// transaction's own, so a transaction gives no "exec" value: an aborted
// WATCH or an EXECABORT is stamped on each command (setCmdsErr,
// command.go).
var goRedisPipelineDriver = &goLibrary{name: "go-redis/pipeline", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	batch: true,
	api:   "Conn.Pipelined(ctx, fn) of pipe.Do(ctx, args...) per async send; Conn.TxPipelined(ctx, fn) for MULTI … EXEC; Conn.Do otherwise, on a pinned Client.Conn()",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		return goRedisSession(addr, proto, func(c *redis.Conn) Conn { return goRedisPipeConn{&goRedisConn{c}} }), nil
	}}

type goRedisPipeConn struct{ *goRedisConn }

// Pipeline runs cmds through Conn.Pipelined.
func (c goRedisPipeConn) Pipeline(ctx context.Context, cmds [][][]byte) []Native {
	return goRedisBatch(ctx, c.c.Pipelined, cmds)
}

// Transaction runs cmds through Conn.TxPipelined.
func (c goRedisPipeConn) Transaction(ctx context.Context, cmds [][][]byte) ([]Native, *Native) {
	return goRedisBatch(ctx, c.c.TxPipelined, cmds), nil
}

// goRedisBatch queues each command by pipe.Do inside run (Pipelined or
// TxPipelined) and returns each Cmd's Result.
func goRedisBatch(ctx context.Context, run func(context.Context, func(redis.Pipeliner) error) ([]redis.Cmder, error),
	cmds [][][]byte) []Native {
	var queued []*redis.Cmd
	run(ctx, func(p redis.Pipeliner) error {
		for _, a := range cmds {
			queued = append(queued, p.Do(ctx, anyArgs(a)...))
		}
		return nil
	})
	out := make([]Native, len(queued))
	for i, cmd := range queued {
		v, err := cmd.Result()
		out[i] = goRedisNative(v, err)
	}
	return out
}

type goRedisConn struct{ c *redis.Conn }

func (c *goRedisConn) Do(ctx context.Context, args [][]byte) Native {
	v, err := c.c.Do(ctx, anyArgs(args)...).Result()
	return goRedisNative(v, err)
}

// goRedisNative converts what Cmd.Result returned.
func goRedisNative(v any, err error) Native {
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return Native{Kind: "nil", Type: "nil (redis.Nil)"}
		}
		var re redis.Error
		if errors.As(err, &re) {
			return errNative("error", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
		}
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	return goNative(v)
}

// goNative converts the interface{} values Go libraries decode into.
func goNative(v any) Native {
	typ := fmt.Sprintf("%T", v)
	switch x := v.(type) {
	case nil:
		return Native{Kind: "nil", Type: "nil"}
	case string:
		return stringNative(typ, x)
	case []byte:
		if x == nil {
			// radix decodes a nil reply into a nil []byte, distinct from
			// the empty []byte of "$0".
			return Native{Kind: "nil", Type: "[]uint8(nil)"}
		}
		return bytesNative(typ, x)
	case int64:
		return textNative("int", typ, strconv.FormatInt(x, 10))
	case int:
		return textNative("int", typ, strconv.Itoa(x))
	case float64:
		return textNative("float", typ, strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		return textNative("bool", typ, strconv.FormatBool(x))
	case *big.Int:
		return textNative("bigint", typ, x.String())
	case big.Int:
		return textNative("bigint", typ, x.String())
	case *big.Float:
		return textNative("float", typ, x.Text('g', -1))
	case []any:
		if x == nil {
			// radix decodes *-1 into a nil slice, distinct from the empty
			// slice of *0 and from the nil []byte of $-1.
			return Native{Kind: "nil", Type: "[]interface {}(nil)"}
		}
		n := Native{Kind: "list", Type: typ, Elems: make([]Native, 0, len(x))}
		for _, e := range x {
			n.Elems = append(n.Elems, goNative(e))
		}
		return n
	case []string:
		n := Native{Kind: "list", Type: typ, Elems: make([]Native, 0, len(x))}
		for _, e := range x {
			n.Elems = append(n.Elems, stringNative("string", e))
		}
		return n
	case map[any]any:
		n := Native{Kind: "map", Type: typ, Pairs: make([][2]Native, 0, len(x))}
		for k, e := range x {
			n.Pairs = append(n.Pairs, [2]Native{goNative(k), goNative(e)})
		}
		return n
	case map[string]any:
		n := Native{Kind: "map", Type: typ, Pairs: make([][2]Native, 0, len(x))}
		for k, e := range x {
			n.Pairs = append(n.Pairs, [2]Native{stringNative("string", k), goNative(e)})
		}
		return n
	case map[any]struct{}:
		n := Native{Kind: "set", Type: typ, Elems: make([]Native, 0, len(x))}
		for k := range x {
			n.Elems = append(n.Elems, goNative(k))
		}
		return n
	case error:
		return errNative("error", typ, typ, x.Error())
	}
	return textNative("other", typ, fmt.Sprintf("%v", v))
}

// moduleVersion is the version of a dependency compiled into the binary.
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "?"
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return "?"
}
