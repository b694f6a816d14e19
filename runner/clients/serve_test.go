package clients

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestServeReplacesReplies: Fault.Serve's bytes reach the client instead
// of the server's reply, in order, recorded as Served with the server's
// reply as Upstream; in RESP3 a SUBSCRIBE's confirmation, a push, is
// replaced too (it is the command's reply), and a command Serve leaves
// alone gets the server's reply.
func TestServeReplacesReplies(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	serve := func(args [][]byte, proto int) []byte {
		switch string(bytes.ToUpper(args[0])) {
		case "GET":
			return []byte("$6\r\nserved\r\n")
		case "SUBSCRIBE":
			if proto == 3 {
				return []byte(">3\r\n$9\r\nsubscribe\r\n$2\r\nXX\r\n:7\r\n")
			}
			if len(args) == 3 {
				return []byte("*3\r\n$9\r\nsubscribe\r\n$1\r\nA\r\n:8\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nB\r\n:9\r\n")
			}
		}
		return nil
	}
	p, c := servedConn(t, srv.Addr(), serve)
	r := resp.NewReader(c)
	for _, step := range []struct {
		cmd  []string
		want string // "" for the server's own: a map for HELLO
	}{
		{[]string{"HELLO", "3"}, ""},
		{[]string{"GET", "k"}, "$6\r\nserved\r\n"},
		{[]string{"SUBSCRIBE", "ch"}, ">3\r\n$9\r\nsubscribe\r\n$2\r\nXX\r\n:7\r\n"},
		{[]string{"PING"}, "+PONG\r\n"},
	} {
		if _, err := c.Write(resp.AppendCommandString(nil, step.cmd...)); err != nil {
			t.Fatal(err)
		}
		v, err := r.Read()
		if err != nil {
			t.Fatalf("%s: %v", step.cmd[0], err)
		}
		switch {
		case step.want == "" && v.Kind != resp.Map:
			t.Errorf("%s: %s, want the server's map", step.cmd[0], resp.Escape(v.Raw))
		case step.want != "" && string(v.Raw) != step.want:
			t.Errorf("%s: %s, want %s", step.cmd[0], resp.Escape(v.Raw), resp.Escape([]byte(step.want)))
		}
	}
	served := 0
	for _, e := range p.Taps()[0].Events() {
		if e.Served {
			served++
			if e.Upstream == nil {
				t.Errorf("a served frame without the server's reply: %s", resp.Escape(e.Value.Raw))
			}
		}
	}
	if served != 2 {
		t.Errorf("%d frames recorded as served, want 2 (GET's, SUBSCRIBE's)", served)
	}
}

// TestServeReplacesEveryConfirmation: in RESP2 a SUBSCRIBE of two
// channels gets two confirmations from the server; what Serve returned
// stands for both (the second is dropped), so the next reply the client
// reads is the next command's.
func TestServeReplacesEveryConfirmation(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	serve := func(args [][]byte, proto int) []byte {
		if string(bytes.ToUpper(args[0])) == "SUBSCRIBE" {
			return []byte("*3\r\n$9\r\nsubscribe\r\n$1\r\nA\r\n:8\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nB\r\n:9\r\n")
		}
		return nil
	}
	_, c := servedConn(t, srv.Addr(), serve)
	c.Write(append(resp.AppendCommandString(nil, "SUBSCRIBE", "a", "b"), resp.AppendCommandString(nil, "PING")...))
	r := resp.NewReader(c)
	var got []string
	for range 3 {
		v, err := r.Read()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, string(v.Raw))
	}
	want := []string{"*3\r\n$9\r\nsubscribe\r\n$1\r\nA\r\n:8\r\n", "*3\r\n$9\r\nsubscribe\r\n$1\r\nB\r\n:9\r\n", "*2\r\n$4\r\npong\r\n$0\r\n\r\n"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: %s, want %s", i, resp.Escape([]byte(got[i])), resp.Escape([]byte(want[i])))
		}
	}
}

// servedConn is a proxy to addr with Fault{Serve: serve} (closed at the
// test's end) and a connection through it, with a 10 s deadline.
func servedConn(t *testing.T, addr string, serve func([][]byte, int) []byte) (*proxy, net.Conn) {
	t.Helper()
	p, err := newProxy(target.Config{Addr: addr, Timeout: 5 * time.Second}, Fault{Serve: serve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return p, c
}
