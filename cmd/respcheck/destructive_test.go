package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

const flushCase = `suite: flush
cases:
  - name: FLUSHALL empties the database
    exclusive: true # its RESP2 and RESP3 runs would flush each other's key
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [FLUSHALL], reply: "+OK\r\n"}
      - {send: [DBSIZE], reply: ":0\r\n"}
`

// TestAllowDestructiveAsksFirst: --allow-destructive against a server
// given by --addr that holds keys lists the commands reaching beyond the
// cases' keys and the key count and refuses (exit 2, the keys untouched),
// for run and clients; --confirm-destructive runs them, and the size
// check after the run names the case that changed the database instead
// of blaming something else; an empty database needs no confirmation.
func TestAllowDestructiveAsksFirst(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := srv.Addr()
	f := writeFile(t, "flush.yaml", flushCase)
	c := dialRawTCP(t, addr)
	c.nc.SetDeadline(time.Now().Add(10 * time.Second))
	c.nc.Write([]byte("SET user:1 a\r\nSET user:2 b\r\nSET user:3 c\r\n"))
	if _, err := io.ReadFull(c.nc, make([]byte, 15)); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"run", "clients"} {
		args := []string{cmd, "--addr", addr, "--allow-destructive", f}
		if cmd == "clients" {
			args = append(args, "--clients", "go-redis", "--proto", "2")
		}
		code, out, errs := respcheck(t, args...)
		for _, want := range []string{"--allow-destructive: 1 selected case sends commands that reach beyond their own keys, on " + addr + ", whose database holds 3 keys:",
			"flush/FLUSHALL empties the database (" + f + ":7:9): FLUSHALL", "nothing was sent; --confirm-destructive runs them"} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, errs)
			}
		}
		if code != exitUsage || strings.Contains(out, "passed") {
			t.Errorf("%s: exit %d, stdout %q; want %d and nothing run", cmd, code, out, exitUsage)
		}
		if n := c.dbsize(t); n != 3 {
			t.Fatalf("%s: %d keys after the refusal, want the server's 3", cmd, n)
		}
	}
	code, out, errs := respcheck(t, "run", "--addr", addr, "--allow-destructive", "--confirm-destructive", f)
	if code != 0 || !strings.Contains(errs, "running them (--confirm-destructive)") {
		t.Fatalf("confirmed: exit %d\n%s%s", code, out, errs)
	}
	want := `the database size changed by -3 during the run; cases reaching beyond their keys ran (--allow-destructive): "flush/FLUSHALL empties the database" (FLUSHALL at ` + f + ":7:9)"
	if !strings.Contains(errs, want) || strings.Contains(errs, "something other than respcheck") {
		t.Errorf("confirmed: stderr lacks %q or blames something else:\n%s", want, errs)
	}
	if n := c.dbsize(t); n != 0 {
		t.Fatalf("%d keys after the confirmed FLUSHALL", n)
	}
	code, out, errs = respcheck(t, "run", "--addr", addr, "--allow-destructive", f)
	if code != 0 || strings.Contains(errs, "--allow-destructive:") {
		t.Errorf("empty database: exit %d, want 0 without a question\n%s%s", code, out, errs)
	}
}

// TestAllowDestructiveCountsEveryDatabase: the selected database (db0)
// is empty but db3 holds the server's data, which FLUSHALL would remove:
// --allow-destructive asks first, naming the databases and their keys,
// and db3 keeps its key. (It took DBSIZE of db0 alone for the whole
// server's data and flushed db3 without a question.)
func TestAllowDestructiveCountsEveryDatabase(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := srv.Addr()
	f := writeFile(t, "flush.yaml", flushCase)
	c := dialRawTCP(t, addr)
	c.nc.SetDeadline(time.Now().Add(10 * time.Second))
	c.nc.Write([]byte("SELECT 3\r\nSET precious 1\r\n"))
	if _, err := io.ReadFull(c.nc, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	code, out, errs := respcheck(t, "run", "--addr", addr, "--allow-destructive", f)
	want := "on " + addr + ", whose databases hold 1 key (db3 1; the selected one is db0):"
	if code != exitUsage || !strings.Contains(errs, want) || strings.Contains(out, "passed") {
		t.Errorf("exit %d, want %d and stderr with %q\n%s%s", code, exitUsage, want, out, errs)
	}
	if n := c.dbsize(t); n != 1 {
		t.Fatalf("db3 holds %d keys after the refusal, want its 1", n)
	}
}

// TestRecordAllowDestructiveAsksFirst: record --allow-destructive against
// a server given by --addr that holds keys asks first, as run does, and
// the keys stay (it flushed them without a question, once per pass);
// --confirm-destructive records.
func TestRecordAllowDestructiveAsksFirst(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := srv.Addr()
	f := writeFile(t, "flush.yaml", flushCase)
	c := dialRawTCP(t, addr)
	c.nc.SetDeadline(time.Now().Add(10 * time.Second))
	c.nc.Write([]byte("SET user:1 a\r\n"))
	if _, err := io.ReadFull(c.nc, make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := respcheck(t, "record", "--addr", addr, "--allow-destructive", "--out", dir, f)
	if code != exitUsage || !strings.Contains(errs, "whose database holds 1 key:") || strings.Contains(out, "recorded") {
		t.Errorf("exit %d, want %d and the question\n%s%s", code, exitUsage, out, errs)
	}
	if n := c.dbsize(t); n != 1 {
		t.Fatalf("%d keys after the refusal, want the server's 1", n)
	}
	code, out, errs = respcheck(t, "record", "--addr", addr, "--allow-destructive", "--confirm-destructive", "--passes", "1", "--out", dir, f)
	if code != 0 || !strings.Contains(out, "recorded") {
		t.Errorf("confirmed: exit %d\n%s%s", code, out, errs)
	}
}

// TestCtrlCAtTheQuestion: Ctrl-C typed at --allow-destructive's question
// on a terminal (a pty from script(1)) ends respcheck at once, exit 130,
// nothing sent; the read of the answer held it until the forced exit 5 s
// after the signal.
func TestCtrlCAtTheQuestion(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := srv.Addr()
	f := writeFile(t, "flush.yaml", flushCase)
	c := dialRawTCP(t, addr)
	c.nc.SetDeadline(time.Now().Add(10 * time.Second))
	c.nc.Write([]byte("SET user:1 a\r\n"))
	if _, err := io.ReadFull(c.nc, make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	line := fmt.Sprintf("exec %q run --addr %s --allow-destructive %q", os.Args[0], addr, f)
	cmd := exec.CommandContext(ctx, scriptBin, "-qec", line, "/dev/null")
	cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the question", func() bool { return strings.Contains(out.String(), "Type yes to run them: ") })
	sent := time.Now()
	stdin.Write([]byte{3}) // Ctrl-C
	code := exitCode(t, cmd, sent)
	if took := time.Since(sent); code != exitInterrupted || took > 3*time.Second {
		t.Errorf("exit %d %v after Ctrl-C, want %d at once\n%s", code, took, exitInterrupted, out.String())
	}
	if n := c.dbsize(t); n != 1 {
		t.Fatalf("%d keys after Ctrl-C, want the server's 1", n)
	}
}
