package replay

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/redcon"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/internal/fuzzseed"
)

// recordedCommands returns the distinct commands the goldens recorded in
// full, and each case's commands pipelined.
func recordedCommands(f *testing.F) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(b []byte) {
		if len(b) > 0 && !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	for _, file := range loadGoldens(f).Sorted() {
		for _, c := range file.Cases {
			var pipeline []byte
			for _, st := range c.Steps {
				if st.Sent != nil && st.Sent.Full() {
					add(st.Sent.Data)
					pipeline = append(pipeline, st.Sent.Data...)
				}
			}
			add(pipeline)
		}
	}
	return out
}

// hostileInputs are the inputs TestGuardRefusesHugeHeaders sends, and more.
var hostileInputs = []string{
	"*1\r\n$2000000000\r\nabc", "*2000000000\r\n", "$2000000000\r\nabc", "*1\r\n$-1\r\n", "*0\r\n", "*-1\r\n",
	"*1\r\n+PING\r\n", "*1\r\n$4\r\nPINGxx", "*3\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n", "HELLO 3\r\n",
	"PING \"a\r\n", "PING 'a'b\r\n", "\r\n\r\n\n", "*1\r\n$04\r\nPING\r\n", "*+1\r\n$+4\r\nPING\r\n",
	"*2\r\n$5\r\nHELLO\r\n$1\r\n4\r\n", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING",
}

// FuzzServe sends the fuzzer's bytes to a replay server of the redis 8.6.3
// goldens on a new connection, half-closed after them, and reads until the
// server closes it: the server never panics, never keeps the connection
// after the client's end, answers PING on a fresh connection after every
// input, and allocates little more than it was sent.
func FuzzServe(f *testing.F) {
	for _, b := range fuzzseed.Sample(recordedCommands(f)) {
		f.Add(b)
	}
	for _, s := range hostileInputs {
		f.Add([]byte(s))
	}
	_, addr := start(f, loadGoldens(f), Options{})
	f.Fuzz(func(t *testing.T, in []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			c.Write(in)
			c.(*net.TCPConn).CloseWrite()
		}()
		// A liveness bound, not a timing: the server ends the connection
		// as soon as it has answered what came before the client's end.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, c); isTimeout(err) {
			t.Fatalf("the server kept the connection 10s after the client's end")
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20+64*uint64(len(in)) {
			t.Fatalf("%d bytes allocated for %d bytes sent", grew, len(in))
		}
		pingFresh(t, addr)
	})
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// pingFresh checks that the server answers PING on a new connection.
func pingFresh(t *testing.T, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("the server is gone: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING on a new connection: %q, %v", line, err)
	}
}

// FuzzGuard checks the guard against redcon's own reader, without sockets:
// the scanner finds the same commands and error however its input is cut;
// every command it accepts is one redcon reads whole; and the guard, over
// a socket that returns one byte at a time, passes on the accepted
// commands, then everything if there was no protocol error, else at most
// the part of the refused command that it streamed (only a command over
// guardChunk is streamed before it is complete).
func FuzzGuard(f *testing.F) {
	for _, b := range fuzzseed.Sample(recordedCommands(f)) {
		f.Add(b, uint16(7))
	}
	for _, s := range hostileInputs {
		f.Add([]byte(s), uint16(1))
	}
	lim := defaultLimits
	lim.MaxBlobLen, lim.MaxAggregateLen = 1<<16, 64 // small, for the fuzzer to cross them
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		ends, bad, badAt := scanAll(lim, in, int(cut))
		if e, b, at := scanAll(lim, in, len(in)); !slices.Equal(e, ends) || b != bad || at != badAt {
			t.Fatalf("cut at %d: %v %q at %d; whole: %v %q at %d", cut, ends, bad, badAt, e, b, at)
		}
		start := 0
		for _, end := range ends {
			cmd := in[start:end]
			if cmd[0] == '*' {
				if _, err := redcon.Parse(cmd); err != nil {
					t.Fatalf("the guard accepts %q, redcon refuses it: %v", cmd, err)
				}
			}
			start = end
		}
		got := readGuarded(lim, in)
		switch extra := len(got) - start; {
		case !bytes.HasPrefix(in, got) || extra < 0:
			t.Fatalf("guard passed on %q, not the accepted commands %q", got, in[:start])
		case bad == "" && len(got) != len(in):
			t.Fatalf("no protocol error, but the guard passed on %d of %d bytes", len(got), len(in))
		case bad != "" && extra > 0 && (badAt-start <= guardChunk || extra >= badAt-start):
			t.Fatalf("guard passed on %d bytes of the command refused at %d (%s)", extra, badAt, bad)
		}
	})
}

// scanAll runs a commandScanner over in, fed in pieces of cut bytes, and
// returns the ends of the commands it accepted, its protocol error and the
// offset just past the byte it refused.
func scanAll(lim resp.Limits, in []byte, cut int) (ends []int, bad string, badAt int) {
	s := commandScanner{lim: lim}
	cut = max(cut, 1)
	for off := 0; off < len(in); {
		piece := in[off:min(off+cut, len(in))]
		n, end, b := s.feed(piece)
		off += n
		if end {
			ends = append(ends, off)
		}
		if b != "" {
			return ends, b, off
		}
	}
	return ends, "", 0
}

// readGuarded reads in through a guardConn whose socket returns one byte
// at a time, and returns what the guard passed on.
func readGuarded(lim resp.Limits, in []byte) []byte {
	g := &guardConn{Conn: &byteConn{r: bytes.NewReader(in)}, scan: commandScanner{lim: lim}}
	var out []byte
	buf := make([]byte, 5)
	for {
		n, err := g.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out
		}
	}
}

// byteConn is a net.Conn that reads one byte at a time and discards
// writes.
type byteConn struct {
	net.Conn
	r io.Reader
}

func (c *byteConn) Read(p []byte) (int, error)  { return c.r.Read(p[:min(len(p), 1)]) }
func (c *byteConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *byteConn) RemoteAddr() net.Addr        { return &net.TCPAddr{} }
