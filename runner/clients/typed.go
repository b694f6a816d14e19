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
func (c goRedisTypedConn) DoTyped(ctx context.Context, args [][]byte) (Native, typedCall) {
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
	return Native{}, typedCall{}
}

// sent is the typedCall of a wrapper that ran as the step asks.
func sent(wrapper string) typedCall { return typedCall{Wrapper: wrapper, Sent: true} }

// setArgsSource cites go-redis's SetArgs, whose limits set reports.
func setArgsSource() string {
	return "SetArgs in string_commands.go, go-redis " + moduleVersion("github.com/redis/go-redis/v9")
}

// setOrder is the order SetArgs sends SET's options in: KEEPTTL,
// EXAT/PXAT, EX/PX, the condition (with its match value or digest), GET.
var setOrder = map[string]int{"KEEPTTL": 0, "EXAT": 1, "PXAT": 1, "EX": 2, "PX": 2, "NX": 3, "XX": 3, "IFEQ": 3, "IFNE": 3, "IFDEQ": 3, "IFDNE": 3, "GET": 4}

// set runs SET key value [options] through SetArgs (or SetIFEQGet for
// IFEQ match GET alone). Options SetArgs has no field for are not sent
// (typedCall.Limit says why); options it sends in another order, or a
// digest it prints in lower case, are sent respelled (Limit says so).
func (c goRedisTypedConn) set(ctx context.Context, a []string) (Native, typedCall) {
	p := setPlan{last: -1}
	for i := 3; i < len(a); i++ {
		var why string
		if i, why = p.option(a, i); why != "" {
			return Native{}, typedCall{Wrapper: "SetArgs", Limit: why + " (" + setArgsSource() + ")"}
		}
	}
	var v string
	var err error
	call := sent("SetArgs")
	if p.ifeq != "" && p.get && !p.other {
		v, err = c.c.SetIFEQGet(ctx, a[1], a[2], p.ifeq, 0).Result()
		call.Wrapper = "SetIFEQGet"
	} else {
		v, err = c.c.SetArgs(ctx, a[1], a[2], p.sa).Result()
	}
	if len(p.respelled) > 0 {
		call.Limit = strings.Join(p.respelled, "; ") + " (" + setArgsSource() + ")"
	}
	return goRedisNative(v, err), call
}

// setPlan is a SET's options mapped onto SetArgs, option by option.
type setPlan struct {
	sa        redis.SetArgs
	ifeq      string // IFEQ's value
	get       bool
	other     bool     // an option SetIFEQGet cannot send
	respelled []string // how SetArgs respells the options
	last      int      // the setOrder of the options so far
}

// option maps the option at a[i] (and its value); it returns the index of
// the option's last argument, or why SetArgs cannot express it.
func (p *setPlan) option(a []string, i int) (int, string) {
	opt := strings.ToUpper(a[i])
	if o, ok := setOrder[opt]; ok {
		if o < p.last && len(p.respelled) == 0 {
			p.respelled = append(p.respelled, "SetArgs sends SET's options in its own order: KEEPTTL, EXAT or PXAT, EX or PX, the condition, GET")
		}
		p.last = max(p.last, o)
	}
	switch {
	case opt == "GET":
		if p.get {
			return i, "SetArgs.Get is one bool: GET twice cannot be sent"
		}
		p.sa.Get, p.get = true, true
		return i, ""
	case opt == "KEEPTTL":
		if p.sa.KeepTTL {
			return i, "SetArgs.KeepTTL is one bool: KEEPTTL twice cannot be sent"
		}
		p.sa.KeepTTL, p.other = true, true
		return i, ""
	case opt == "NX" || opt == "XX":
		return i, p.condition(opt, "")
	case !setValued[opt]:
		// An option SET does not have: the server refuses it.
		return i, "SetArgs has no field for " + strconv.Quote(a[i])
	case i+1 >= len(a):
		return i, opt + " without its value has no SetArgs form"
	}
	switch opt {
	case "EX", "PX":
		return i + 1, p.ttl(opt, a[i+1])
	case "EXAT", "PXAT":
		return i + 1, p.expireAt(opt, a[i+1])
	}
	return i + 1, p.condition(opt, a[i+1])
}

// condition maps NX, XX, IFEQ/IFNE v or IFDEQ/IFDNE digest onto Mode and
// MatchValue or MatchDigest.
func (p *setPlan) condition(opt, v string) string {
	if p.sa.Mode != "" {
		return "SetArgs.Mode holds one condition; " + p.sa.Mode + " and " + opt + " cannot both be sent"
	}
	switch opt {
	case "NX", "XX":
		p.sa.Mode, p.other = opt, true
	case "IFEQ", "IFNE":
		p.sa.Mode, p.sa.MatchValue = opt, v
		if opt == "IFEQ" {
			p.ifeq = v
		} else {
			p.other = true
		}
	default: // IFDEQ, IFDNE
		d, err := strconv.ParseUint(v, 16, 64)
		switch {
		case err != nil || len(v) != 16:
			return "SetArgs.MatchDigest is a uint64, sent as 16 hex digits: " + strconv.Quote(v) + " is not one"
		case d == 0:
			return "SetArgs.MatchDigest 0 is read as no digest: IFDEQ/IFDNE 0000000000000000 goes out without it"
		}
		if v != fmt.Sprintf("%016x", d) {
			p.respelled = append(p.respelled, "SetArgs sends MatchDigest as %016x (lower case)")
		}
		p.sa.Mode, p.sa.MatchDigest, p.other = opt, d, true
	}
	return ""
}

// ttl maps EX s or PX ms onto TTL, a positive time.Duration.
func (p *setPlan) ttl(opt, v string) string {
	if p.sa.TTL != 0 {
		return "SetArgs.TTL holds one expiry: a second EX or PX cannot be sent"
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != v {
		return "SetArgs.TTL is a positive time.Duration (zero means no expiry): " + opt + " " + strconv.Quote(v) + " cannot be sent"
	}
	unit := time.Second
	if opt == "PX" {
		unit = time.Millisecond
		if n%1000 == 0 {
			// go-redis sends a whole number of seconds as EX.
			return "SetArgs.TTL of whole seconds goes out as EX: PX " + v + " cannot be sent"
		}
	}
	if n > math.MaxInt64/int64(unit) {
		return "SetArgs.TTL is a time.Duration, at most about 292 years: " + opt + " " + v + " cannot be sent"
	}
	p.sa.TTL, p.other = time.Duration(n)*unit, true
	return ""
}

// expireAt maps EXAT s or PXAT ms onto ExpireAt, a time.Time.
func (p *setPlan) expireAt(opt, v string) string {
	if !p.sa.ExpireAt.IsZero() {
		return "SetArgs.ExpireAt holds one time: a second EXAT or PXAT cannot be sent"
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != v {
		return "SetArgs.ExpireAt is a time.Time: " + opt + " " + strconv.Quote(v) + " cannot be sent"
	}
	if opt == "EXAT" {
		p.sa.ExpireAt = time.Unix(n, 0)
	} else {
		if n%1000 == 0 {
			// go-redis sends a time of whole seconds as EXAT.
			return "SetArgs.ExpireAt of whole seconds goes out as EXAT: PXAT " + v + " cannot be sent"
		}
		p.sa.ExpireAt = time.UnixMilli(n)
	}
	if p.sa.ExpireAt.IsZero() {
		return "SetArgs.ExpireAt's zero time means none: " + opt + " " + v + " cannot be sent"
	}
	p.other = true
	return ""
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
