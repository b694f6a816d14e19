package capture

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// tipUnordered is the COMMAND INFO tip of a command whose reply's
// elements come in no particular order.
const tipUnordered = "nondeterministic_output_order"

// flagBlocking is the COMMAND INFO flag of a command that may wait for
// another connection before it replies (Redis 7.0+, Valkey).
const flagBlocking = "blocking"

// unorderedWithoutTips are the commands with tipUnordered on Redis 8.6.3
// (COMMAND), for upstreams whose COMMAND INFO gives no tips (before Redis
// 7.0; miniredis v2.40.0's table) or cannot be asked: COMMAND's are
// volatileCommands already; MODULE LIST's and FUNCTION LIST's replies nest maps,
// which stay bytes.
var unorderedWithoutTips = map[string]bool{
	"SMEMBERS": true, "SINTER": true, "SUNION": true, "SDIFF": true, "KEYS": true,
	"HKEYS": true, "HVALS": true, "HGETALL": true,
}

// blockingWithoutFlags are the commands with flagBlocking on Redis 8.6.3
// (COMMAND), for upstreams that do not flag them (before Redis 7.0) or
// cannot be asked: CaseFile treats them as blocking whatever
// Options.Blocking says.
var blockingWithoutFlags = map[string]bool{
	"BLPOP": true, "BRPOP": true, "BRPOPLPUSH": true, "BLMOVE": true, "BLMPOP": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "XREAD": true, "XREADGROUP": true,
	"WAIT": true, "WAITAOF": true,
}

// Unordered returns the exchanges (by index) whose commands' replies have
// no order on the upstream t, as Options.Unordered takes them: COMMAND
// INFO's tips say nondeterministic_output_order (on Redis 8.6.3: SMEMBERS,
// SINTER, SUNION, SDIFF, KEYS, HKEYS, HVALS, HGETALL, FUNCTION LIST,
// MODULE LIST and COMMAND's), or, where the upstream gives no tips (or
// cannot be asked: an error), unorderedWithoutTips names them. One
// COMMAND INFO per command name (t caches them; a lookup that failed is
// not kept and is asked again); the error is the first lookup's that
// failed, with every exchange marked. A nil t (an upstream that could not
// be reached) asks nothing: the table decides.
func Unordered(ctx context.Context, t *target.Target, exchanges []clients.Exchange) (map[int]bool, error) {
	return marked(ctx, t, exchanges, func(ex clients.Exchange, info target.CommandInfo) bool {
		if len(ex.Replies) != 1 {
			return false
		}
		return info.Tips == nil && unorderedWithoutTips[commandName(ex.Args)] || slices.Contains(info.Tips, tipUnordered)
	})
}

// Blocking returns the exchanges (by index) whose commands the upstream t
// flags blocking in COMMAND INFO (a module's too), as Options.Blocking
// takes them; blockingWithoutFlags are blocking anyway. Lookups and errors
// as for Unordered; a nil t asks nothing and returns none.
func Blocking(ctx context.Context, t *target.Target, exchanges []clients.Exchange) (map[int]bool, error) {
	return marked(ctx, t, exchanges, func(_ clients.Exchange, info target.CommandInfo) bool {
		return slices.Contains(info.Flags, flagBlocking)
	})
}

// marked returns the exchanges (by index) with a command and a reply
// for which mark holds, given the command's COMMAND INFO on t (the zero
// CommandInfo where t is nil or the lookup failed); the error is the
// first failed lookup's.
func marked(ctx context.Context, t *target.Target, exchanges []clients.Exchange, mark func(clients.Exchange, target.CommandInfo) bool) (map[int]bool, error) {
	out := map[int]bool{}
	var firstErr error
	for i, ex := range exchanges {
		if len(ex.Args) == 0 || len(ex.Replies) == 0 {
			continue
		}
		var info target.CommandInfo
		if t != nil {
			var err error
			if info, err = t.CommandOf(ctx, ex.Args); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		if mark(ex, info) {
			out[i] = true
		}
	}
	return out, firstErr
}

// commandName is the command's name in upper case.
func commandName(args [][]byte) string { return strings.ToUpper(string(args[0])) }

// blockingWait is how long a blocking command may wait for its reply by
// its own arguments (BLPOP's last, BLMPOP's first, XREAD's BLOCK ms,
// WAIT's ms, ...); 0 for none, forever (a timeout of 0) or a command that
// is not blocking.
func blockingWait(args [][]byte) time.Duration {
	if len(args) < 2 {
		return 0
	}
	seconds := func(b []byte) time.Duration {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || f <= 0 || f > 1e6 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	ms := func(b []byte) time.Duration { return seconds(b) / 1000 }
	last := args[len(args)-1]
	switch commandName(args) {
	case "BLPOP", "BRPOP", "BZPOPMIN", "BZPOPMAX", "BRPOPLPUSH", "BLMOVE":
		return seconds(last)
	case "BLMPOP", "BZMPOP":
		return seconds(args[1])
	case "WAIT", "WAITAOF":
		return ms(last)
	case "XREAD", "XREADGROUP":
		for i := 1; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "BLOCK") {
				return ms(args[i+1])
			}
		}
	}
	return 0
}
