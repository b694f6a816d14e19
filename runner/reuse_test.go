package runner_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// splitProxy forwards connections to upstream unchanged, except that a
// chunk of the server's bytes holding marker after its start is written in
// two parts, delay apart: a stray reply that the server wrote with the
// reply before it then reaches the client on its own, late (no real server
// is that slow on purpose: this is the split write a mock stands in for).
func splitProxy(t *testing.T, upstream string, marker []byte, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		open = append(open, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.DialTimeout("tcp", upstream, 5*time.Second)
			if err != nil {
				client.Close()
				continue
			}
			track(client)
			track(server)
			wg.Add(2)
			go func() {
				defer wg.Done()
				io.Copy(server, client)
				server.Close()
			}()
			go func() {
				defer wg.Done()
				defer client.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					if err != nil {
						return
					}
					chunk := buf[:n]
					if i := bytes.Index(chunk, marker); i > 0 {
						if _, err := client.Write(chunk[:i]); err != nil {
							return
						}
						time.Sleep(delay)
						chunk = chunk[i:]
					}
					if _, err := client.Write(chunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestStrayReplyInABatch: Redis 8.6.3 answers SET ... IFDEQ <not a
// digest> GET twice; when the second reply comes late, the case that sent
// it passes its steps and its connection goes on to the next plain case,
// which reads that reply as its own and fails. The batch's check finds the
// connection out of step, and both cases run again alone: the verdicts are
// those of each case run alone (the first fails for a reply after its last
// step, the next passes), and the reruns have key namespaces of their own.
func TestStrayReplyInABatch(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := splitProxy(t, srv.Addr(), []byte("-ERR must be exactly"), 300*time.Millisecond)
	src := `suite: batch
cases:
  - name: two replies to one command
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [SET, "{key}", c, IFDEQ, zz, GET], reply: "$1\r\nv\r\n"}
  - name: next
    steps:
      - {send: [SET, "{key}", x], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], value: x}
  - name: after
    steps:
      - {send: [INCR, "{key}"], reply: ":1\r\n"}
`
	files := load(t, src)
	for _, shared := range []bool{false, true} {
		opts := runner.Options{Jobs: 1, Protos: []int{2}, Shared: shared, RunID: runner.NewRunID()}
		rep := run(t, addr, files, opts)
		first := result(t, rep, "two replies to one command", 2)
		if first.Status != runner.Fail || !strings.Contains(first.Reason, "after the last step") {
			t.Errorf("shared=%v: %s %q, want a failure for a reply after the last step", shared, first.Status, first.Reason)
		}
		for _, name := range []string{"next", "after"} {
			if r := result(t, rep, name, 2); r.Status != runner.Pass {
				t.Errorf("shared=%v: %s: %s %q, want a pass (run again alone)", shared, name, r.Status, r.Reason)
			}
		}
		for _, c := range files[0].Cases[:2] {
			want := cases.KeyPrefix(opts.RunID + " " + c.ID() + " 2 again")
			if got := result(t, rep, c.Name, 2).KeyPrefix; got != want {
				t.Errorf("shared=%v: %s ran in %s, want %s (run again alone)", shared, c.Name, got, want)
			}
		}
		if shared && (len(rep.KeysLeft) > 0 || rep.DBSize[1] != rep.DBSize[0]) {
			t.Errorf("keys left: %v, DBSIZE %v", rep.KeysLeft, rep.DBSize)
		}
	}
}

// TestPlainCasesShareConnections: 60 plain cases in one job reach the
// server on one connection (one HELLO for all), and their end-of-case
// checks and, on a shared target, key deletions are one PING and one
// UNLINK for each batch of 16 cases (INFO commandstats).
func TestPlainCasesShareConnections(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	var src strings.Builder
	src.WriteString("suite: plain\ncases:\n")
	for i := range 60 {
		src.WriteString("  - name: c" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + "\n    steps:\n      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n      - {send: [GET, \"{key}\"], value: v}\n")
	}
	files := load(t, src.String())
	c, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, shared := range []bool{false, true} {
		c.Do("CONFIG", "RESETSTAT")
		rep := run(t, srv.Addr(), files, runner.Options{Jobs: 1, Protos: []int{3}, Shared: shared, RunID: runner.NewRunID()})
		if rep.Summary.Passed != 60 {
			t.Fatalf("shared=%v: %+v", shared, rep.Summary)
		}
		calls := commandStats(t, c)
		// One HELLO for the cases, one for the watchdog's connection; 4
		// batches (16, 16, 16, 12), the watchdog's PINGs on top.
		if calls["hello"] != 2 || calls["ping"] < 4 || calls["command|info"] != 1 {
			t.Errorf("shared=%v: HELLO %d, PING %d, COMMAND INFO %d; want 2, at least 4, 1", shared, calls["hello"], calls["ping"], calls["command|info"])
		}
		if want := map[bool]int{false: 0, true: 4}[shared]; calls["unlink"] != want {
			t.Errorf("shared=%v: UNLINK %d, want %d", shared, calls["unlink"], want)
		}
		if shared && (rep.KeysRemoved != 60 || rep.DBSize[1] != rep.DBSize[0]) {
			t.Errorf("keys removed %d, DBSIZE %v; want 60 and no change", rep.KeysRemoved, rep.DBSize)
		}
	}
}

// commandStats returns the calls of each command since CONFIG RESETSTAT
// (INFO commandstats), by lower-case name.
func commandStats(t *testing.T, c *target.Conn) map[string]int {
	t.Helper()
	v, err := c.Do("INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, line := range strings.Split(string(v.Str), "\r\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n := 0
		for _, r := range rest {
			if r < '0' || r > '9' {
				break
			}
			n = n*10 + int(r-'0')
		}
		calls[name] = n
	}
	return calls
}

// TestFailureInABatchIsItsOwn: a plain case that fails on a connection
// earlier cases passed on ends their batch: its check finds the
// connection in step, so the earlier cases are reported as they ran and
// the failing one keeps its own verdict (no case runs again).
func TestFailureInABatchIsItsOwn(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	src := `suite: batch
cases:
  - name: first
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
  - name: second
    steps: [{send: [INCR, "{key}"], reply: ":1\r\n"}]
  - name: wrong
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], value: w}
  - name: after
    steps: [{send: [RPUSH, "{key}", a], reply: ":1\r\n"}]
`
	files := load(t, src)
	for _, shared := range []bool{false, true} {
		opts := runner.Options{Jobs: 1, Protos: []int{3}, Shared: shared, RunID: runner.NewRunID()}
		rep := run(t, srv.Addr(), files, opts)
		for _, c := range files[0].Cases {
			r := result(t, rep, c.Name, 3)
			want := runner.Pass
			if c.Name == "wrong" {
				want = runner.Fail
			}
			if r.Status != want || r.KeyPrefix != cases.KeyPrefix(opts.RunID+" "+c.ID()+" 3") {
				t.Errorf("shared=%v: %s: %s %q in %s, want %s in its first namespace", shared, c.Name, r.Status, r.Reason, r.KeyPrefix, want)
			}
		}
		if shared && (rep.KeysRemoved != 4 || rep.DBSize[1] != rep.DBSize[0]) {
			t.Errorf("keys removed %d, DBSIZE %v; want 4 and no change", rep.KeysRemoved, rep.DBSize)
		}
	}
}
