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
	done := make(chan struct{})
	track := func(c net.Conn) {
		mu.Lock()
		open = append(open, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		close(done)
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
						select {
						case <-time.After(delay):
						case <-done:
							return
						}
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
// step, the next passes), and the reruns have key namespaces of their own;
// a case of the batch that loaded a function is not run again, and says
// so.
func TestStrayReplyInABatch(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	addr := splitProxy(t, srv.Addr(), []byte("-ERR must be exactly"), 300*time.Millisecond)
	src := `suite: batch
cases:
  - name: load a library
    steps:
      - send: [FUNCTION, LOAD, REPLACE, "#!lua name=rcstray\nredis.register_function('rcstray_f', function() return 1 end)"]
        reply: "$7\r\nrcstray\r\n"
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
		// The library's case changes the server beyond its keys: not run
		// again, it cannot be told apart from the one that sent the
		// extra reply (a shared target skips it).
		if r := result(t, rep, "load a library", 2); !shared && (r.Status != runner.Error || !strings.Contains(r.Reason, "not run again alone; it ran as pass")) {
			t.Errorf("shared=%v: load a library: %s %q, want an error saying it was not run again", shared, r.Status, r.Reason)
		}
		for _, c := range files[0].Cases[1:3] {
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
	files := casesOf(t, "plain", 60, []string{`[SET, "{key}", v] +OK|[GET, "{key}"] $1 v`})
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
		// batches (16, 16, 16, 12), the watchdog's PINGs on top. A shared
		// run's ACL user costs one ACL SETUSER, one COMMAND INFO (which
		// of its denials the server has) and one ACL DELUSER.
		acl := map[bool]int{false: 0, true: 1}[shared]
		if calls["hello"] != 2 || calls["ping"] < 4 || calls["command|info"] != 1+acl {
			t.Errorf("shared=%v: HELLO %d, PING %d, COMMAND INFO %d; want 2, at least 4, %d", shared, calls["hello"], calls["ping"], calls["command|info"], 1+acl)
		}
		if calls["acl|setuser"] != acl || calls["acl|deluser"] != acl {
			t.Errorf("shared=%v: ACL SETUSER %d, ACL DELUSER %d; want %d each", shared, calls["acl|setuser"], calls["acl|deluser"], acl)
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

// TestOwnStrayKeepsTheBatch: a case that ends a batch by failing as its
// known difference says (Redis 8.6.3 answers SET ... IFDEQ zz GET twice)
// leaves its own extra reply on the connection; run again alone it comes
// to the same verdict, so the extra reply was its own and the cases before
// it are reported as they ran (not run again: a case with effects beyond
// its keys, as loading a function, would not come to the same verdict
// twice).
func TestOwnStrayKeepsTheBatch(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	src := `suite: batch
cases:
  - name: first
    steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]
  - name: load a library
    steps:
      - send: [FUNCTION, LOAD, REPLACE, "#!lua name=rcbatch\nredis.register_function('rcbatch_f', function() return 1 end)"]
        reply: "$7\r\nrcbatch\r\n"
  - name: second
    steps: [{send: [INCR, "{key}"], reply: ":1\r\n"}]
  - name: two replies
    known: [{server: redis, reason: "Redis 8.6.3 answers twice"}]
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [SET, "{key}", c, IFDEQ, zz, GET], reply: "-ERR must be exactly 16 hexadecimal characters\r\n"}
  - name: after
    steps: [{send: [RPUSH, "{key}", a], reply: ":1\r\n"}]
`
	files := load(t, src)
	opts := runner.Options{Jobs: 1, Protos: []int{2}, RunID: runner.NewRunID()}
	rep := run(t, srv.Addr(), files, opts)
	for _, c := range files[0].Cases {
		r := result(t, rep, c.Name, 2)
		want, prefix := runner.Pass, cases.KeyPrefix(opts.RunID+" "+c.ID()+" 2")
		switch c.Name {
		case "two replies":
			want, prefix = runner.KnownDiff, cases.KeyPrefix(opts.RunID+" "+c.ID()+" 2 again")
		}
		if r.Status != want || r.KeyPrefix != prefix {
			t.Errorf("%s: %s %q in %s, want %s in %s (again: %s)", c.Name, r.Status, r.Reason, r.KeyPrefix, want, prefix, cases.KeyPrefix(opts.RunID+" "+c.ID()+" 2 again"))
		}
	}
}

// TestInterruptedBatch: once a run is interrupted, the cases whose batch
// could not be checked are not reported as passes: a case whose stray
// reply had not come yet when the case after it on the connection was
// cut short, and a batch whose sentinel's reply does not come (the check
// gets a second, and the run ends without waiting for the step timeout).
func TestInterruptedBatch(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	var long strings.Builder
	long.WriteString("suite: batch\ncases:\n  - name: two replies\n    steps:\n")
	long.WriteString("      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n      - {send: [SET, \"{key}\", c, IFDEQ, zz, GET], reply: \"$1\\r\\nv\\r\\n\"}\n")
	long.WriteString("  - name: long\n    steps:\n")
	for range 20000 {
		long.WriteString("      - {send: [GET, \"{key}\"], reply: \"$-1\\r\\n\"}\n")
	}
	for _, tc := range []struct {
		name   string
		files  []*cases.File
		marker string
		held   string
	}{
		{"a stray not come yet", load(t, long.String()), "-ERR must be exactly", "two replies"},
		{"a sentinel not answered", casesOf(t, "batch", 20, []string{`[SET, "{key}", v] +OK`}), "respcheck-end-of-case", "case 0"},
	} {
		addr := splitProxy(t, srv.Addr(), []byte(tc.marker), 20*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		files := tc.files
		done := make(chan *runner.Report, 1)
		go func() {
			// Interrupted 300 ms after the cases start.
			start := func(int) { time.AfterFunc(300*time.Millisecond, cancel) }
			rep, err := runner.Run(ctx, files, runner.Options{Addr: addr, Jobs: 1, Protos: []int{2}, StepTimeout: 15 * time.Second, RunID: runner.NewRunID(), OnStart: start})
			if err != nil {
				t.Error(err)
			}
			done <- rep
		}()
		select {
		case rep := <-done:
			if rep == nil {
				continue
			}
			r := result(t, rep, tc.held, 2)
			if r.Status != runner.Skip || !r.NotRun || !strings.Contains(r.Reason, "not checked") {
				t.Errorf("%s: %s: %s (not run %v) %q, want not checked", tc.name, tc.held, r.Status, r.NotRun, r.Reason)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the interrupted run has not ended after 10 s", tc.name)
		}
		cancel()
	}
}

// TestFailFastAtAHeldCase: --fail-fast stops at a plain case that passes
// its steps but fails as a known difference that did not happen, as it
// did when each case was reported at its end: the cases after it are not
// run.
func TestFailFastAtAHeldCase(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	files := load(t, "suite: ff\ncases:\n  - name: known\n    known: [{server: redis, reason: no longer}]\n    steps: [{send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}]\n")
	files = append(files, casesOf(t, "after", 40, []string{`[SET, "{key}", v] +OK`})...)
	rep := run(t, srv.Addr(), files, runner.Options{Jobs: 1, Protos: []int{2}, FailFast: true, RunID: runner.NewRunID()})
	if r := result(t, rep, "known", 2); r.Status != runner.Fail {
		t.Errorf("known: %s %q, want a failure (the known difference did not happen)", r.Status, r.Reason)
	}
	if rep.Summary.Passed > 1 {
		t.Errorf("%d cases passed after the failure, want at most 1 (one in flight)", rep.Summary.Passed)
	}
}
