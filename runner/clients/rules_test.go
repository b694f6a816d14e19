package clients

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestJudgeNamesTheRule: each of the judge's rules decides the verdict it
// is written for, and redis-py's response callbacks are conversions (PING
// → True, a score → float, SMEMBERS → set) where they keep the value, or
// the rule of a mismatch where they do not (SET … GET → False, a PING with
// a message → False); a callback registered for RESP2 alone is not tried
// on RESP3.
func TestJudgeNamesTheRule(t *testing.T) {
	set := func(elems ...Native) Native { return Native{Kind: "set", Type: "set", Elems: elems} }
	for _, tc := range []struct {
		client string
		proto  int
		cmd    string
		reply  string
		n      Native
		want   Verdict
		rule   string
		note   string // in the notes
	}{
		{"go-redis/resp3", 3, "GET k", "$1\r\nx\r\n", stringNative("string", "x"), Match, "", ""},
		{"go-redis/resp3", 3, "PING", "+PONG\r\n", stringNative("string", "PONG"), Erased, RuleKind, "simple string"},
		{"go-redis/resp2", 2, "GET k", "$1\r\nx\r\n", tx("bool", "bool", "false"), Mismatch, RuleKind, "decoded as bool"},
		{"go-redis/resp2", 2, "GET k", "$2\r\nxy\r\n", stringNative("string", "x"), Mismatch, RuleValue, "different"},
		{"go-redis/resp2", 2, "LRANGE k 0 -1", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", Native{Kind: "list", Type: "[]interface {}", Elems: []Native{stringNative("string", "a")}}, Mismatch, RuleLength, "2 elements on the wire, 1 decoded"},
		{"go-redis/resp3", 3, "SMEMBERS k", "~2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("string", "a"), stringNative("string", "c")), Mismatch, RuleMember, "no decoded element"},
		{"go-redis/resp3", 3, "GET k", "|1\r\n+a\r\n:1\r\n$1\r\nx\r\n", stringNative("string", "x"), Erased, RuleAttribute, "attribute"},
		{"go-redis/resp2", 2, "GET k", "$1\r\nx\r\n", errNative("exception", "net.OpError", "net.OpError", "reset"), Crash, RuleException, "reset"},
		{"redis-py-6.4.0/resp2", 2, "HGETALL h", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("dict", "f", "v"), Converted, RuleConversion, "pairs_to_dict"},
		{"redis-py-6.4.0/resp3", 3, "PING", "+PONG\r\n", tx("bool", "bool", "true"), Converted, RuleConversion, `"PING": lambda r: str_if_bytes(r) == "PONG"`},
		{"redis-py-4.3.4/resp2", 2, "PING hello", "$5\r\nhello\r\n", tx("bool", "bool", "false"), Mismatch, RuleCallback, "PING's callback"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "1.5"), Converted, RuleConversion, "float_or_none"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\ninf\r\n", tx("float", "float", "inf"), Converted, RuleConversion, "float_or_none"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "2.5"), Mismatch, RuleCallback, "float_or_none"},
		{"redis-py-6.4.0/resp3", 3, "INCRBYFLOAT k 0.2", "$3\r\n0.3\r\n", tx("float", "float", "0.3"), Converted, RuleConversion, "HINCRBYFLOAT INCRBYFLOAT"},
		// ZSCORE's float_or_none is registered for RESP2 alone in 6.4.0.
		{"redis-py-6.4.0/resp3", 3, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "1.5"), Mismatch, RuleKind, "decoded as float"},
		{"redis-py-6.4.0/resp2", 2, "SMEMBERS s", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("bytes", "b"), stringNative("bytes", "a")), Converted, RuleConversion, "set(r)"},
		{"redis-py-6.4.0/resp2", 2, "SMEMBERS s", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("bytes", "a")), Mismatch, RuleCallback, "set(r)"},
		{"redis-py-6.4.0/resp2", 2, "SET k v GET", "$3\r\nold\r\n", tx("bool", "bool", "false"), Mismatch, RuleCallback, "parse_set_result"},
		{"redis-py-6.4.0/resp2", 2, "SET k v", "+QUEUED\r\n", tx("bool", "bool", "false"), Mismatch, RuleCallback, "parse_set_result"},
		// The same value by a command without a callback: the kind rule.
		{"redis-py-6.4.0/resp2", 2, "GET k", "$3\r\nold\r\n", tx("bool", "bool", "false"), Mismatch, RuleKind, "decoded as bool"},
		// Without callbacks, none is named.
		{"redis-py-6.4.0[callbacks=none]/resp2", 2, "PING", "+PONG\r\n", tx("bool", "bool", "true"), Mismatch, RuleKind, "decoded as bool"},
	} {
		var args [][]byte
		for _, a := range strings.Fields(tc.cmd) {
			args = append(args, []byte(a))
		}
		v, notes, rule := contractFor(tc.client).JudgeCommand(context.Background(), tc.proto, args, []resp.Value{parse(t, tc.reply)}, tc.n)
		if v != tc.want || rule != tc.rule || !strings.Contains(strings.Join(notes, "\n"), tc.note) {
			t.Errorf("%s %s %q as %s: %s by %q %q, want %s by %q noting %q", tc.client, tc.cmd, tc.reply, tc.n.String(), v, rule, notes, tc.want, tc.rule, tc.note)
		}
	}
}

// TestRulesDocumented: every rule ID has one entry in Rules, which gives
// the verdicts it decides, and ruleOf names only documented rules for the
// verdicts their entries list.
func TestRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || r.Text == "" || len(r.Verdicts) == 0 {
			t.Errorf("rule %q: listed twice, or without text or verdicts", r.ID)
		}
		seen[r.ID] = true
	}
	for v := Converted; v <= Error; v++ {
		id := ruleOf(v)
		if id == "" {
			continue
		}
		i := slices.IndexFunc(Rules, func(r RuleDoc) bool { return r.ID == id })
		if i < 0 || !slices.Contains(Rules[i].Verdicts, v) {
			t.Errorf("ruleOf(%s) = %q, which Rules does not list for it", v, id)
		}
	}
}
