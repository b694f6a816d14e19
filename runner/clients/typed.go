package clients

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/respcheck/respcheck/resp"
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
func (c goRedisTypedConn) DoTyped(ctx context.Context, args [][]byte) (Native, TypedCall) {
	cmd := strings.ToUpper(string(args[0]))
	a := strArgs(args)
	switch {
	case cmd == "GET" && len(a) == 2:
		v, err := c.c.Get(ctx, a[1]).Result()
		return goRedisNative(v, err), sent("Get")
	case cmd == "DEL" && len(a) >= 2:
		v, err := c.c.Del(ctx, a[1:]...).Result()
		return goRedisNative(v, err), sent("Del")
	case cmd == "INCR" && len(a) == 2:
		v, err := c.c.Incr(ctx, a[1]).Result()
		return goRedisNative(v, err), sent("Incr")
	case cmd == "ZSCORE" && len(a) == 3:
		v, err := c.c.ZScore(ctx, a[1], a[2]).Result()
		return goRedisNative(v, err), sent("ZScore")
	case cmd == "DIGEST" && len(a) == 2:
		v, err := c.c.Digest(ctx, a[1]).Result()
		if err != nil {
			return goRedisNative(nil, err), sent("Digest")
		}
		return textNative("string", "uint64 (shown as %016x)", fmt.Sprintf("%016x", v)), sent("Digest")
	case cmd == "SET" && len(a) >= 3:
		return c.set(ctx, a)
	}
	return Native{}, TypedCall{}
}

// sent is the TypedCall of a wrapper that ran as the step asks.
func sent(wrapper string) TypedCall { return TypedCall{Wrapper: wrapper, Sent: true} }

// setArgsSource cites go-redis's SetArgs, whose limits set reports.
func setArgsSource() string {
	return "SetArgs in string_commands.go, go-redis " + moduleVersion("github.com/redis/go-redis/v9")
}

// setOrder is the order SetArgs sends SET's options in: KEEPTTL,
// EXAT/PXAT, EX/PX, the condition (with its match value or digest), GET.
var setOrder = map[string]int{"KEEPTTL": 0, "EXAT": 1, "PXAT": 1, "EX": 2, "PX": 2, "NX": 3, "XX": 3, "IFEQ": 3, "IFNE": 3, "IFDEQ": 3, "IFDNE": 3, "GET": 4}

// set runs SET key value [options] through SetArgs (or SetIFEQGet for
// IFEQ match GET alone). Options SetArgs has no field for are not sent
// (TypedCall.Limit says why); options it sends in another order, or a
// digest it prints in lower case, are sent respelled (Limit says so).
func (c goRedisTypedConn) set(ctx context.Context, a []string) (Native, TypedCall) {
	key, val := a[1], a[2]
	var sa redis.SetArgs
	ifeq, get, other := "", false, false
	var respelled []string
	last := -1
	limit := func(why string) (Native, TypedCall) {
		return Native{}, TypedCall{Wrapper: "SetArgs", Limit: why + " (" + setArgsSource() + ")"}
	}
	for i := 3; i < len(a); i++ {
		opt := strings.ToUpper(a[i])
		if o, ok := setOrder[opt]; ok {
			if o < last && len(respelled) == 0 {
				respelled = append(respelled, "SetArgs sends SET's options in its own order: KEEPTTL, EXAT or PXAT, EX or PX, the condition, GET")
			}
			last = max(last, o)
		}
		switch opt {
		case "NX", "XX", "IFEQ", "IFNE", "IFDEQ", "IFDNE":
			if sa.Mode != "" {
				return limit("SetArgs.Mode holds one condition; " + sa.Mode + " and " + opt + " cannot both be sent")
			}
		}
		switch opt {
		case "NX", "XX":
			sa.Mode = opt
			other = true
		case "GET":
			if get {
				return limit("SetArgs.Get is one bool: GET twice cannot be sent")
			}
			sa.Get, get = true, true
		case "KEEPTTL":
			if sa.KeepTTL {
				return limit("SetArgs.KeepTTL is one bool: KEEPTTL twice cannot be sent")
			}
			sa.KeepTTL, other = true, true
		case "IFEQ", "IFNE":
			if i+1 >= len(a) {
				return limit(opt + " without its value has no SetArgs form")
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
				return limit(opt + " without its digest has no SetArgs form")
			}
			d, err := strconv.ParseUint(a[i+1], 16, 64)
			switch {
			case err != nil || len(a[i+1]) != 16:
				return limit("SetArgs.MatchDigest is a uint64, sent as 16 hex digits: " + strconv.Quote(a[i+1]) + " is not one")
			case d == 0:
				return limit("SetArgs.MatchDigest 0 is read as no digest: IFDEQ/IFDNE 0000000000000000 goes out without it")
			}
			if a[i+1] != fmt.Sprintf("%016x", d) {
				respelled = append(respelled, "SetArgs sends MatchDigest as %016x (lower case)")
			}
			sa.Mode, sa.MatchDigest, other = opt, d, true
			i++
		case "EX", "PX":
			if i+1 >= len(a) {
				return limit(opt + " without its time has no SetArgs form")
			}
			if sa.TTL != 0 {
				return limit("SetArgs.TTL holds one expiry: a second EX or PX cannot be sent")
			}
			n, err := strconv.ParseInt(a[i+1], 10, 64)
			if err != nil || n <= 0 || strconv.FormatInt(n, 10) != a[i+1] {
				return limit("SetArgs.TTL is a positive time.Duration (zero means no expiry): " + opt + " " + strconv.Quote(a[i+1]) + " cannot be sent")
			}
			unit := time.Second
			if opt == "PX" {
				unit = time.Millisecond
				if n%1000 == 0 {
					// go-redis sends a whole number of seconds as EX.
					return limit("SetArgs.TTL of whole seconds goes out as EX: PX " + a[i+1] + " cannot be sent")
				}
			}
			if n > math.MaxInt64/int64(unit) {
				return limit("SetArgs.TTL is a time.Duration, at most about 292 years: " + opt + " " + a[i+1] + " cannot be sent")
			}
			sa.TTL, other = time.Duration(n)*unit, true
			i++
		case "EXAT", "PXAT":
			if i+1 >= len(a) {
				return limit(opt + " without its time has no SetArgs form")
			}
			if !sa.ExpireAt.IsZero() {
				return limit("SetArgs.ExpireAt holds one time: a second EXAT or PXAT cannot be sent")
			}
			n, err := strconv.ParseInt(a[i+1], 10, 64)
			if err != nil || strconv.FormatInt(n, 10) != a[i+1] {
				return limit("SetArgs.ExpireAt is a time.Time: " + opt + " " + strconv.Quote(a[i+1]) + " cannot be sent")
			}
			if opt == "EXAT" {
				sa.ExpireAt = time.Unix(n, 0)
			} else {
				if n%1000 == 0 {
					// go-redis sends a time of whole seconds as EXAT.
					return limit("SetArgs.ExpireAt of whole seconds goes out as EXAT: PXAT " + a[i+1] + " cannot be sent")
				}
				sa.ExpireAt = time.UnixMilli(n)
			}
			if sa.ExpireAt.IsZero() {
				return limit("SetArgs.ExpireAt's zero time means none: " + opt + " " + a[i+1] + " cannot be sent")
			}
			other = true
			i++
		default:
			// An option SET does not have: the server refuses it.
			return limit("SetArgs has no field for " + strconv.Quote(a[i]))
		}
	}
	var v string
	var err error
	call := sent("SetArgs")
	if ifeq != "" && get && !other {
		v, err = c.c.SetIFEQGet(ctx, key, val, ifeq, 0).Result()
		call.Wrapper = "SetIFEQGet"
	} else {
		v, err = c.c.SetArgs(ctx, key, val, sa).Result()
	}
	if len(respelled) > 0 {
		call.Limit = strings.Join(respelled, "; ") + " (" + setArgsSource() + ")"
	}
	return goRedisNative(v, err), call
}

// respelledOnly reports whether the command wire (one RESP array) is the
// SET of args respelled only: the same key and value, the same options
// each with its own value, in any order, option names in any letter case
// and a digest's hex digits too. Any other command is never a respelling.
func respelledOnly(wire []byte, args [][]byte) bool {
	_, v, err := resp.Parse(wire)
	if err != nil || v.Kind != resp.Array {
		return false
	}
	sent := make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != resp.BlobString {
			return false
		}
		sent[i] = e.Str
	}
	a, okA := setOptions(args)
	b, okB := setOptions(sent)
	return okA && okB && bytes.Equal(args[1], sent[1]) && bytes.Equal(args[2], sent[2]) && slices.Equal(a, b)
}

// setValued are the options of SET that take a value.
var setValued = map[string]bool{"EX": true, "PX": true, "EXAT": true, "PXAT": true, "IFEQ": true, "IFNE": true, "IFDEQ": true, "IFDNE": true}

// setOptions parses SET key value [options] into its options, one string
// each ("EX 10", "GET"), sorted; ok is false for another command or an
// option without its value.
func setOptions(args [][]byte) (opts []string, ok bool) {
	if len(args) < 3 || !strings.EqualFold(string(args[0]), "SET") {
		return nil, false
	}
	for i := 3; i < len(args); i++ {
		name := strings.ToUpper(string(args[i]))
		if !setValued[name] {
			opts = append(opts, name)
			continue
		}
		if i+1 >= len(args) {
			return nil, false
		}
		val := string(args[i+1])
		if name == "IFDEQ" || name == "IFDNE" {
			val = strings.ToLower(val)
		}
		opts = append(opts, name+" "+val)
		i++
	}
	slices.Sort(opts)
	return opts, true
}
