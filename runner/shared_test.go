package runner_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// rawClient is a minimal pipelining client for test fixtures.
type rawClient struct {
	nc net.Conn
	r  *resp.Reader
	w  *bufio.Writer
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{nc: nc, r: resp.NewReader(nc), w: bufio.NewWriterSize(nc, 1<<16)}
}

func (c *rawClient) send(args ...string) { c.w.Write(resp.AppendCommandString(nil, args...)) }

// do sends one command and returns its reply, cloned.
func (c *rawClient) do(t *testing.T, args ...string) resp.Value {
	t.Helper()
	c.send(args...)
	return c.flushRead(t, 1)[0]
}

// flushRead flushes and reads n replies; an error reply fails the test.
func (c *rawClient) flushRead(t *testing.T, n int) []resp.Value {
	t.Helper()
	if err := c.w.Flush(); err != nil {
		t.Fatal(err)
	}
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	out := make([]resp.Value, 0, n)
	for i := 0; i < n; i++ {
		v, err := c.r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if v.Kind == resp.SimpleError {
			t.Fatalf("reply %d: %s", i, v.Str)
		}
		out = append(out, v.Clone())
	}
	return out
}

// loadMixed writes n keys of every type (strings, hashes, lists, sets,
// sorted sets, streams; some with a TTL) in batches.
func loadMixed(t *testing.T, c *rawClient, n int) {
	t.Helper()
	const batch = 1000
	pending := 0
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("app:%d", i)
		switch i % 6 {
		case 0:
			c.send("SET", k, strings.Repeat("v", i%50))
		case 1:
			c.send("HSET", k, "f1", "a", "f2", fmt.Sprint(i))
		case 2:
			c.send("RPUSH", k, "x", "y", fmt.Sprint(i))
		case 3:
			c.send("SADD", k, "m1", fmt.Sprint(i))
		case 4:
			c.send("ZADD", k, "1.5", "a", fmt.Sprint(i), "b")
		case 5:
			c.send("SET", k, fmt.Sprint(i), "EX", "86400")
		}
		pending++
		if pending == batch {
			c.flushRead(t, pending)
			pending = 0
		}
	}
	c.flushRead(t, pending)
}

// TestSharedServerKeepsOtherData loads 100,000 keys of mixed types, runs the
// whole bundled suite against the server as a shared (external) target, and
// proves the data set is unchanged (DEBUG DIGEST, DBSIZE) and no key of the
// run is left behind.
func TestSharedServerKeepsOtherData(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100,000 keys")
	}
	for _, name := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(name, func(t *testing.T) {
			srv := servers.ForTest(t, name)
			c := dialRaw(t, srv.Addr())
			loadMixed(t, c, 100000)
			digest := string(c.do(t, "DEBUG", "DIGEST").Str)
			size := c.do(t, "DBSIZE").Int
			if size != 100000 {
				t.Fatalf("DBSIZE %d after loading", size)
			}
			files, err := cases.Bundled()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := runner.Run(context.Background(), files, runner.Options{
				Addr: srv.Addr(), RunID: runner.NewRunID(), Shared: true, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status == runner.Fail || r.Status == runner.Error {
					t.Errorf("%s [RESP%d]: %s", runner.FullName(r.Case), r.Proto, r.Reason)
				}
			}
			refused := 0
			for _, r := range rep.Results {
				if r.Status == runner.Skip && strings.Contains(r.Reason, "reaches beyond the run's own keys") {
					refused++
				}
			}
			t.Logf("%+v; %d results refused as destructive; %d keys removed", rep.Summary, refused, rep.KeysRemoved)
			if rep.KeysRemoved == 0 {
				t.Error("the cleanup removed no keys: the suite writes keys, so it should")
			}
			if rep.DBSize != [2]int64{100000, 100000} {
				t.Errorf("DBSize before/after = %v", rep.DBSize)
			}
			if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
				t.Errorf("DEBUG DIGEST changed: %s before, %s after", digest, after)
			}
			left := c.do(t, "SCAN", "0", "MATCH", "rc:*", "COUNT", "1000000")
			if keys := left.Elems[1].Elems; len(keys) > 0 {
				t.Errorf("%d keys of the run left behind, e.g. %q", len(keys), keys[0].Str)
			}
		})
	}
}
