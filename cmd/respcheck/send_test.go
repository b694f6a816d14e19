package main

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestSendVersionCompletion: send prints a reply's exact bytes and its
// redis-cli text, in RESP2 and RESP3; version and --version name the build;
// completion scripts come from cobra.
func TestSendVersionCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"send", "--server", "redis-8.6.3", "HGETALL", "missing"}, "\"*0\\r\\n\"\n(empty array)\n"},
		{[]string{"send", "--server", "redis-8.6.3", "--proto", "3", "HGETALL", "missing"}, "\"%0\\r\\n\"\n(empty hash)\n"},
		{[]string{"send", "--server", "redis-8.6.3", "--proto", "3", "SUBSCRIBE", "ch"}, "\">3\\r\\n$9\\r\\nsubscribe\\r\\n$2\\r\\nch\\r\\n:1\\r\\n\"\n"},
		{[]string{"version"}, "respcheck "},
		{[]string{"--version"}, "respcheck "},
		{[]string{"completion", "bash"}, "# bash completion V2 for respcheck"},
	} {
		code, out, errs := respcheck(t, tc.args...)
		if code != exitOK || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%v: exit %d, %q (want it to start with %q) %s", tc.args, code, out, tc.want, errs)
		}
	}
	if code, _, errs := respcheck(t, "send", "--proto", "4", "PING"); code != exitUsage || !strings.Contains(errs, "bad --proto 4") {
		t.Errorf("--proto 4: exit %d %s", code, errs)
	}
}

// TestRedisURLIsNoted: a target taken from $REDIS_URL is named on stderr,
// and a flag that names another target wins over it.
func TestRedisURLIsNoted(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	t.Setenv("REDIS_URL", "redis://"+srv.Addr())
	code, out, errs := respcheck(t, "send", "PING")
	if code != exitOK || out != "\"+PONG\\r\\n\"\nPONG\n" || !strings.Contains(errs, "target "+srv.Addr()+" from $REDIS_URL") {
		t.Errorf("exit %d, %q, %q", code, out, errs)
	}
	code, _, errs = respcheck(t, "send", "--server", "redis-8.6.3", "PING")
	if code != exitOK || strings.Contains(errs, "REDIS_URL") {
		t.Errorf("--server with $REDIS_URL set: exit %d, %q", code, errs)
	}
}

// TestSendTimeout: a reply that does not come (BLPOP with no timeout of
// its own) ends at --timeout with exit 3, not never.
func TestSendTimeout(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	code, _, errs := respcheck(t, "send", "--addr", srv.Addr(), "--timeout", "200ms", "BLPOP", "nokey", "0")
	if code != exitServer || !strings.Contains(errs, "no reply within 200ms") {
		t.Errorf("exit %d, %q", code, errs)
	}
}
