package explore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// The faults the explorer found in miniredis, reproduced with plain
// sockets and the miniredis library alone (no code of respcheck's in the
// path): each test sends the shrunk command the explorer printed and
// checks the fault. Redis 8.6.3's are scripts of testdata/servers/repro
// (the build's own server and CLI), run by cmd/respcheck's
// TestServerRepros.

func TestMain(m *testing.M) {
	if os.Getenv("EXPLORE_MINIREDIS_CHILD") == "1" {
		// A child serving miniredis 2.40.0 as the library is, for the
		// faults that end its process.
		s := miniredis.NewMiniRedis()
		if err := s.StartAddr("127.0.0.1:0"); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(s.Addr())
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command encodes args as a RESP array of blob strings, by hand.
func command(args ...string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

// exchange writes cmds to addr and returns every byte read until the
// server closes the connection or is silent for 500 ms.
func exchange(t *testing.T, addr string, cmds ...[]byte) (got []byte, closed bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(bytes.Join(cmds, nil)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			var ne net.Error
			return got, !(errors.As(err, &ne) && ne.Timeout())
		}
		if len(got) > 1<<20 {
			return got, false
		}
	}
}

// TestMiniredisFaultsReproduce: miniredis 2.40.0 answers XLEN on a key
// of another type with WRONGTYPE and then :0 (two replies); SRANDMEMBER
// with count -2^63 with an array header of -9223372036854775808 (not
// RESP), then works on without end; and its process dies (a Go panic) on
// SETRANGE at offset 2^53+1. Each in its own child process serving
// miniredis (one that does not end is killed).
func TestMiniredisFaultsReproduce(t *testing.T) {
	got, _, _ := miniredisChild(t, 0, command("HSET", "h", "f", "v"), command("XLEN", "h"), command("PING"))
	if want := ":1\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n:0\r\n+PONG\r\n"; string(got) != want {
		t.Errorf("XLEN on a hash: %q, want %q", got, want)
	}
	got, _, _ = miniredisChild(t, 0, command("SADD", "s", "1"), command("SRANDMEMBER", "s", "-9223372036854775808"))
	if !bytes.HasPrefix(got, []byte(":1\r\n*-9223372036854775808\r\n")) {
		t.Errorf("SRANDMEMBER s -2^63: %q, want a header of -9223372036854775808", got[:min(len(got), 80)])
	}
	_, died, stderr := miniredisChild(t, 5*time.Second, command("SETRANGE", "k", "9007199254740993", ""))
	if !died || !strings.Contains(stderr, "panic: runtime error: makeslice: len out of range") {
		t.Errorf("SETRANGE k 9007199254740993 \"\": the process did not die of the panic\n%s", stderr)
	}
}

// miniredisChild starts a child process serving miniredis, sends cmds,
// and returns what it read, whether the process died within wait, and
// its stderr.
func miniredisChild(t *testing.T, wait time.Duration, cmds ...[]byte) (got []byte, died bool, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "EXPLORE_MINIREDIS_CHILD=1")
	var errb bytes.Buffer
	child.Stderr = &errb
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { child.Wait(); close(done) }()
	defer func() {
		child.Process.Kill()
		<-done
	}()
	addr, _ := bufio.NewReader(out).ReadString('\n')
	got, _ = exchange(t, strings.TrimSpace(addr), cmds...)
	select {
	case <-done:
		died = true
	case <-time.After(wait):
	}
	return got, died, errb.String()
}

// TestMiniredisCrashesReproduce: each command respcheck explore shrank a
// miniredis 2.40.0 crash to ends the emulator's process with a Go panic
// (an unchecked length or index from the command's numbers).
func TestMiniredisCrashesReproduce(t *testing.T) {
	for _, c := range []struct {
		cmds  [][]byte
		panic string
	}{
		{[][]byte{command("SET", "s", "hello"), command("SETBIT", "s", "9223372036854775807", "0")}, "makeslice: len out of range"},
		{[][]byte{command("SSCAN", "none", "-100")}, "slice bounds out of range [:-100]"},
		{[][]byte{command("ZADD", "z", "1", "a"), command("ZSCAN", "z", "-100", "MATCH", "*", "COUNT", "1")}, "slice bounds out of range [:-99]"},
		{[][]byte{command("XADD", "x", "1-1", "f", "v"), command("XTRIM", "x", "MAXLEN", "~")}, "index out of range [0] with length 0"},
		{[][]byte{command("RPUSH", "l", "a", "b"), command("LPOS", "l", "3.5", "COUNT", "9223372036854775807")}, "makeslice: cap out of range"},
		{[][]byte{command("HSET", "h", "f", "v"), command("HRANDFIELD", "h", "-9223372036854775808")}, "slice bounds out of range [:-9223372036854775808]"},
		{[][]byte{command("SADD", "s", "a"), command("HEXPIRE", "s", "-1", "GT", "FIELDS", "9223372036854775807")}, "slice bounds out of range [:-9223372036854775807]"},
	} {
		_, died, stderr := miniredisChild(t, 5*time.Second, c.cmds...)
		if !died || !strings.Contains(stderr, "panic: runtime error: "+c.panic) {
			t.Errorf("%q: the process did not die of %q (died %v)\n%s", c.cmds[len(c.cmds)-1], c.panic, died, stderr)
		}
	}
}
