package capture

import (
	"context"
	"slices"
	"strings"

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
// Volatile already; MODULE LIST's and FUNCTION LIST's replies nest maps,
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
