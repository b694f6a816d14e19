package runner

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
)

func TestDestructiveUse(t *testing.T) {
	for _, tc := range []struct {
		step string
		want string // "" = allowed
	}{
		{`{send: [FLUSHALL]}`, "FLUSHALL"},
		{`{send: [flushdb, ASYNC]}`, "FLUSHDB"},
		{`{send: [CONFIG, SET, busy-reply-threshold, "100"]}`, "CONFIG SET"},
		{`{send: [CONFIG, GET, maxmemory]}`, ""},
		{`{send: [DEBUG, SLEEP, "0.1"]}`, "DEBUG SLEEP"},
		{`{send: [DEBUG, PROTOCOL, map]}`, ""},
		{`{send: [SCRIPT, KILL], error_code: NOTBUSY}`, "SCRIPT KILL"},
		{`{send: [SCRIPT, LOAD, "return 1"]}`, ""},
		{`{send: [FUNCTION, LOAD, "#!lua name=x"]}`, "FUNCTION LOAD"},
		{`{send: [CLIENT, KILL, ID, "1"]}`, "CLIENT KILL"},
		{`{send: [CLIENT, INFO]}`, ""},
		{`{send: [EVAL, "redis.call('FLUSHALL') return 1", "0"]}`, "FLUSHALL"},
		{`{send: [EVAL, "return server.pcall(\"config\", \"set\", \"x\", \"y\")", "0"]}`, "CONFIG SET"},
		{`{send: [EVAL, "return redis.call('GET', KEYS[1])", "1", "{key}"]}`, ""},
		{`{send: [KEYS, "*"]}`, "KEYS"},
		{`{send: [KEYS, "{key}*"]}`, ""},
		{`{raw: "FLUSHALL\r\n"}`, "FLUSHALL"},
		{`{send: [SET, "{key}", v]}`, ""},
	} {
		src := "suite: s\ncases:\n  - name: c\n    steps:\n      - " + tc.step + "\n"
		f, err := cases.Load("s.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.step, err)
		}
		cmd, pos, bad := destructiveUse(f.Cases[0])
		if cmd != tc.want || bad != (tc.want != "") {
			t.Errorf("%s: got %q %v, want %q", tc.step, cmd, bad, tc.want)
		}
		if bad && pos.Line != 5 {
			t.Errorf("%s: position %s, want line 5", tc.step, pos)
		}
	}
}

func TestRedacted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"AUTH secret", "AUTH ******"},
		{"AUTH user secret", "AUTH user ******"},
		{"HELLO 3 AUTH default secret SETNAME x", "HELLO 3 AUTH default ****** SETNAME x"},
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
