package clients

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// goRedisTypedDriver is go-redis in typed-wrapper mode: steps whose command
// has a typed wrapper (SET with its options through SetArgs or SetIFEQGet,
// GET, DIGEST, DEL, INCR, ZSCORE) go through the wrapper; the proxy checks
// what the wrapper sent and Judge what it returned. Other steps are skipped
// (no silent fallback to Do).
var goRedisTypedDriver = &goLibrary{name: "go-redis-typed", module: "github.com/redis/go-redis/v9", protos: []int{2, 3},
	api:   "typed wrappers (Get, Del, Incr, ZScore, Digest, SetArgs, SetIFEQGet)",
	typed: true,
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		return goRedisSession(addr, proto, func(c *redis.Conn) Conn { return goRedisTypedConn{&goRedisConn{c}} }), nil
	}}

type goRedisTypedConn struct{ *goRedisConn }

// DoTyped runs args through a go-redis typed wrapper when there is one.
func (c goRedisTypedConn) DoTyped(ctx context.Context, args [][]byte) (Native, string, bool) {
	cmd := strings.ToUpper(string(args[0]))
	a := strArgs(args)
	switch {
	case cmd == "GET" && len(a) == 2:
		v, err := c.c.Get(ctx, a[1]).Result()
		return goRedisNative(v, err), "Get", true
	case cmd == "DEL" && len(a) >= 2:
		v, err := c.c.Del(ctx, a[1:]...).Result()
		return goRedisNative(v, err), "Del", true
	case cmd == "INCR" && len(a) == 2:
		v, err := c.c.Incr(ctx, a[1]).Result()
		return goRedisNative(v, err), "Incr", true
	case cmd == "ZSCORE" && len(a) == 3:
		v, err := c.c.ZScore(ctx, a[1], a[2]).Result()
		return goRedisNative(v, err), "ZScore", true
	case cmd == "DIGEST" && len(a) == 2:
		v, err := c.c.Digest(ctx, a[1]).Result()
		if err != nil {
			return goRedisNative(nil, err), "Digest", true
		}
		return textNative("string", "uint64 (shown as %016x)", fmt.Sprintf("%016x", v)), "Digest", true
	case cmd == "SET" && len(a) >= 3:
		return c.set(ctx, a)
	}
	return Native{}, "", false
}

func (c goRedisTypedConn) set(ctx context.Context, a []string) (Native, string, bool) {
	key, val := a[1], a[2]
	var sa redis.SetArgs
	ifeq, get, other := "", false, false
	for i := 3; i < len(a); i++ {
		opt := strings.ToUpper(a[i])
		switch opt {
		case "NX", "XX":
			sa.Mode = opt
			other = true
		case "GET":
			sa.Get, get = true, true
		case "KEEPTTL":
			sa.KeepTTL, other = true, true
		case "IFEQ", "IFNE":
			if i+1 >= len(a) {
				return Native{}, "", false
			}
			sa.Mode, sa.MatchValue = opt, a[i+1]
			if opt == "IFEQ" {
				ifeq = a[i+1]
			} else {
				other = true
			}
			i++
		case "IFDEQ", "IFDNE":
			if i+1 >= len(a) {
				return Native{}, "", false
			}
			d, err := strconv.ParseUint(a[i+1], 16, 64)
			if err != nil || len(a[i+1]) != 16 || d == 0 {
				return Native{}, "", false // not expressible as MatchDigest uint64
			}
			sa.Mode, sa.MatchDigest, other = opt, d, true
			i++
		case "EX", "PX":
			if i+1 >= len(a) {
				return Native{}, "", false
			}
			n, err := strconv.ParseInt(a[i+1], 10, 64)
			if err != nil || n <= 0 {
				return Native{}, "", false
			}
			unit := time.Second
			if opt == "PX" {
				unit = time.Millisecond
			}
			sa.TTL, other = time.Duration(n)*unit, true
			i++
		default:
			return Native{}, "", false
		}
	}
	if ifeq != "" && get && !other {
		v, err := c.c.SetIFEQGet(ctx, key, val, ifeq, 0).Result()
		return goRedisNative(v, err), "SetIFEQGet", true
	}
	v, err := c.c.SetArgs(ctx, key, val, sa).Result()
	return goRedisNative(v, err), "SetArgs", true
}
