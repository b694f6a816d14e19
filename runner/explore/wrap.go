package explore

import (
	"strings"
)

// A generated command may be run inside a Lua script instead of on its
// own: EVAL (or EVAL_RO) with one of the scripts of scriptVariants, no
// declared key (numkeys 0) and the command's words as ARGV. The script's
// redis.call converts the reply to Lua and back (RESP2 rules, or RESP3's
// after redis.setresp(3)), and an error reply becomes a script error
// whose text each server words its own way: the paths the bundled suite
// declares per server for EVAL and EVAL_RO (Lua error shapes, a write in
// a read-only script), now drawn for every command of the grammar. The
// command inside is one the generator drew (Command.Safe: its keys are
// the prepared keyspace's), so the script touches no other key; a script
// that names keys it did not declare is refused on a cluster only where
// they are not the node's (every key of the keyspace is in one slot, on
// the node the explorer sends to).

// scriptVariant is one way to run a command in a script: the script
// command, the script, and the name a wrapped command gets in signatures,
// noise and findings ("EVAL(LPUSH)", see explorer.name).
type scriptVariant struct {
	cmd, script, name string
}

// scriptVariants are the ways, each as likely as the others.
var scriptVariants = []scriptVariant{
	{"EVAL", "return redis.call(unpack(ARGV))", "EVAL"},
	{"EVAL", "redis.setresp(3) return redis.call(unpack(ARGV))", "EVAL3"},
	{"EVAL_RO", "return redis.call(unpack(ARGV))", "EVAL_RO"},
}

// ScriptCommands are the script commands the wrapped commands are sent
// with: a target without one of them (Options.ScriptsMissing) is sent
// none of its variants.
var ScriptCommands = []string{"EVAL", "EVAL_RO"}

// evalHead is how many words come before the wrapped command: the script
// command, the script and numkeys.
const evalHead = 3

// wrapEval returns args run by scriptVariants[variant].
func wrapEval(args []string, variant int) []string {
	v := scriptVariants[variant]
	return append([]string{v.cmd, v.script, "0"}, args...)
}

// unwrapEval returns the command a wrapped script command runs and the
// variant of its script; ok is false for any other command (an EVAL of
// another script included).
func unwrapEval(args []string) (inner []string, variant int, ok bool) {
	if len(args) <= evalHead || args[2] != "0" {
		return nil, 0, false
	}
	for i, v := range scriptVariants {
		if args[1] == v.script && strings.EqualFold(args[0], v.cmd) {
			return args[evalHead:], i, true
		}
	}
	return nil, 0, false
}

// scriptTail is what a script error's text says after the error itself:
// Redis 7.0 to 8.6.3 end it with " script: <the script's SHA1>, on
// @user_script:<line>.", Valkey 9 with " script: on @user_script:<line>."
// (cases/suite/scripting.yaml declares both).
const scriptTail = " script: "

// scriptErrorTails says whether a and b, the replies of one wrapped
// command on A and B, are the same error in their own words up to their
// script tails, and gives the tails' classes (a SHA1 as <sha>, digits as
// #): the difference of every script error between two servers, found
// once as a finding of its own rather than once per command (Redis 8.6.3
// and Valkey 9.1.2 differ there for every command that errs inside a
// script).
func scriptErrorTails(args []string, a, b []byte) (ta, tb string, ok bool) {
	if _, _, wrapped := unwrapEval(args); !wrapped || len(a) == 0 || len(b) == 0 || a[0] != '-' || b[0] != '-' {
		return "", "", false
	}
	ha, ta, okA := strings.Cut(string(a), scriptTail)
	hb, tb, okB := strings.Cut(string(b), scriptTail)
	if !okA || !okB || ha != hb || ta == tb {
		return "", "", false
	}
	return tailClass(ta), tailClass(tb), true
}

// tailClass is a script error's tail with a SHA1 and digits blanked.
func tailClass(t string) string {
	t = strings.TrimSuffix(t, "\r\n")
	var out []string
	for _, w := range strings.Fields(t) {
		core := strings.TrimRight(w, ",.")
		if len(core) == 40 && strings.Trim(core, "0123456789abcdef") == "" {
			w = "<sha>" + w[len(core):]
		}
		out = append(out, strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, w))
	}
	return strings.Join(out, " ")
}

// scriptLayerErrors says whether a and b, the replies of one wrapped
// command on A and B, are both errors of the script layer rather than of
// the command ("ERR Wrong number of args calling Redis command from
// script" on Redis 8.6.3, "... calling command from script" on Valkey
// 9.1.2: the words of redis.call, whatever the command) in other words,
// and gives their texts up to the tail, digits blanked: one finding for
// all commands, as scriptErrorTails.
func scriptLayerErrors(args []string, a, b []byte) (ha, hb string, ok bool) {
	if _, _, wrapped := unwrapEval(args); !wrapped || len(a) == 0 || len(b) == 0 || a[0] != '-' || b[0] != '-' {
		return "", "", false
	}
	ha, _, _ = strings.Cut(strings.TrimSuffix(string(a[1:]), "\r\n"), scriptTail)
	hb, _, _ = strings.Cut(strings.TrimSuffix(string(b[1:]), "\r\n"), scriptTail)
	if ha == hb || !strings.Contains(ha, "from script") || !strings.Contains(hb, "from script") {
		return "", "", false
	}
	return tailClass(ha), tailClass(hb), true
}
