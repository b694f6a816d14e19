package clients

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	str := func(s string) Native { return stringNative("str", s) }
	// INFO's text and what parse_info makes of it (redis-py 6.4.0).
	const infoText = "# Server\r\nredis_version:8.6.3\r\nconnected_clients:1\r\n\r\n# Keyspace\r\ndb0:keys=1\r\nmem_fragmentation_ratio:1.5\r\nno colon here\r\n"
	info := "$" + strconv.Itoa(len(infoText)) + "\r\n" + infoText + "\r\n"
	infoDict := func(kv ...any) Native {
		n := Native{Kind: "map", Type: "dict"}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Pairs = append(n.Pairs, [2]Native{str(kv[i].(string)), kv[i+1].(Native)})
		}
		return n
	}
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
		{"go-redis/resp3", 3, "PING", "+PONG\r\n", stringNative("string", "PONG"), Erased, ruleKind, "simple string"},
		{"go-redis/resp2", 2, "GET k", "$1\r\nx\r\n", tx("bool", "bool", "false"), Mismatch, ruleKind, "decoded as bool"},
		{"go-redis/resp2", 2, "GET k", "$2\r\nxy\r\n", stringNative("string", "x"), Mismatch, RuleValue, "different"},
		{"go-redis/resp2", 2, "LRANGE k 0 -1", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", Native{Kind: "list", Type: "[]interface {}", Elems: []Native{stringNative("string", "a")}}, Mismatch, ruleLength, "2 elements on the wire, 1 decoded"},
		{"go-redis/resp3", 3, "SMEMBERS k", "~2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("string", "a"), stringNative("string", "c")), Mismatch, ruleMember, "no decoded element"},
		{"go-redis/resp3", 3, "GET k", "|1\r\n+a\r\n:1\r\n$1\r\nx\r\n", stringNative("string", "x"), Erased, ruleAttribute, "attribute"},
		{"go-redis/resp2", 2, "GET k", "$1\r\nx\r\n", errNative("exception", "net.OpError", "net.OpError", "reset"), Crash, ruleException, "reset"},
		{"redis-py-6.4.0/resp2", 2, "HGETALL h", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("dict", "f", "v"), Converted, ruleConversion, "pairs_to_dict"},
		{"redis-py-6.4.0/resp3", 3, "PING", "+PONG\r\n", tx("bool", "bool", "true"), Converted, ruleConversion, `"PING": lambda r: str_if_bytes(r) == "PONG"`},
		{"redis-py-4.3.4/resp2", 2, "PING hello", "$5\r\nhello\r\n", tx("bool", "bool", "false"), Mismatch, ruleCallback, "PING's callback"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "1.5"), Converted, ruleConversion, "float_or_none"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\ninf\r\n", tx("float", "float", "inf"), Converted, ruleConversion, "float_or_none"},
		{"redis-py-6.4.0/resp2", 2, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "2.5"), Mismatch, ruleCallback, "float_or_none"},
		{"redis-py-6.4.0/resp3", 3, "INCRBYFLOAT k 0.2", "$3\r\n0.3\r\n", tx("float", "float", "0.3"), Converted, ruleConversion, "HINCRBYFLOAT INCRBYFLOAT"},
		// ZSCORE's float_or_none is registered for RESP2 alone in 6.4.0.
		{"redis-py-6.4.0/resp3", 3, "ZSCORE z m", "$3\r\n1.5\r\n", tx("float", "float", "1.5"), Mismatch, ruleKind, "decoded as float"},
		{"redis-py-6.4.0/resp2", 2, "SMEMBERS s", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("bytes", "b"), stringNative("bytes", "a")), Converted, ruleConversion, "set(r)"},
		{"redis-py-6.4.0/resp2", 2, "SMEMBERS s", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", set(stringNative("bytes", "a")), Mismatch, ruleCallback, "set(r)"},
		{"redis-py-6.4.0/resp2", 2, "SET k v GET", "$3\r\nold\r\n", tx("bool", "bool", "false"), Mismatch, ruleCallback, "parse_set_result"},
		{"redis-py-6.4.0/resp2", 2, "SET k v", "+QUEUED\r\n", tx("bool", "bool", "false"), Mismatch, ruleCallback, "parse_set_result"},
		// parse_info keeps every field: converted; a field lost or parsed
		// otherwise: the callback's mismatch.
		{"redis-py-6.4.0/resp2", 2, "INFO", info, infoDict("redis_version", str("8.6.3"), "connected_clients", tx("int", "int", "1"), "db0", dict("dict", "keys", "1", "expires", "0"), "mem_fragmentation_ratio", tx("float", "float", "1.5"), "__raw__", Native{Kind: "list", Type: "list"}), Converted, ruleConversion, "parse_info"},
		{"redis-py-6.4.0/resp3", 3, "INFO", "=" + strconv.Itoa(len(infoText)+4) + "\r\ntxt:" + infoText + "\r\n", infoDict("redis_version", str("8.6.3"), "connected_clients", tx("int", "int", "1"), "db0", dict("dict", "keys", "1", "expires", "0"), "mem_fragmentation_ratio", tx("float", "float", "1.5"), "__raw__", Native{Kind: "list", Type: "list"}), Converted, ruleConversion, "parse_info"},
		{"redis-py-6.4.0/resp2", 2, "INFO", info, infoDict("redis_version", str("8.6.3"), "connected_clients", tx("int", "int", "2"), "db0", dict("dict", "keys", "1", "expires", "0"), "mem_fragmentation_ratio", tx("float", "float", "1.5"), "__raw__", Native{Kind: "list", Type: "list"}), Mismatch, ruleCallback, "parse_info"},
		{"redis-py-6.4.0/resp2", 2, "INFO", info, infoDict("redis_version", str("8.6.3"), "connected_clients", tx("int", "int", "1"), "db0", dict("dict", "keys", "1", "expires", "0")), Mismatch, ruleCallback, "parse_info"},
		{"redis-py-6.4.0/resp2", 2, "INFO", "$45\r\n# S\r\nconnected_clients:1\r\nconnected_clients:2\r\n", infoDict("connected_clients", tx("int", "int", "2")), Mismatch, ruleCallback, "parse_info"},
		// An erasure a conversion explains: the conversion decided.
		{"rueidis/to-any/resp3", 3, "DEBUG PROTOCOL verbatim", "=15\r\ntxt:Some string\r\n", stringNative("string", "txt:Some string"), Converted, ruleConversion, "verbatim string kept whole"},
		// The same value by a command without a callback: the kind rule.
		{"redis-py-6.4.0/resp2", 2, "GET k", "$3\r\nold\r\n", tx("bool", "bool", "false"), Mismatch, ruleKind, "decoded as bool"},
		// Without callbacks, none is named.
		{"redis-py-6.4.0[callbacks=none]/resp2", 2, "PING", "+PONG\r\n", tx("bool", "bool", "true"), Mismatch, ruleKind, "decoded as bool"},
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

// TestMatrixFindingsNameARule: every finding and conversion line of the
// committed matrix pages names the rule that decided it, one of Rules
// that gives that verdict.
func TestMatrixFindingsNameARule(t *testing.T) {
	line := regexp.MustCompile("^- \\*\\*([a-z]+)\\*\\* \\(rule: ([a-z-]+)\\) `")
	for _, page := range matrixPages {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "generated", page))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "- **") {
				continue
			}
			n++
			m := line.FindStringSubmatch(l)
			var v Verdict
			if m == nil || v.UnmarshalText([]byte(m[1])) != nil {
				t.Errorf("docs/generated/%s:%d names no rule: %.160s", page, i+1, l)
				continue
			}
			k := slices.IndexFunc(Rules, func(r RuleDoc) bool { return r.ID == m[2] })
			if k < 0 || !slices.Contains(Rules[k].Verdicts, v) {
				t.Errorf("docs/generated/%s:%d: rule %q does not give %s: %.160s", page, i+1, m[2], v, l)
			}
		}
		if n < 100 {
			t.Errorf("docs/generated/%s: %d finding lines", page, n)
		}
	}
}

// TestScorePairs: redis-py's typed zrange(withscores=True) on RESP2 turns
// the flat member, score array into (member, float) tuples: converted;
// a wrong score is not.
func TestScorePairs(t *testing.T) {
	args := [][]byte{[]byte("ZRANGE"), []byte("z"), []byte("0"), []byte("-1"), []byte("WITHSCORES")}
	reply := parse(t, "*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n")
	pair := func(m, s string) Native {
		return Native{Kind: "list", Type: "tuple", Elems: []Native{stringNative("bytes", m), tx("float", "float", s)}}
	}
	for _, tc := range []struct {
		n    Native
		want Verdict
	}{
		{Native{Kind: "list", Type: "list", Elems: []Native{pair("a", "1.5"), pair("b", "2.0")}}, Converted},
		{Native{Kind: "list", Type: "list", Elems: []Native{pair("a", "1.5"), pair("b", "3.0")}}, Mismatch},
	} {
		v, notes, _ := contractFor("redis-py-typed/resp2").JudgeCommand(context.Background(), 2, args, []resp.Value{reply}, tc.n)
		if v != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.n.String(), v, notes, tc.want)
		}
	}
}
