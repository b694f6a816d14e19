package replay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/internal/memtest"
)

// exchangeRaw writes in on a new connection and returns what the server
// sent back until it closed the connection or a short deadline passed,
// and whether it closed it.
func exchangeRaw(t *testing.T, addr string, in []byte) (string, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(in); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	out, err := io.ReadAll(c)
	// A reset is a close with the client's bytes unread.
	return string(out), err == nil || errors.Is(err, syscall.ECONNRESET)
}

func loadGoldens(t testing.TB) *golden.Dir {
	t.Helper()
	d, err := golden.Load(goldens + "redis-8.6.3")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGuardRefusesHugeHeaders: a declared bulk or argument count over the
// limits is refused as Redis refuses it, with an error reply and a closed
// connection, without allocating what it declares; so are a header or an
// inline command that never ends, and a malformed command; the commands
// pipelined before it are answered first.
func TestGuardRefusesHugeHeaders(t *testing.T) {
	_, addr := start(t, loadGoldens(t), Options{})
	for _, tc := range []struct{ name, in, want string }{
		{"2 GB bulk", "*1\r\n$2000000000\r\nabc", "-ERR Protocol error: invalid bulk length\r\n"},
		{"2 GB bulk, header unfinished", "*2\r\n$4\r\nPING\r\n$2000000000", "-ERR Protocol error: invalid bulk length\r\n"},
		{"2G arguments", "*2000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"2G arguments after a PING", "*1\r\n$4\r\nPING\r\n*2000000000\r\n$1\r\n", "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"},
		{"over the bulk limit by one", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"over the argument limit by one", "*1048577\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"a header that never ends", "*1\r\n$" + strings.Repeat("0", 70<<10), "-ERR Protocol error: too big bulk count string\r\n"},
		{"an inline command that never ends", strings.Repeat("P", 100<<10), "-ERR Protocol error: too big inline request\r\n"},
		{"no $", "*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
		{"bad payload end", "*1\r\n$4\r\nPINGxx", "-ERR Protocol error: invalid bulk length\r\n"},
		{"negative bulk", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"empty command", "*0\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
	} {
		var out string
		var closed bool
		grew, allocated := memtest.During(func() { out, closed = exchangeRaw(t, addr, []byte(tc.in)) })
		t.Logf("%s: heap %+d bytes, %d bytes allocated", tc.name, grew, allocated)
		if out != tc.want || !closed {
			t.Errorf("%s: got %q (closed %v), want %q and a closed connection", tc.name, out, closed, tc.want)
		}
		if allocated > 4<<20 {
			t.Errorf("%s: %d bytes allocated", tc.name, allocated)
		}
	}
}

// TestGuardAcceptsWhatRedconAccepts: headers redcon reads (signs, leading
// zeros), inline commands and a bulk at the limit pass the guard.
func TestGuardAcceptsWhatRedconAccepts(t *testing.T) {
	_, addr := start(t, loadGoldens(t), Options{Limits: defaultLimits})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, tc := range []struct{ in, want string }{
		{"*+01\r\n$004\r\nPING\r\n", "+PONG\r\n"},
		{"*2\r\n$-0\r\n\r\n$4\r\nPING\r\n", "-ERR respcheck serve: no recording of "},
		{"PING\r\n", "+PONG\r\n"},
		{"\r\nECHO hi\r\n", "$2\r\nhi\r\n"},
	} {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadString('\n')
		if strings.HasPrefix(tc.want, "$") && err == nil {
			more, _ := r.ReadString('\n')
			got += more
		}
		if err != nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestGuardKeepsAPipelineSmall: a client that pipelines commands in writes
// that end inside a command makes redcon grow its buffer (it doubles it
// while a command is incomplete at its end, and never compacts it); the
// guard's reads end at command boundaries, so the server's heap does not
// grow with the length of the pipeline.
func TestGuardKeepsAPipelineSmall(t *testing.T) {
	_, addr := start(t, loadGoldens(t), Options{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 1 << 17 // 1.75 MiB of PING
	cmd := []byte("*1\r\n$4\r\nPING\r\n")
	replies := make(chan int, 1)
	go func() {
		got, _ := io.CopyN(io.Discard, c, int64(n*len("+PONG\r\n")))
		replies <- int(got)
	}()
	grew, _ := memtest.During(func() {
		w := bufio.NewWriterSize(c, 4099) // each write ends inside a command
		for range n {
			w.Write(cmd)
		}
		w.Flush()
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if got := <-replies; got != n*len("+PONG\r\n") {
			t.Errorf("%d bytes of replies, want %d", got, n*len("+PONG\r\n"))
		}
	})
	t.Logf("%d PINGs (%d bytes) pipelined: heap %+d bytes", n, n*len(cmd), grew)
	if grew > 512<<10 {
		t.Errorf("the heap grew by %d bytes for a %d-byte pipeline", grew, n*len(cmd))
	}
}

// TestGuardStreamsALargeCommand: a command larger than the guard's chunk
// is passed on in pieces and answered as recorded.
func TestGuardStreamsALargeCommand(t *testing.T) {
	_, addr := start(t, loadGoldens(t), Options{})
	arg := bytes.Repeat([]byte("x"), 3<<20)
	in := append([]byte("*2\r\n$4\r\nECHO\r\n$3145728\r\n"), arg...)
	in = append(in, "\r\n"...)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write(in)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	want := "$3145728\r\n" + string(arg) + "\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
		t.Fatalf("ECHO of 3 MiB: %v, got %d bytes starting %q", err, len(got), got[:min(len(got), 20)])
	}
}
