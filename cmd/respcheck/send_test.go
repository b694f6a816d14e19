package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// TestSendSeveralCommands: with no command in its arguments, send reads
// one a line from standard input, split as redis-cli splits them (quotes,
// \x escapes), and sends them in order on one connection, each reply
// under its command; an unclosed quote is exit 2 naming the line.
func TestSendSeveralCommands(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	run := func(stdin string) (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "send", "--addr", srv.Addr())
		cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1")
		cmd.Stdin = strings.NewReader(stdin)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errs.String()
	}
	code, out, errs := run("SET rc:send \"hello world\"\r\nGET rc:send\n\nCLIENT SETNAME 'a b'\nCLIENT GETNAME\nECHO \"a\\x00b\"\nDEL rc:send\n")
	want := `> "SET" "rc:send" "hello world"
"+OK\r\n"
OK
> "GET" "rc:send"
"$11\r\nhello world\r\n"
"hello world"
> "CLIENT" "SETNAME" "a b"
"-ERR Client names cannot contain spaces, newlines or special characters.\r\n"
(error) ERR Client names cannot contain spaces, newlines or special characters.
> "CLIENT" "GETNAME"
"$-1\r\n"
(nil)
> "ECHO" "a\x00b"
"$3\r\na\x00b\r\n"
"a\x00b"
> "DEL" "rc:send"
":1\r\n"
(integer) 1
`
	if code != exitOK || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s%s", code, out, want, errs)
	}
	code, _, errs = run("PING\nSET \"k v\n")
	if code != exitUsage || !strings.Contains(errs, "standard input, line 2: ") {
		t.Errorf("unbalanced quotes: exit %d %s", code, errs)
	}
}

// TestFlagValueCompletion: the shell completes flag values (cobra's
// __complete, what the completion scripts call): --format with the
// command's formats, --proto, --server with miniredis and the installed
// builds, and --clients after a comma.
func TestFlagValueCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", ""}, "human\njson\njunit\njsonl\ntap\nhtml\n:4\n"},
		{[]string{"bench", "--format", ""}, "human\njson\n:4\n"},
		{[]string{"send", "--proto", ""}, "2\n3\n:4\n"},
		{[]string{"run", "--proto", ""}, "2\n3\nboth\n:4\n"},
		{[]string{"clients", "--clients", "go-redis,io"}, "go-redis,ioredis\ngo-redis,ioredis-typed\ngo-redis,iovalkey\n:6\n"},
	} {
		code, out, errs := respcheck(t, append([]string{"__complete"}, tc.args...)...)
		if code != exitOK || out != tc.want {
			t.Errorf("%q: exit %d\n%s\nwant\n%s%s", tc.args, code, out, tc.want, errs)
		}
	}
	code, out, _ := respcheck(t, "__complete", "run", "--server", "")
	if code != exitOK || !strings.HasPrefix(out, "miniredis\n") {
		t.Errorf("--server: exit %d %q", code, out)
	}
	if _, err := servers.Find("redis-8.6.3"); err == nil && !strings.Contains(out, "\nredis-8.6.3\n") {
		t.Errorf("--server does not offer the installed redis-8.6.3: %q", out)
	}
}
