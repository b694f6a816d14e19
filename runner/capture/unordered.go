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

// unorderedWithoutTips are the commands with tipUnordered on Redis 8.6.3
// (COMMAND), for upstreams whose COMMAND INFO gives no tips (before Redis
// 7.0; miniredis v2.40.0's table) or cannot be asked: COMMAND's are
// Volatile already; MODULE LIST's and FUNCTION LIST's replies nest maps,
// which stay bytes.
var unorderedWithoutTips = map[string]bool{
	"SMEMBERS": true, "SINTER": true, "SUNION": true, "SDIFF": true, "KEYS": true,
	"HKEYS": true, "HVALS": true, "HGETALL": true,
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
	out := map[int]bool{}
	var firstErr error
	for i, ex := range exchanges {
		if len(ex.Args) == 0 || len(ex.Replies) != 1 {
			continue
		}
		var info target.CommandInfo
		if t != nil {
			var err error
			if info, err = t.CommandOf(ctx, ex.Args); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		if info.Tips == nil && unorderedWithoutTips[commandName(ex.Args)] || slices.Contains(info.Tips, tipUnordered) {
			out[i] = true
		}
	}
	return out, firstErr
}

// commandName is the command's name in upper case.
func commandName(args [][]byte) string { return strings.ToUpper(string(args[0])) }
