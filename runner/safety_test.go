package runner

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
)

func TestDestructiveUse(t *testing.T) {
	for _, tc := range []struct {
		step    string
		want    string // "" = allowed
		literal bool   // the case says literal_keys: true
	}{
		{`{send: [FLUSHALL]}`, "FLUSHALL", false},
		{`{send: [flushdb, ASYNC]}`, "FLUSHDB", false},
		{`{send: [CONFIG, SET, busy-reply-threshold, "100"]}`, "CONFIG SET", false},
		{`{send: [CONFIG, GET, maxmemory]}`, "", false},
		{`{send: [DEBUG, SLEEP, "0.1"]}`, "DEBUG SLEEP", false},
		{`{send: [DEBUG, PROTOCOL, map]}`, "", false},
		{`{send: [SCRIPT, KILL], error_code: NOTBUSY}`, "SCRIPT KILL", false},
		{`{send: [SCRIPT, LOAD, "return 1"]}`, "", false},
		{`{send: [FUNCTION, LOAD, "#!lua name=x"]}`, "FUNCTION LOAD", false},
		{`{send: [CLIENT, KILL, ID, "1"]}`, "CLIENT KILL", false},
		{`{send: [CLIENT, INFO]}`, "", false},
		{`{send: [EVAL, "redis.call('FLUSHALL') return 1", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "return server.pcall(\"config\", \"set\", \"x\", \"y\")", "0"]}`, "CONFIG SET", false},
		{`{send: [EVAL, "return redis.call('GET', KEYS[1])", "1", "{key}"]}`, "", false},
		// One Lua reader (luaCallSites): spaces around the dot, a long
		// string as the command's name (SCRIPT FLUSH); a call in a comment or a string is listed too (a text
		// read otherwise than Lua reads it must not hide a call: a
		// carriage return ends a comment, helper-41), and so are calls
		// without parentheses.
		{`{send: [EVAL, "return redis . call ( 'FLUSHALL' )", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "return redis.pcall([[script]], 'flush')", "0"]}`, "SCRIPT FLUSH", false},
		{`{send: [EVAL, "-- redis.call('FLUSHALL')\nreturn 1", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "-- x\rreturn redis.call('FLUSHALL')", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "return loadstring(\"return redis.call('FLUSHALL')\")()", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "return redis.call'FLUSHALL'", "0"]}`, "FLUSHALL", false},
		{`{send: [EVAL, "return redis\f.call[[FLUSHALL]]", "0"]}`, "FLUSHALL", false},
		{`{send: [KEYS, "*"]}`, "", false}, // moved into the namespace
		{`{send: [KEYS, "*"]}`, "KEYS", true},
		{`{send: [KEYS, "{key}*"]}`, "", false},
		{`{raw: "FLUSHALL\r\n"}`, "FLUSHALL", false},
		{`{send: [SET, "{key}", v]}`, "", false},
	} {
		src, line := "suite: s\ncases:\n  - name: c\n    steps:\n      - "+tc.step+"\n", 5
		if tc.literal {
			src, line = strings.Replace(src, "    steps:", "    literal_keys: true\n    steps:", 1), 6
		}
		f, err := cases.Load("s.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.step, err)
		}
		cmd, pos, bad := destructiveUse(f.Cases[0])
		if cmd != tc.want || bad != (tc.want != "") {
			t.Errorf("%s: got %q %v, want %q", tc.step, cmd, bad, tc.want)
		}
		if bad && pos.Line != line {
			t.Errorf("%s: position %s, want line %d", tc.step, pos, line)
		}
	}
}

func TestRedacted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"AUTH secret", "AUTH ******"},
		{"AUTH user secret", "AUTH user ******"},
		{"HELLO 3 AUTH default secret SETNAME x", "HELLO 3 AUTH default ****** SETNAME x"},
		// SETNAME's name is AUTH: the server reads the second AUTH
		// (helper-41: the password was shown); the word after the first
		// is hidden too (a command the server refuses still sent it).
		{"HELLO 2 SETNAME AUTH AUTH default secret", "HELLO 2 SETNAME AUTH AUTH ******* ******"},
		{"CONFIG SET requirepass secret", "CONFIG SET requirepass ******"},
		{"ACL SETUSER bob on >secret ~*", "ACL SETUSER bob on ******* ~*"},
		{"MIGRATE h 1 k 0 5 AUTH secret", "MIGRATE h 1 k 0 5 AUTH ******"},
		{"GET AUTH", "GET AUTH"},
	} {
		var args [][]byte
		for _, w := range strings.Fields(tc.in) {
			args = append(args, []byte(w))
		}
		out, _ := redacted(args)
		var words []string
		for _, a := range out {
			words = append(words, string(a))
		}
		if got := strings.Join(words, " "); got != tc.want {
			t.Errorf("redacted(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := string(redactRaw([]byte("AUTH secret\r\n"))); got != "AUTH ******\r\n" {
		t.Errorf("inline: %q", got)
	}
	if got := string(redactRaw([]byte("*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n"))); got != "*2\r\n$4\r\nAUTH\r\n$6\r\n******\r\n" {
		t.Errorf("array: %q", got)
	}
}

func TestRedactRawSeveralCommands(t *testing.T) {
	got := string(redactRaw([]byte("PING\r\nAUTH secret\r\n*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n")))
	if strings.Contains(got, "secret") || !strings.Contains(got, "PING") {
		t.Errorf("redactRaw = %q", got)
	}
}
