package cases

import (
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// loadErrs loads src as t.yaml with opts and returns its error messages
// without the "t.yaml:" prefix (nil when it loads).
func loadErrs(t *testing.T, src string, opts Options) []string {
	t.Helper()
	_, err := LoadWith("t.yaml", []byte(src), opts)
	if err == nil {
		return nil
	}
	var msgs []string
	for _, line := range strings.Split(err.Error(), "\n") {
		msgs = append(msgs, strings.TrimPrefix(line, "t.yaml:"))
	}
	return msgs
}

func checkErrs(t *testing.T, name string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", name, got, want)
	}
}

func TestVariables(t *testing.T) {
	env := func(name string) (string, bool) {
		v, ok := map[string]string{"USER_NAME": "ann"}[name]
		return v, ok
	}
	opts := Options{Vars: map[string]string{"host": "db-1", "brace": "{key}"}, LookupEnv: env}
	src := stepsFile("      - send: [SET, \"{key}\", \"{var:host}/{env:USER_NAME}\"]\n" +
		"      - send: [GET, \"{key}\"]\n        value: \"{var:brace}\"\n")
	f, err := LoadWith("t.yaml", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{KeyPrefix: KeyPrefix("x")}
	if got, _ := f.Cases[0].Steps[0].Send[2].ExpandString(e); got != "db-1/ann" {
		t.Errorf("send expands to %q", got)
	}
	if !slices.Equal(f.Vars, []string{"brace", "host"}) {
		t.Errorf("File.Vars = %q, want the two {var:} names", f.Vars)
	}
	// A value is literal text: the {key} it holds is not a template.
	if got, _ := f.Cases[0].Steps[1].Expect[0].Expect.Value.Text.ExpandString(e); got != "{key}" {
		t.Errorf("value expands to %q", got)
	}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unset var", stepsFile("      - send: [GET, \"{var:port}\"]\n"),
			[]string{`5:21: variable "port" is not set: give --var port=VALUE`}},
		{"unset env", stepsFile("      - send: [PING]\n        reply: \"+{env:NOPE}\\r\\n\"\n"),
			[]string{`6:16: environment variable "NOPE" is not set ({env:NOPE})`}},
		{"bad name", stepsFile("      - send: [GET, \"{var:a-b}\"]\n"),
			[]string{`5:21: bad variable name "a-b" in {var:NAME} (want letters, digits and '_', not starting with a digit)`}},
		{"no name", stepsFile("      - send: [GET, \"{env}\"]\n"),
			[]string{`5:21: bad "{env}": want {env:NAME}`}},
	} {
		checkErrs(t, tc.name, loadErrs(t, tc.src, opts), tc.want)
	}
}

func TestVerbatimFieldsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string
	}{
		{"empty", "{verbatim: {}}", []string{`6:27: empty verbatim string (want format, text or match)`}},
		{"long format", "{verbatim: {format: text}}", []string{`6:36: verbatim format "text" must be 3 bytes without ':', such as txt or mkd`}},
		{"colon", `{verbatim: {format: "tx:"}}`, []string{`6:36: verbatim format "tx:" must be 3 bytes without ':', such as txt or mkd`}},
		{"text and match", "{verbatim: {text: a, match: b}}", []string{`6:37: verbatim string has both "text" and "match"`}},
		{"unknown", "{verbatim: {fmt: txt}}", []string{`6:28: unknown field "fmt" in verbatim string (want one of: format, text, match)`}},
	} {
		src := stepsFile("      - send: [X]\n        value: " + tc.value + "\n")
		checkErrs(t, tc.name, loadErrs(t, src, Options{}), tc.want)
	}
}

func TestLooseValueErrors(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		want        []string
	}{
		{"within alone", "value: {within: 1}", []string{`6:17: within is the tolerance of a double: write {double: "0.3", within: 1e-9} (or within: 1%) with exactly these two keys`}},
		{"within of an int", "value: {int: 1, within: 1}", []string{`6:25: within is the tolerance of a double: write {double: "0.3", within: 1e-9} (or within: 1%) with exactly these two keys`}},
		{"bad within", "value: {double: \"1\", within: -1}", []string{`6:38: bad within "-1": want a non-negative number (absolute) or a percentage such as 1% (relative)`}},
		{"bad percent", "value: {double: \"1\", within: \"x%\"}", []string{`6:38: bad within "x%": want a non-negative number (absolute) or a percentage such as 1% (relative)`}},
		{"not a number", "value: {double: \"abc\", within: 1}", []string{`6:40: within needs a number: double "abc" is not a decimal number`}},
		{"bad nil", "value: {nil: some}", []string{`6:22: bad nil "some": want blob ($-1), array (*-1) or any ($-1, *-1 or RESP3's _); RESP3's null alone is {null: true}`}},
		{"string twice", "value: {string: a, blob: a}", []string{`6:28: typed value has both "string" and "blob"`}},
		{"one_of of one", "one_of: [{value: 1}]", []string{`6:17: one_of needs at least two expectations`}},
		{"one_of not a list", "one_of: {value: 1}", []string{`6:17: one_of must be a sequence, not a mapping`}},
		{"one_of item of two", "one_of: [{value: 1, any: true}, {any: true}]", []string{`6:18: one_of item must hold exactly one expectation field (want one of: reply, value, error, error_code, error_match, any, one_of)`}},
		{"one_of unknown field", "one_of: [{valeu: 1}, {any: true}]", []string{`6:19: unknown field "valeu" in one_of item: did you mean "value"? (want one of: reply, value, error, error_code, error_match, any, one_of)`}},
		{"one_of selector map", "one_of: [{value: {resp2: 1, resp3: 2}}, {any: true}]", []string{`6:26: a selector map inside one_of: put one_of inside the selector map instead, or use expect with when`}},
		{"one_of bad member", "one_of: [{reply: \"+OK\"}, {any: true}]", []string{`6:26: reply is not one complete RESP frame: incomplete frame (missing "\r\n"?): unexpected EOF at offset 0 in simple string (stream ended at offset 3): "+OK"`}},
	} {
		src := stepsFile("      - send: [X]\n        " + tc.field + "\n")
		checkErrs(t, tc.name, loadErrs(t, src, Options{}), tc.want)
	}
}

func TestSinceAndRedisVersion(t *testing.T) {
	valkey := ServerInfo{Family: "valkey", Version: Version{9, 1, 2}, RedisVersion: Version{7, 2, 4}, Proto: 2}
	redis := ServerInfo{Family: "redis", Version: Version{6, 0, 9}, RedisVersion: Version{6, 0, 9}, Proto: 2}
	src := "suite: t\ncases:\n  - name: c\n    requires: {since: \"6.2\"}\n    steps:\n      - send: [PING]\n        reply: {\"redis_version>=7.2.4\": \"+PONG\\r\\n\", default: \"+OK\\r\\n\"}\n"
	f, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	if !c.Requires.MatchServer(valkey) || c.Requires.MatchServer(redis) {
		t.Errorf("since 6.2: valkey %v, redis 6.0.9 %v", c.Requires.MatchServer(valkey), c.Requires.MatchServer(redis))
	}
	if e, _ := c.Steps[0].Expect.Resolve(valkey); e.Bytes.Source() != "+PONG\r\n" {
		t.Errorf("redis_version>=7.2.4 does not select valkey 9.1.2")
	}
	for _, tc := range []struct{ name, requires, want string }{
		{"bad since", `{since: "6.x"}`, `4:23: bad since: bad version "6.x": want 1 to 3 dot-separated numbers (such as since: "6.2")`},
		{"since list", `{since: [6]}`, `4:23: since must be a string, not a sequence`},
		{"bare redis_version", `{server: redis_version}`, `4:24: bad selector "redis_version": redis_version needs a version constraint, such as redis_version>=6.2`},
	} {
		src := "suite: t\ncases:\n  - name: c\n    requires: " + tc.requires + "\n    steps: [{send: [PING]}]\n"
		checkErrs(t, tc.name, loadErrs(t, src, Options{}), []string{tc.want})
	}
}

func TestSilentAndRepliesErrors(t *testing.T) {
	checkErrs(t, "bare string item", loadErrs(t, stepsFile("      - raw: \"x\"\n        replies: [\"+OK\\r\\n\", closed]\n"), Options{}),
		[]string{`6:19: bad expectation "+OK\r\n": want closed, closed within DURATION, no reply within DURATION, or a list of variants`})
	f, err := Load("t.yaml", []byte(stepsFile(`      - raw: "\r\n"
        expect: no reply within 100ms
      - raw: "*1\r\n$4\r\nPING\r\n*\x00"
        replies: [{reply: "+PONG\r\n"}, closed within 2s]
      - raw: "x"
        replies: [{reply: "+PONG\r\n"}, {expect: [{when: resp2, error_code: ERR}, {when: resp3, expect: closed}]}]
`)))
	if err != nil {
		t.Fatal(err)
	}
	st := f.Cases[0].Steps
	if e := st[0].Expect[0].Expect; e.Kind != ExpectNoReply || e.Within.String() != "100ms" {
		t.Errorf("no reply: %v %v", e.Kind, e.Within)
	}
	if len(st[1].Replies) != 2 || st[1].Replies[1][0].Expect.Kind != ExpectClosed || st[1].Replies[1][0].Expect.Within.String() != "2s" {
		t.Errorf("replies: %+v", st[1].Replies)
	}
	if e := st[2].Replies[1][1]; e.Expect.Kind != ExpectClosed || e.When.Text != "resp3" {
		t.Errorf("closed under a when: %+v", e)
	}
	for _, tc := range []struct{ name, steps, want string }{
		{"bad silent", "      - raw: \"x\"\n        expect: close\n", `6:17: bad expectation "close": want closed, closed within DURATION, no reply within DURATION, or a list of variants`},
		{"bad duration", "      - raw: \"x\"\n        expect: no reply within soon\n", `6:17: bad duration "soon" in "no reply within soon": want a positive Go duration such as 100ms`},
		{"zero duration", "      - raw: \"x\"\n        expect: closed within 0s\n", `6:17: bad duration "0s" in "closed within 0s": want a positive Go duration such as 100ms`},
		{"closed not last", "      - raw: \"x\"\n        replies: [closed, {reply: \"+OK\\r\\n\"}]\n", `6:19: closed must be the last of the replies: nothing can be read after the server closed the connection`},
		{"one reply", "      - raw: \"x\"\n        replies: [closed]\n", `6:18: replies needs at least two expectations (one reply: use the expectation field itself)`},
		{"replies and reply", "      - raw: \"x\"\n        reply: \"+OK\\r\\n\"\n        replies: [closed, closed]\n", `7:9: step has both "reply" and "replies"`},
		{"item of two", "      - raw: \"x\"\n        replies: [{any: true, value: 1}, closed]\n", `6:19: replies item must hold exactly one expectation field (want one of: reply, value, error, error_code, error_match, any, one_of, expect)`},
		{"replies on push", "      - push: true\n        replies: [{any: true}, {any: true}]\n", `6:9: "replies" is not allowed in a push step (replies on send, raw and read steps)`},
		{"replies with capture", "      - raw: \"x\"\n        capture: c\n        replies: [{any: true}, {any: true}]\n", `6:9: capture on a step with replies: capture one reply per step`},
		{"closed on push", "      - push: true\n        expect: closed\n", `6:9: a push step reads a frame: closed and no reply are for send, raw and read steps`},
		{"list in an item", "      - raw: \"x\"\n        expect: [{expect: [{any: true}]}]\n", `6:27: expect inside an expect item takes closed or no reply within DURATION, not a sequence`},
	} {
		checkErrs(t, tc.name, loadErrs(t, stepsFile(tc.steps), Options{}), []string{tc.want})
	}
}

// The loose typed values on each kind they accept and on one they refuse.
func TestLooseValueMatch(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t")}
	for _, tc := range []struct{ value, reply, want string }{
		{"{string: OK}", "+OK\r\n", ""},
		{"{string: OK}", "$2\r\nOK\r\n", ""},
		{"{string: OK}", "=6\r\ntxt:OK\r\n", ""},
		{"{string: OK}", "$2\r\nNO\r\n", `want a string "OK", got blob string "NO"`},
		{"{string: OK}", ":1\r\n", `want a string "OK", got integer`},
		{"{nil: any}", "$-1\r\n", ""},
		{"{nil: any}", "*-1\r\n", ""},
		{"{nil: any}", "_\r\n", ""},
		{"{nil: any}", "$0\r\n\r\n", "want a nil ($-1, *-1 or _), got blob string"},
		{`{double: "3", within: 0}`, ":3\r\n", ""},
		{`{double: "0.3", within: 1e-9}`, ",0.30000000000000004\r\n", ""},
		{`{double: "100", within: "1%"}`, "$5\r\n100.9\r\n", ""},
		{`{double: "100", within: "1%"}`, "(102\r\n", `want a number within 1% of 100, got big number "102"`},
		{`{double: "inf", within: 0}`, ",inf\r\n", ""},
		{`{double: "1", within: 1}`, "$1\r\nx\r\n", `want a number within 1 of 1, got blob string "x"`},
		{`{verbatim: {format: mkd}}`, "=6\r\ntxt:OK\r\n", `want format "mkd", got "txt"`},
	} {
		e := loadExpect(t, "value: "+tc.value)
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Match(v, env)
		got := ""
		if m != nil {
			got = m.Message
		}
		if err != nil || got != tc.want {
			t.Errorf("%s on %q: %q %v, want %q", tc.value, tc.reply, got, err, tc.want)
		}
	}
}
