package clients

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/respcheck/respcheck/resp"
)

func parse(t *testing.T, s string) resp.Value {
	t.Helper()
	n, v, err := resp.Parse([]byte(s))
	if err != nil || n != len(s) {
		t.Fatalf("parse %q: n=%d err=%v", s, n, err)
	}
	return v
}

func tx(kind, typ, text string) Native { return textNative(kind, typ, text) }

// dict is a native map of string pairs k1, v1, k2, v2...
func dict(typ string, kv ...string) Native {
	n := Native{Kind: "map", Type: typ, Pairs: [][2]Native{}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Pairs = append(n.Pairs, [2]Native{stringNative("string", kv[i]), stringNative("string", kv[i+1])})
	}
	return n
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		client string
		reply  string
		n      Native
		want   Verdict
	}{
		{"redis-py-4.3.4/resp2", "$8\r\noriginal\r\n", tx("bool", "bool", "false"), Mismatch},
		{"redis-py-4.3.4/resp2", "+OK\r\n", tx("bool", "bool", "true"), Match},
		{"redis-py-4.3.4/resp2", "+QUEUED\r\n", tx("bool", "bool", "true"), Mismatch},
		{"redis-py-4.3.4/resp2", ":1\r\n", tx("bool", "bool", "true"), Match},
		{"redis-py-4.3.4/resp2", ":2\r\n", tx("bool", "bool", "true"), Mismatch},
		{"go-redis/resp3", "$8\r\noriginal\r\n", stringNative("string", "original"), Match},
		{"go-redis/resp3", "+OK\r\n", stringNative("string", "OK"), Erased},
		{"go-redis/resp2", "$8\r\noriginal\r\n", stringNative("string", "origina"), Mismatch},
		{"go-redis/resp2", "$8\r\noriginal\r\n", tx("bool", "bool", "false"), Mismatch},
		{"ioredis/resp2", ":9007199254740993\r\n", tx("number", "number", "9007199254740992"), Mismatch},
		{"ioredis/resp2", ":9007199254740992\r\n", tx("number", "number", "9007199254740992"), Match},
		{"node-redis/resp3", ",nan\r\n", tx("number", "number", "NaN"), Match},
		{"node-redis/resp3", ",inf\r\n", tx("number", "number", "Infinity"), Match},
		{"node-redis/resp3", ",0.1\r\n", tx("number", "number", "0.1"), Match},
		{"node-redis/resp3", ",0.1\r\n", tx("number", "number", "0.10000000000000002"), Mismatch},
		{"ioredis/resp3", ",3.141\r\n", stringNative("string", "3.141"), Erased},
		{"rueidis/resp3", "+OK\r\n", stringNative("RedisMessage simple string", "OK"), Match},
		{"go-redis/resp2", "*-1\r\n", Native{Kind: "nil", Type: "nil"}, Erased},
		{"go-redis/resp2", "$-1\r\n", Native{Kind: "nil", Type: "nil"}, Match},
		{"go-redis/resp2", "-ERR x\r\n", errNative("error", "proto.RedisError", "proto.RedisError", "ERR x"), Match},
		{"rueidis/resp2", "-ERR x\r\n", errNative("error", "RedisMessage simple error", "x", "x"), Erased},
		// An error's message is text in a Native: bytes that are not
		// UTF-8 may arrive as U+FFFD (erased, not told apart); any other
		// difference is still one.
		{"go-redis/resp2", "-ERR \xff\xfe\r\n", errNative("error", "proto.RedisError", "proto.RedisError", "ERR \uFFFD\uFFFD"), Erased},
		{"redis-py-6.4.0/resp2", "-ERR\r\n", errNative("error", "ResponseError", "ResponseError", ""), Erased},
		{"redis-py-6.4.0/resp3", "-ERR \xff\xfe\r\n", errNative("error", "ResponseError", "ResponseError", "\uFFFD\uFFFD"), Erased},
		{"redis-py-6.4.0/resp3", "-ERR \xffa\r\n", errNative("error", "ResponseError", "ResponseError", "\uFFFDb"), Mismatch},
		{"go-redis/resp2", "-ERR \xffa\r\n", errNative("error", "proto.RedisError", "proto.RedisError", "ERR \uFFFDb"), Mismatch},
		{"go-redis/resp2", "$1\r\nx\r\n", errNative("exception", "net.OpError", "net.OpError", "reset"), Crash},
		{"go-redis/resp3", "%1\r\n:1\r\n#t\r\n", Native{Kind: "map", Type: "map", Pairs: [][2]Native{{tx("int", "int64", "1"), tx("bool", "bool", "true")}}}, Match},
		{"node-redis/resp3", "%1\r\n:1\r\n#t\r\n", Native{Kind: "map", Type: "Object", Pairs: [][2]Native{{stringNative("string", "1"), tx("bool", "boolean", "true")}}}, Erased},
		{"node-redis/resp3", "%2\r\n:1\r\n#t\r\n$1\r\n1\r\n#f\r\n", Native{Kind: "map", Type: "Object", Pairs: [][2]Native{{stringNative("string", "1"), tx("bool", "boolean", "false")}}}, Mismatch},
		{"go-redis/resp3", "|1\r\n+a\r\n:1\r\n$1\r\nx\r\n", stringNative("string", "x"), Erased},
		{"ioredis/resp3", "=8\r\ntxt:some\r\n", stringNative("string", "txt:some"), Mismatch},
		// Documented conversions: converted, not mismatch; a conversion
		// that changes a value is still a mismatch.
		{"redis-py-6.4.0/resp2", "*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n", dict("dict", "f", "v", "g", "w"), Converted},
		{"redis-py-4.3.4/resp2", "*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n", dict("dict", "f", "v", "g", "x"), Mismatch},
		{"valkey-glide/resp2", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("GlideRecord", "f", "v"), Converted},
		{"go-redis/resp2", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("map", "f", "v"), Mismatch},
		{"valkey-glide/resp3", "|1\r\n$1\r\na\r\n:1\r\n$1\r\nx\r\n", Native{Kind: "map", Type: "Object", Pairs: [][2]Native{
			{stringNative("string", "value"), stringNative("string", "x")},
			{stringNative("string", "attributes"), Native{Kind: "map", Type: "GlideRecord", Pairs: [][2]Native{{stringNative("string", "a"), tx("number", "number", "1")}}}}}}, Converted},
		{"valkey-glide/resp3", "|1\r\n$1\r\na\r\n:1\r\n$1\r\nx\r\n", Native{Kind: "map", Type: "Object", Pairs: [][2]Native{
			{stringNative("string", "value"), stringNative("string", "y")},
			{stringNative("string", "attributes"), Native{Kind: "map", Type: "GlideRecord", Pairs: [][2]Native{{stringNative("string", "a"), tx("number", "number", "1")}}}}}}, Mismatch},
		{"ioredis/resp3", ">3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:1\r\n", tx("number", "number", "1"), Converted},
		{"ioredis/resp3", ">3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:1\r\n", tx("number", "number", "2"), Mismatch},
		{"node-redis/resp3", ">3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:1\r\n", tx("number", "number", "1"), Mismatch},
		{"rueidis/resp3", "=8\r\ntxt:some\r\n", stringNative("RedisMessage verbatim string", "txt:some"), Converted},
		{"rueidis/resp3", "=8\r\ntxt:some\r\n", stringNative("RedisMessage verbatim string", "txt:sum"), Mismatch},
		{"go-redis/resp3", "=8\r\ntxt:some\r\n", stringNative("string", "txt:some"), Mismatch},
		{"radix/resp2", "*-1\r\n", goNative([]any(nil)), Match},
		{"radix/resp2", "*0\r\n", goNative([]any{}), Match},
		{"radix/resp2", "*-1\r\n", goNative([]any{}), Mismatch},
		// An empty error text: an invented message is a mismatch.
		{"valkey-glide/resp2", "-ERR \r\n", errNative("error", "RequestError", "RequestError", "An error was signalled by the server: - ResponseError: "), Mismatch},
		{"redis-py-6.4.0/resp2", "-ERR \r\n", errNative("error", "ResponseError", "ResponseError", ""), Erased},
		// radix's nil []byte for $-1.
		{"radix/resp2", "$-1\r\n", goNative([]byte(nil)), Match},
		{"radix/resp2", "$0\r\n\r\n", goNative([]byte{}), Match},
	} {
		v := parse(t, tc.reply)
		got, notes := contractFor(tc.client).Judge(v, tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.reply, tc.n, got, tc.want, notes)
		}
	}
}

// TestJudgeFrames: a library that settles SUBSCRIBE a b with the last
// confirmation's count is judged against that frame.
func TestJudgeFrames(t *testing.T) {
	first := parse(t, ">3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n:1\r\n")
	last := parse(t, ">3\r\n$9\r\nsubscribe\r\n$2\r\nc2\r\n:2\r\n")
	c := contractFor("ioredis/resp3")
	if got, notes := c.JudgeFrames([]resp.Value{first, last}, tx("number", "number", "2")); got != Converted {
		t.Errorf("count of the last confirmation: %s %v", got, notes)
	}
	if got, _ := c.JudgeFrames([]resp.Value{first, last}, tx("number", "number", "1")); got != Mismatch {
		t.Errorf("count of the first confirmation: %s, want mismatch", got)
	}
}

func TestSelect(t *testing.T) {
	ds := append(goDrivers(), goRedisTypedDriver)
	got, err := Select(ds, "go-redis,go-redis-typed")
	if err != nil || len(got) != 2 {
		t.Fatalf("Select: %v %v", got, err)
	}
	if _, err := Select(ds, "nope"); err == nil || !strings.Contains(err.Error(), "the libraries are go-redis, rueidis,") {
		t.Fatalf("Select of an unknown client: %v", err)
	}
	if _, err := Select(ds, "go-redis-9"); err == nil || !strings.Contains(err.Error(), "of go-redis there are: go-redis (") {
		t.Fatalf("Select of an unknown version: %v", err)
	}
	if got, err := Select(ds, "go-redis,"); err != nil || len(got) != 1 {
		t.Fatalf("a trailing comma: %v %v", got, err)
	}
}

// TestSplitNames: a configuration's options may hold commas (phpredis's),
// which must not split its name (the client matrix's rerun of one
// phpredis cell failed on it: "unknown or unavailable client
// \"phpredis-5.3.7[OPT_REPLY_LITERAL=true\"").
func TestSplitNames(t *testing.T) {
	got := splitNames("go-redis, phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true],a[b]")
	want := []string{"go-redis", " phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]", "a[b]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitNames (-want +got):\n%s", diff)
	}
}

func mustRE(t *testing.T, s string) *regexp.Regexp {
	t.Helper()
	return regexp.MustCompile(s)
}

// TestAdaptersFor: a --clients list starts only the adapters that may
// serve a name of it (by label as Select reads it, else by library
// family), and the ones without either.
func TestAdaptersFor(t *testing.T) {
	as := []*Adapter{
		{Name: "a", Label: "ioredis-6.0.0"}, {Name: "b", Label: "ioredis-6.0.0[replyMapping=resp3]"},
		{Name: "c", Label: "ioredis-5.11.1"}, {Name: "d", Label: "go-redis"}, {Name: "e", Label: "go-redis-typed"},
		{Name: "f", Family: "redis-py"}, {Name: "g", Family: "redis-rb"}, {Name: "h"},
	}
	names := func(list string) string {
		var out []string
		for _, a := range adaptersFor(as, list) {
			out = append(out, a.Name)
		}
		return strings.Join(out, "")
	}
	for list, want := range map[string]string{
		"all":                      "abcdefgh",
		"ioredis":                  "abch",
		"ioredis-6.0.0":            "ah",
		"go-redis, redis-py-6.4.0": "dfh",
		"ioredis-6.0.0[replyMapping=resp3],redis-rb-4.8.0": "bgh",
		"go-redis-typed": "eh",
	} {
		if got := names(list); got != want {
			t.Errorf("adaptersFor(%q) = %s, want %s", list, got, want)
		}
	}
	if family("redis-py-6.4.0[callbacks=none]") != "redis-py" || family("go-redis/pipeline") != "go-redis" || family("ioredis-typed") != "ioredis-typed" {
		t.Error("family")
	}
}

// TestOneProcessEach: for a listing, the adapters that differ only in the
// configuration they load (RESPCHECK_LIBS, RESPCHECK_PY_CONFIG) are one
// process each with neither variable, in the place of the first; an
// adapter with other differences (another PYTHONPATH, another command, a
// suffix) or no such variable stays as it is.
func TestOneProcessEach(t *testing.T) {
	as := []*Adapter{
		{Name: "go go-redis", Cmd: []string{"rc"}, Env: []string{"GO=1", "RESPCHECK_LIBS=go-redis"}},
		{Name: "node ioredis", Cmd: []string{"node", "a.js"}, Env: []string{"RESPCHECK_LIBS=ioredis"}},
		{Name: "go rueidis", Cmd: []string{"rc"}, Env: []string{"GO=1", "RESPCHECK_LIBS=rueidis"}},
		{Name: "hiredis", Cmd: []string{"hiredis-adapter"}},
		{Name: "node redis", Cmd: []string{"node", "a.js"}, Env: []string{"RESPCHECK_LIBS=redis"}},
		{Name: "redis-py (system)", Cmd: []string{"py"}, Env: []string{"RESPCHECK_PY_CONFIG="}},
		{Name: "redis-py/pipeline (system)", Cmd: []string{"py"}, Env: []string{"RESPCHECK_PY_CONFIG=/pipeline"}},
		{Name: "redis-py-6.4.0", Cmd: []string{"py"}, Env: []string{"PYTHONPATH=sid", "RESPCHECK_PY_CONFIG="}},
		{Name: "redis-py-6.4.0/pipeline", Cmd: []string{"py"}, Env: []string{"PYTHONPATH=sid", "RESPCHECK_PY_CONFIG=/pipeline"}},
		{Name: "other go", Cmd: []string{"rc"}, Env: []string{"GO=1", "RESPCHECK_LIBS=radix"}, Suffix: "-x"},
	}
	var got []string
	for _, a := range oneProcessEach(as, nil) {
		got = append(got, fmt.Sprintf("%s %v %v %s", a.Name, a.Cmd, a.Env, a.Suffix))
	}
	want := []string{
		"go [rc] [GO=1] ",
		"node [node a.js] [] ",
		"hiredis [hiredis-adapter] [] ",
		"redis-py [py] [] ",
		"redis-py-6.4.0 [py] [PYTHONPATH=sid] ",
		"other [rc] [GO=1] -x",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("oneProcessEach (-want +got):\n%s", diff)
	}
	if as[0].Env[1] != "RESPCHECK_LIBS=go-redis" {
		t.Error("the adapters given were changed")
	}
}
