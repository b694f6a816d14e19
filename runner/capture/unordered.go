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
// 7.0; miniredis v2.40.0's table): COMMAND and MODULE LIST are Volatile
// already.
var unorderedWithoutTips = map[string]bool{
	"SMEMBERS": true, "SINTER": true, "SUNION": true, "SDIFF": true, "KEYS": true,
	"HKEYS": true, "HVALS": true, "HGETALL": true, "FUNCTION LIST": true,
}

// Unordered returns the exchanges (by index) whose commands' replies have
// no order on the upstream t, as Options.Unordered takes them: COMMAND
// INFO's tips say nondeterministic_output_order (on Redis 8.6.3: SMEMBERS,
// SINTER, SUNION, SDIFF, KEYS, HKEYS, HVALS, HGETALL, FUNCTION LIST,
// MODULE LIST and COMMAND's), or, where the upstream gives no tips,
// unorderedWithoutTips names them. One COMMAND INFO per command name
// (t caches them); an error is the first lookup's that failed, with what
// was found before it.
func Unordered(ctx context.Context, t *target.Target, exchanges []clients.Exchange) (map[int]bool, error) {
	out := map[int]bool{}
	for i, ex := range exchanges {
		if len(ex.Args) == 0 || len(ex.Replies) != 1 {
			continue
		}
		info, err := t.CommandOf(ctx, ex.Args)
		if err != nil {
			return out, err
		}
		if info.Tips == nil && unorderedWithoutTips[commandName(ex.Args)] || slices.Contains(info.Tips, tipUnordered) {
			out[i] = true
		}
	}
	return out, nil
}

// commandName is the command's name in upper case, with its subcommand
// for FUNCTION.
func commandName(args [][]byte) string {
	name := strings.ToUpper(string(args[0]))
	if name == "FUNCTION" && len(args) > 1 {
		name += " " + strings.ToUpper(string(args[1]))
	}
	return name
}
