package replay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/servers"
)

// rawConn is a client that writes commands and reads whole RESP frames.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	r  *bufio.Reader
	in []byte
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// connOf is the raw connection standing for the recorded connection name
// in conns, dialled (and switched to RESP3 by HELLO 3 for proto 3) at its
// first use.
func connOf(t *testing.T, addr string, conns map[string]*rawConn, name string, proto int) *rawConn {
	t.Helper()
	rc := conns[name]
	if rc == nil {
		rc = dialRaw(t, addr)
		conns[name] = rc
		if proto == 3 {
			rc.cmd("HELLO", "3")
		}
	}
	return rc
}

// do sends b and returns the next reply frame, escaped errors included.
func (rc *rawConn) do(b []byte) []byte {
	rc.t.Helper()
	rc.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		rc.t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if n, _, err := resp.Parse(rc.in); err != nil {
			rc.t.Fatalf("reply to %.80q: %v", b, err)
		} else if n > 0 {
			out := rc.in[:n:n]
			rc.in = rc.in[n:]
			return out
		}
		n, err := rc.r.Read(buf)
		if err != nil {
			rc.t.Fatalf("reply to %.80q: %v (read so far %.80q)", b, err, rc.in)
		}
		rc.in = append(rc.in, buf[:n]...)
	}
}

func (rc *rawConn) cmd(args ...string) string {
	return string(rc.do(resp.AppendCommandString(nil, args...)))
}

// committedGoldens lists testdata/golden/*.
func committedGoldens(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(goldens + "*")
	if err != nil || len(dirs) < 5 {
		t.Fatalf("golden dirs %v, %v", dirs, err)
	}
	return dirs
}

// sentBytes returns the bytes a client replaying step st of case c with key
// prefix pfx sends: the recording's, or for a command the golden keeps only
// the hash of, its case file's expansion (false when it no longer matches).
func sentBytes(t *testing.T, f *golden.File, c *golden.Case, st *golden.Step, pfx string) ([]byte, bool) {
	t.Helper()
	if st.Sent.Full() {
		return bytes.ReplaceAll(st.Sent.Data, []byte(golden.Placeholder), []byte(pfx)), true
	}
	cf, err := cases.LoadFile(filepath.Join("../../../cases", f.Path))
	if err != nil {
		return nil, false
	}
	for _, cc := range cf.Cases {
		if cc.Name != c.Name || st.Index >= len(cc.Steps) || len(cc.Steps[st.Index].Send) == 0 {
			continue
		}
		var args [][]byte
		for _, tp := range cc.Steps[st.Index].Send {
			a, err := tp.Expand(&cases.Env{KeyPrefix: pfx})
			if err != nil {
				return nil, false
			}
			args = append(args, a)
		}
		b := resp.AppendCommand(nil, args...)
		if golden.NewBlob(golden.Normalize(b, pfx)).Equal(*st.Sent) {
			return b, true
		}
	}
	return nil, false
}

type fileCase struct {
	f *golden.File
	c *golden.Case
}

// TestEveryCaseReplays replays every case of the recorded goldens from its
// first command, each recorded connection on a connection of its own, with
// the recorded key prefixes and with another run id's, the cases in
// recording order and in reverse: every reply is the recorded one (volatile
// steps aside). Nothing carries over from one case's connections to the
// next case's.
func TestEveryCaseReplays(t *testing.T) {
	for _, build := range servers.Pinned {
		for _, mode := range []string{"recorded", "another", "another-reversed"} {
			t.Run(build+"/"+mode, func(t *testing.T) {
				d, err := golden.Load(goldens + build)
				if err != nil {
					t.Fatal(err)
				}
				s, addr := start(t, d, Options{})
				var all []fileCase
				for _, f := range d.Sorted() {
					for _, c := range f.Cases {
						all = append(all, fileCase{f, c})
					}
				}
				if mode == "another-reversed" {
					slices.Reverse(all)
				}
				compared, skipped, unrebuilt := 0, 0, 0
				for n, fc := range all {
					f, c := fc.f, fc.c
					if unreplayable(c) {
						continue
					}
					pfx := c.Prefix
					if mode != "recorded" {
						pfx = cases.KeyPrefix(fmt.Sprint("another run ", n))
					}
					conns := map[string]*rawConn{}
					for _, st := range c.Steps {
						// Async sends are answered at once, not at their read.
						if st.Action != "send" || st.Async || st.Sent == nil || st.Reply == nil || len(st.Pushes) > 0 {
							continue
						}
						sent, ok := sentBytes(t, f, c, st, pfx)
						if !ok {
							skipped++
							continue
						}
						rc := connOf(t, addr, conns, st.Conn, c.Proto)
						got := rc.do(sent)
						if st.Volatile {
							continue
						}
						want, ok := s.bytesOf(*st.Reply)
						if !ok {
							// A reply over 4 KiB kept as its size and SHA-256
							// that echoes no argument (INFO everything, an
							// HLL's bytes): serve says so (a finding).
							unrebuilt++
							continue
						}
						compared++
						want = bytes.ReplaceAll(want, []byte(golden.Placeholder), []byte(pfx))
						if !bytes.Equal(got, want) {
							t.Errorf("%s:%d %q [RESP%d] step %d: got %s, want %s", f.Base()+golden.Ext, st.Line, c.Name, c.Proto, st.Index,
								resp.Escape(got[:min(len(got), 200)]), resp.Escape(want[:min(len(want), 200)]))
						}
					}
				}
				var fs []string
				for _, f := range s.Findings() {
					if !strings.Contains(f, "is stored as its length") {
						fs = append(fs, f)
					}
				}
				if len(fs) > 0 {
					t.Errorf("findings: %q", fs)
				}
				t.Logf("%d replies compared, %d steps not sent, %d large replies not kept whole", compared, skipped, unrebuilt)
				if compared < 700 || skipped > 10 {
					t.Errorf("%d replies compared, %d steps not sent", compared, skipped)
				}
			})
		}
	}
}

const ping = "*1\r\n$4\r\nPING\r\n"

// statefulPing is a recorded PING whose reply is not +PONG: it belongs to
// the state of its case (BUSY while a script runs, QUEUED inside MULTI).
type statefulPing struct {
	f    *golden.File
	c    *golden.Case
	step *golden.Step
}

func statefulPings(d *golden.Dir) []statefulPing {
	var out []statefulPing
	for _, f := range d.Sorted() {
		for _, c := range f.Cases {
			for _, st := range c.Steps {
				if st.Action == "send" && st.Sent != nil && string(st.Sent.Data) == ping && st.Reply != nil && string(st.Reply.Data) != "+PONG\r\n" {
					out = append(out, statefulPing{f, c, st})
				}
			}
		}
	}
	return out
}

// replayRaw sends the commands of a case (its send steps up to index last,
// async ones aside) on one raw connection per recorded connection, keys
// under pfx, and returns the reply to step last and the connections.
func replayRaw(t *testing.T, addr string, f *golden.File, c *golden.Case, pfx string, last int) ([]byte, map[string]*rawConn) {
	t.Helper()
	conns := map[string]*rawConn{}
	for _, st := range c.Steps {
		if st.Index > last {
			break
		}
		if st.Action != "send" || st.Async || st.Sent == nil {
			continue
		}
		sent, ok := sentBytes(t, f, c, st, pfx)
		if !ok {
			t.Fatalf("%s step %d: cannot rebuild the command", c.Name, st.Index)
		}
		rc := connOf(t, addr, conns, st.Conn, c.Proto)
		if got := rc.do(sent); st.Index == last {
			return got, conns
		}
	}
	if len(conns) == 0 {
		t.Fatalf("%s: no command up to step %d", c.Name, last)
	}
	return nil, conns // step last sent nothing
}

// replayGoRedis is replayRaw with one go-redis client per recorded
// connection; it returns go-redis's result for step last.
func replayGoRedis(t *testing.T, addr string, c *golden.Case, pfx string, last int) (any, error) {
	t.Helper()
	ctx := context.Background()
	clients := map[string]*redis.Client{}
	for _, st := range c.Steps {
		if st.Index > last {
			break
		}
		if st.Action != "send" || st.Async || st.Sent == nil {
			continue
		}
		if !st.Sent.Full() {
			t.Fatalf("%s step %d: a large command", c.Name, st.Index)
		}
		_, v, err := resp.Parse(bytes.ReplaceAll(st.Sent.Data, []byte(golden.Placeholder), []byte(pfx)))
		if err != nil {
			t.Fatal(err)
		}
		args := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			args[i] = string(e.Str)
		}
		cl := clients[st.Conn]
		if cl == nil {
			cl = redis.NewClient(&redis.Options{Addr: addr, Protocol: c.Proto, PoolSize: 1, MaxRetries: -1})
			defer cl.Close()
			clients[st.Conn] = cl
		}
		res, err := cl.Do(ctx, args...).Result()
		if st.Index == last {
			return res, err
		}
	}
	t.Fatalf("%s: no step %d", c.Name, last)
	return nil, nil
}

// freshPings checks that new connections, raw and go-redis, RESP2 and RESP3,
// get +PONG to PING.
func freshPings(t *testing.T, d *golden.Dir, addr, when string) {
	t.Helper()
	if got := dialRaw(t, addr).cmd("PING"); got != "+PONG\r\n" {
		t.Errorf("%s: raw PING on a new connection: %q, want +PONG", when, got)
	}
	rc := dialRaw(t, addr)
	hello := rc.cmd("HELLO", "3")
	if d.Server.Hello3 != nil && hello != string(d.Server.Hello3) {
		t.Errorf("%s: HELLO 3: %q", when, hello)
	}
	if got := rc.cmd("PING"); got != "+PONG\r\n" {
		t.Errorf("%s: raw PING after HELLO 3 (%.20q): %q, want +PONG", when, hello, got)
	}
	for _, proto := range []int{2, 3} {
		cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, PoolSize: 1, MaxRetries: -1})
		if v, err := cl.Ping(context.Background()).Result(); err != nil || v != "PONG" {
			t.Errorf("%s: go-redis (RESP%d) Ping on a new client: %q, %v; want PONG", when, proto, v, err)
		}
		cl.Close()
	}
}

// TestFreshConnectionPingIsPong: a client's health-check PING on a new
// connection gets +PONG from every committed golden directory, before and
// after other connections replayed the cases whose recorded PING reply is
// BUSY or QUEUED; those replays still get the recorded bytes.
func TestFreshConnectionPingIsPong(t *testing.T) {
	for _, dir := range committedGoldens(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d, err := golden.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			s, addr := start(t, d, Options{})
			freshPings(t, d, addr, "first")
			for i, sp := range statefulPings(d) {
				where := fmt.Sprintf("%s:%d %q [RESP%d]", sp.f.Base()+golden.Ext, sp.step.Line, sp.c.Name, sp.c.Proto)
				// In the case: with its recorded key prefix, and another.
				for _, pfx := range []string{sp.c.Prefix, cases.KeyPrefix(fmt.Sprint("ping ", i))} {
					if got, _ := replayRaw(t, addr, sp.f, sp.c, pfx, sp.step.Index); !bytes.Equal(got, sp.step.Reply.Data) {
						t.Errorf("%s: PING in a raw replay (prefix %s): %q, want the recorded %q", where, pfx, got, sp.step.Reply.Data)
					}
					freshPings(t, d, addr, "after a raw replay of "+where)
				}
				// Once the whole case is replayed, its state is over: a
				// PING on the same connection is a health check again.
				end := sp.c.Steps[len(sp.c.Steps)-1].Index
				_, conns := replayRaw(t, addr, sp.f, sp.c, cases.KeyPrefix(fmt.Sprint("whole ", i)), end)
				if got := conns[sp.step.Conn].cmd("PING"); got != "+PONG\r\n" {
					t.Errorf("%s: PING after the whole case on its connection: %q, want +PONG", where, got)
				}
				want, wantErr := goValue(mustParse(t, sp.step.Reply.Data))
				got, err := replayGoRedis(t, addr, sp.c, sp.c.Prefix, sp.step.Index)
				if wantErr != "" && (err == nil || err.Error() != wantErr) || wantErr == "" && (err != nil || !reflect.DeepEqual(got, want)) {
					t.Errorf("%s: PING in a go-redis replay: %#v, %v; want the recorded %q", where, got, err, sp.step.Reply.Data)
				}
				freshPings(t, d, addr, "after a go-redis replay of "+where)
			}
			for _, f := range s.Findings() {
				if !strings.Contains(f, "; the recording has no reply to it") || !strings.Contains(f, " sent HELLO ") {
					t.Errorf("finding: %s", f)
				}
			}
		})
	}
}

func mustParse(t *testing.T, b []byte) resp.Value {
	t.Helper()
	_, v, err := resp.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStatefulPingsAreCovered: the committed goldens do record PINGs whose
// reply belongs to their case's state (else TestFreshConnectionPingIsPong
// would prove little).
func TestStatefulPingsAreCovered(t *testing.T) {
	for build, want := range map[string][]string{
		"redis-7.0.15": {"-BUSY "}, "valkey-8.0.1": {"-BUSY "}, "valkey-9.1.2": {"-BUSY "},
		"redis-8.0.6": {"-BUSY "}, "valkey-8.1.1": {"-BUSY "},
		"redis-8.6.3": {"-BUSY ", "+QUEUED\r\n"},
	} {
		d, err := golden.Load(goldens + build)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sp := range statefulPings(d) {
			got = append(got, string(sp.step.Reply.Data))
		}
		for _, w := range want {
			if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
				t.Errorf("%s: no recorded PING reply %q among %q", build, w, got)
			}
		}
	}
}

// TestCommandsOutsideACase: without a case context (a new connection, no
// key prefix of a recorded case), a command is answered from a recording
// only when the recordings cannot disagree; else PING and ECHO get what any
// server answers, and anything else an error reply and a finding, not
// another case's reply.
func TestCommandsOutsideACase(t *testing.T) {
	d, err := golden.Load(goldens + "redis-8.6.3")
	if err != nil {
		t.Fatal(err)
	}
	s, addr := start(t, d, Options{})
	for _, tc := range []struct {
		cmds []string // on one new connection, the last one checked
		want string   // the reply, or its start for an error
	}{
		{[]string{"ECHO hi"}, "$2\r\nhi\r\n"},
		{[]string{"PING hi"}, "$2\r\nhi\r\n"},
		// Every case that opens a connection with MULTI got +OK.
		{[]string{"MULTI"}, "+OK\r\n"},
		// MULTI then EXEC is a recorded connection's start: its reply.
		{[]string{"MULTI", "EXEC"}, "*0\r\n"},
		// A case starting with this SET: the replay follows it.
		{[]string{"SET rc:{0badcafe}:key v", "MULTI", "SET rc:{0badcafe}:key c IFDEQ zz GET", "PING"}, "+QUEUED\r\n"},
		// Many cases recorded EXEC, with different replies.
		{[]string{"EXEC"}, "-ERR respcheck serve: EXEC was recorded with different replies in "},
		// Cases that do not start with GET rc:{...}:a: a new key prefix
		// does not say which of them this is.
		{[]string{"EXISTS rc:{00000000}:key"}, "-ERR respcheck serve: EXISTS was recorded with different replies in"},
		{[]string{"PING"}, "+PONG\r\n"},
	} {
		rc := dialRaw(t, addr)
		var got string
		for _, c := range tc.cmds {
			got = rc.cmd(strings.Fields(c)...)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.cmds, got, tc.want)
		}
	}
	f := s.Findings()
	if len(f) != 2 || !strings.Contains(f[0], `outside any recorded case it could belong to (RESP2): "*1\r\n$4\r\nEXEC\r\n"; its `) ||
		!strings.Contains(f[1], "rc:{00000000}:key") {
		t.Errorf("findings:\n%s", strings.Join(f, "\n"))
	}
}

// TestACommandOutsideItsCaseKeepsTheCase: a connection replaying case B
// with another run id that sends a command B does not have (recorded in A
// only) gets A's reply, and stays in B: B's GET answers, not A's.
func TestACommandOutsideItsCaseKeepsTheCase(t *testing.T) {
	ph := golden.Placeholder
	blob := func(s string) *golden.Blob { b := golden.NewBlob([]byte(s)); return &b }
	cmd := func(args ...string) *golden.Blob { return blob(string(resp.AppendCommandString(nil, args...))) }
	steps := func(second, secondReply, getReply string) []*golden.Step {
		return []*golden.Step{
			{Index: 0, Action: "send", Conn: "default", Sent: cmd("SET", ph+"key", "1"), Reply: blob("+OK\r\n")},
			{Index: 1, Action: "send", Conn: "default", Sent: cmd(second, ph+"key"), Reply: blob(secondReply)},
			{Index: 2, Action: "send", Conn: "default", Sent: cmd("GET", ph+"key"), Reply: blob(getReply)},
		}
	}
	d := &golden.Dir{Path: "two", Server: golden.Server{Family: "redis", Version: "7.0.15"},
		Files: map[string]*golden.File{"two": {Path: "suite/two.yaml", Cases: []*golden.Case{
			{Name: "A", Proto: 2, Status: "pass", Prefix: "rc:{0000000a}:", Steps: steps("EXISTS", ":1\r\n", "$1\r\n1\r\n")},
			{Name: "B", Proto: 2, Status: "pass", Prefix: "rc:{0000000b}:", Steps: steps("DEL", ":1\r\n", "$-1\r\n")}}}}}
	s, addr := start(t, d, Options{})
	rc := dialRaw(t, addr)
	for _, step := range []struct{ args, want string }{
		{"SET rc:{12345678}:key 1", "+OK\r\n"}, // A or B
		{"DEL rc:{12345678}:key", ":1\r\n"},    // B
		{"EXISTS rc:{12345678}:key", ":1\r\n"}, // A's, the only one
		{"GET rc:{12345678}:key", "$-1\r\n"},   // still B
	} {
		if got := rc.cmd(strings.Fields(step.args)...); got != step.want {
			t.Errorf("%s: %q, want %q", step.args, got, step.want)
		}
	}
	if f := s.Findings(); len(f) > 0 {
		t.Errorf("findings: %q", f)
	}
}

// unreplayable says whether a case is outside what serve replays: a case
// that sends HELLO as one of its steps (serve answers HELLO as the client's
// handshake, from the recorded HELLO replies, not from the case). (A
// keyless case whose first command another case also starts with, with a
// different reply, would be too: no prefix or earlier command can tell
// them apart; the bundled suite has none since the DEBUG PROTOCOL push
// order case reads the push with a push step.)
func unreplayable(c *golden.Case) bool {
	return slices.ContainsFunc(c.Steps, func(st *golden.Step) bool {
		if st.Sent == nil || !bytes.HasPrefix(st.Sent.Data, []byte("*")) {
			return false
		}
		head := bytes.ToUpper(st.Sent.Data[:min(len(st.Sent.Data), 40)])
		// HELLO changes the connection's protocol; CLIENT REPLY OFF/SKIP
		// silences the steps these tests skip (no recorded reply), so the
		// later ones would be matched to them.
		return bytes.Contains(head, []byte("$5\r\nHELLO\r\n")) || bytes.Contains(head, []byte("$6\r\nCLIENT\r\n$5\r\nREPLY\r\n"))
	})
}
