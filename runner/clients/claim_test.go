package clients

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// wireDriver is a minimal RESP2 library for the proxy's attribution tests,
// with the connection habits of real libraries: a shared connection opened
// with the session (rueidis beside its Dedicate() connections), a
// handshake on every connection it dials, pinned connections dialed at once
// or on first use (go-redis Conn()), and a pause before each command.
type wireDriver struct {
	shared [][]byte                 // sent on a shared connection opened by Open
	hello  [][]byte                 // sent on each pinned connection when dialed
	lazy   bool                     // dial a pinned connection on its first Do
	delay  map[string]time.Duration // per case connection, before each command
}

func (wireDriver) Library() string { return "wire-test" }
func (wireDriver) Version() string { return "0" }
func (wireDriver) Protos() []int   { return []int{2} }
func (wireDriver) API() string     { return "raw socket (test driver)" }

func (d wireDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	s := &wireSession{d: d, addr: addr}
	if d.shared != nil {
		c := &wireConn{s: s}
		if err := c.dial(d.shared); err != nil {
			return nil, err
		}
		s.conns = append(s.conns, c)
	}
	return s, nil
}

type wireSession struct {
	d     wireDriver
	addr  string
	mu    sync.Mutex
	conns []*wireConn
}

func (s *wireSession) Conn(ctx context.Context, name string) (Conn, error) {
	c := &wireConn{s: s, delay: s.d.delay[name]}
	if !s.d.lazy {
		if err := c.dial(s.d.hello); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	return c, nil
}

func (s *wireSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if c.nc != nil {
			c.nc.Close()
		}
	}
	return nil
}

type wireConn struct {
	s     *wireSession
	delay time.Duration
	nc    net.Conn
	r     *resp.Reader
}

// dial connects and sends the handshake command, if any.
func (c *wireConn) dial(hello [][]byte) error {
	nc, err := net.DialTimeout("tcp", c.s.addr, 5*time.Second)
	if err != nil {
		return err
	}
	c.nc, c.r = nc, resp.NewReader(nc)
	if hello != nil {
		if _, err := c.roundTrip(hello); err != nil {
			return err
		}
	}
	return nil
}

func (c *wireConn) roundTrip(args [][]byte) (resp.Value, error) {
	c.nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.nc.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	v, err := c.r.Read()
	return v.Clone(), err
}

func (c *wireConn) Do(ctx context.Context, args [][]byte) Native {
	if c.nc == nil {
		if err := c.dial(c.s.d.hello); err != nil {
			return errNative("exception", "error", "error", err.Error())
		}
	}
	time.Sleep(c.delay)
	v, err := c.roundTrip(args)
	if err != nil {
		return errNative("exception", "error", "error", err.Error())
	}
	switch v.Kind {
	case resp.Integer:
		return textNative("int", "int64", string(v.Str))
	case resp.SimpleString:
		return stringNative("string", string(v.Str))
	case resp.BlobString:
		return bytesNative("[]uint8", v.Str)
	case resp.SimpleError, resp.BlobError:
		return errNative("error", "error", "error", string(v.Str))
	}
	return textNative("other", v.Kind.String(), string(v.Raw))
}

func loadCases(t *testing.T, src string) []*cases.File {
	t.Helper()
	f, err := cases.Load("claim.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return []*cases.File{f}
}

// TestClaimOnTheConnectionThatCarriedTheCall checks that each decoded
// value is judged against the reply on the connection that carried the
// library's call, whatever else the library sent: the same command as its
// own handshake on another connection opened before the call (rueidis and
// valkey-go open a shared connection and a dedicated one, each with HELLO),
// or on the connection it dials for the call; and two case connections
// sending the same command at once. Every INCR of the counter answers a
// new number, so the wrong reply is a mismatch.
func TestClaimOnTheConnectionThatCarriedTheCall(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	for _, tc := range []struct {
		name  string
		d     wireDriver
		steps string
		want  map[int]string // reply by step line
	}{
		{"handshake on the library's other connections",
			wireDriver{shared: args("INCR", "claim-1"), hello: args("INCR", "claim-1")},
			"      - send: [INCR, claim-1]\n",
			map[int]string{6: ":3\r\n"}},
		{"handshake on the connection dialed for the call",
			wireDriver{hello: args("INCR", "claim-2"), lazy: true},
			"      - send: [INCR, claim-2]\n",
			map[int]string{6: ":2\r\n"}},
		{"two case connections sending the same command",
			// a's INCR goes out first but after b's call began: b's reply
			// is the one on b's connection.
			wireDriver{delay: map[string]time.Duration{"a": 50 * time.Millisecond, "b": 150 * time.Millisecond}},
			"      - {conn: a, send: [PING]}\n" +
				"      - {conn: b, send: [PING]}\n" +
				"      - {conn: a, send: [INCR, claim-3], async: true}\n" +
				"      - {conn: b, send: [INCR, claim-3], async: true}\n" +
				"      - {conn: b, read: true}\n" +
				"      - {conn: a, read: true}\n",
			map[int]string{10: ":2\r\n", 11: ":1\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// literal_keys: the driver's own commands name the counter as
			// written, so the case must too.
			files := loadCases(t, "suite: claim\ncases:\n  - name: c\n    literal_keys: true\n    steps:\n"+tc.steps)
			rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: []Driver{tc.d}})
			if err != nil {
				t.Fatal(err)
			}
			for line, want := range tc.want {
				sv := stepView(t, rep, "wire-test/resp2", "c", line)
				if string(sv.Reply) != want || sv.Verdict != Match {
					t.Errorf("step at line %d: reply %q judged %s %v, want %q, a match", line, sv.Reply, sv.Verdict, sv.Notes, want)
				}
			}
			if t.Failed() {
				logReport(t, rep, true)
			}
		})
	}
}

// TestHelloThroughDedicatedConnections is the user's report: rueidis and
// valkey-go send their own HELLO 2 on the shared connection and on the
// dedicated one; the case's HELLO 2 went out on the dedicated one and must
// be judged against that connection's reply (its own client id), not
// against the shared connection's handshake. go-redis dials its pinned
// connection on first use, handshake and all.
func TestHelloThroughDedicatedConnections(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	files := loadCases(t, `suite: claim
cases:
  - name: HELLO twice
    steps:
      - send: [HELLO, "2"]
      - send: [ECHO, between]
      - send: [HELLO, "2"]
`)
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Protos: []int{2},
		Drivers: []Driver{rueidisDriver, valkeyGoDriver, goRedisDriver}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Clients {
		first, second := stepView(t, rep, c.Name, "HELLO twice", 5), stepView(t, rep, c.Name, "HELLO twice", 7)
		for _, sv := range []*StepView{first, second} {
			if sv.Verdict != Match {
				t.Errorf("%s line %d: %s %v (reply %q)", c.Name, sv.Step.Pos.Line, sv.Verdict, sv.Notes, sv.Reply)
			}
		}
		// Both replies come from one connection: the same client id.
		if id1, id2 := helloID(t, first.Reply), helloID(t, second.Reply); id1 != id2 {
			t.Errorf("%s: the HELLO replies judged carry ids %s and %s: not the one connection the steps used", c.Name, id1, id2)
		}
	}
}

func helloID(t *testing.T, b []byte) string {
	t.Helper()
	_, v, err := resp.Parse(b)
	if err != nil {
		t.Fatalf("HELLO reply %q: %v", b, err)
	}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		if string(v.Elems[i].Str) == "id" {
			return string(v.Elems[i+1].Str)
		}
	}
	t.Fatalf("HELLO reply %q has no id", b)
	return ""
}

func args(a ...string) [][]byte {
	out := make([][]byte, len(a))
	for i, s := range a {
		out[i] = []byte(s)
	}
	return out
}
