package capture_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// app is a program of testdata/capture and how to start it against an
// address.
type app struct {
	name string
	cmd  func(ctx context.Context, addr string) (*exec.Cmd, string)
}

var apps = []app{
	{"redis-py", func(ctx context.Context, addr string) (*exec.Cmd, string) {
		py := "/usr/bin/python3.11"
		if _, err := os.Stat(py); err != nil {
			return nil, py + " not found"
		}
		if exec.Command(py, "-c", "import redis").Run() != nil {
			return nil, "Debian's python3-redis is not installed (scripts/install-clients.sh --only python)"
		}
		c := exec.CommandContext(ctx, py, "../../testdata/capture/app.py", addr)
		c.Env = append(os.Environ(), "PYTHONNOUSERSITE=1")
		return c, ""
	}},
	{"ioredis", func(ctx context.Context, addr string) (*exec.Cmd, string) {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, "node not found"
		}
		mods, _ := filepath.Abs("../../adapters/node/node_modules")
		if _, err := os.Stat(filepath.Join(mods, "ioredis")); err != nil {
			cache := os.Getenv("RESPCHECK_CACHE")
			if cache == "" {
				home, _ := os.UserHomeDir()
				cache = filepath.Join(home, ".cache", "respcheck")
			}
			mods = filepath.Join(cache, "clients", "adapters", "node", "node_modules")
			if _, err := os.Stat(filepath.Join(mods, "ioredis")); err != nil {
				return nil, "ioredis is not installed (scripts/install-clients.sh --only node)"
			}
		}
		c := exec.CommandContext(ctx, node, "../../testdata/capture/app.js", addr)
		c.Env = append(os.Environ(), "NODE_PATH="+mods)
		return c, ""
	}},
}

// captured runs a through a Recorder in front of upstream and returns the
// case file of its traffic, loaded.
func captured(t *testing.T, a app, upstream string) (*cases.File, []byte) {
	t.Helper()
	rec, err := clients.NewRecorder(target.Config{Addr: upstream, Timeout: 5 * time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	cmd, skip := a.cmd(ctx, rec.Addr())
	if skip != "" {
		rec.Close()
		if servers.InCI() {
			t.Fatalf("CI is set and %s cannot run: %s", a.name, skip)
		}
		t.Skip(skip)
	}
	out, err := cmd.CombinedOutput()
	rec.Close()
	if err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("%s: %v\n%s", a.name, err, out)
	}
	ex, bad := rec.Exchanges()
	if len(bad) > 0 {
		t.Errorf("connections with bytes that are not RESP: %v", bad)
	}
	src := capture.CaseFile(ex, capture.Options{Suite: "capture", Case: a.name, Header: "TestCaptureReplays"})
	f, err := cases.Load(a.name+".yaml", src)
	if err != nil {
		t.Fatalf("the case file does not load: %v\n%s", err, src)
	}
	return f, src
}

// replay runs f on a throwaway server of build and returns its result.
func replay(t *testing.T, f *cases.File, build string) *runner.Result {
	t.Helper()
	srv := servers.ForTest(t, build)
	rep, err := runner.Run(t.Context(), []*cases.File{f}, runner.Options{Addr: srv.Addr(), Protos: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results, want 1 (the captured case, RESP2)", len(rep.Results))
	}
	return rep.Results[0]
}

// TestCaptureReplays: two real programs (redis-py and ioredis: a rate
// limiter, WATCH/MULTI/EXEC, SET IFDEQ/IFEQ with DIGEST, a Lua script, a
// pipeline, a subscriber and a publisher) captured through the recording
// proxy in front of Redis 8.6.3 replay on a fresh Redis 8.6.3 with every
// reply byte for byte the same; on Redis 7.0.15 the redis-py capture
// fails at every reply where the application used what 7.0 lacks
// (DIGEST, SET IFDEQ and IFEQ) and at the read that follows them, each
// named.
func TestCaptureReplays(t *testing.T) {
	for _, a := range apps {
		t.Run(a.name, func(t *testing.T) {
			// A fresh upstream each: the replay starts from an empty server.
			f, src := captured(t, a, servers.ForTest(t, "redis-8.6.3").Addr())
			for _, want := range []string{`"SUBSCRIBE", "news"`, "push: true", `"PUBLISH", "news", "hello"`, `"EXEC"`, `"WATCH", "balance"`} {
				if !strings.Contains(strings.ToUpper(string(src)), strings.ToUpper(want)) {
					t.Errorf("the capture lacks %s:\n%s", want, src)
				}
			}
			if res := replay(t, f, "redis-8.6.3"); res.Status != runner.Pass {
				t.Errorf("replay on redis-8.6.3: %s %s\n%s", res.Status, res.Reason, src)
			}
			if a.name != "redis-py" {
				return
			}
			// Every difference is reported, not the first alone: the case
			// goes on after a failure (continue_on_failure).
			res := replay(t, f, "redis-7.0.15")
			if res.Status != runner.Fail || res.Failure == nil {
				t.Fatalf("replay on redis-7.0.15: %s %s, want failures\n%s", res.Status, res.Reason, src)
			}
			var got []string
			for _, fl := range append([]*runner.Failure{res.Failure}, res.More...) {
				got = append(got, fmt.Sprintf("%s: %s", commandAt(res, fl), fl.Message))
			}
			// DIGEST is unknown to 7.0, SET's IFDEQ and IFEQ are syntax
			// errors there, and the document they did not update reads
			// back otherwise; the program's other replies are the same.
			want := []string{"DIGEST: reply differs at byte 0", "SET: reply differs at byte 0", "SET: reply differs at byte 0", "GET: reply differs at byte 5"}
			if !slices.Equal(got, want) {
				t.Errorf("replay on redis-7.0.15: differences %q, want %q\n%s", got, want, src)
			}
			var groups []string
			for _, d := range res.Differences() {
				groups = append(groups, fmt.Sprintf("%d %s: %s", d.Count, d.Command, d.Kind))
			}
			wantGroups := []string{"2 SET: simple string → simple error", "1 DIGEST: blob string → simple error", "1 GET: blob string, another value"}
			if !slices.Equal(groups, wantGroups) {
				t.Errorf("replay on redis-7.0.15: grouped %q, want %q", groups, wantGroups)
			}
		})
	}
}

// commandAt names the command of the step f failed at (its name and,
// for SET, its condition).
func commandAt(res *runner.Result, f *runner.Failure) string {
	for _, sr := range res.Steps {
		if sr.Step == f.Step && len(sr.Args) > 0 {
			return strings.ToUpper(string(sr.Args[0]))
		}
	}
	return "?"
}

// TestCaptureBlockedCommand: a BLPOP that waits while another connection
// pushes is captured as an async send read after the push, so the replay
// does not wait on it; pipelined commands on one connection replay in
// order. Captured through the proxy from two raw connections.
func TestCaptureBlockedCommand(t *testing.T) {
	up := servers.ForTest(t, "redis-8.6.3")
	rec, err := clients.NewRecorder(target.Config{Addr: up.Addr(), Timeout: 5 * time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.DialTimeout("tcp", rec.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c, bufio.NewReader(c)
	}
	a, ra := dial()
	b, rb := dial()
	write := func(c net.Conn, s string) {
		if _, err := c.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n")
	time.Sleep(100 * time.Millisecond) // a waits on the server
	write(b, "*3\r\n$5\r\nLPUSH\r\n$1\r\nq\r\n$1\r\nx\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nq\r\n")
	for _, want := range []string{":1\r\n", ":0\r\n"} {
		if l, err := rb.ReadString('\n'); err != nil || l != want {
			t.Fatalf("b read %q, %v; want %q", l, err, want)
		}
	}
	for range 5 { // *2 $1 q $1 x
		if _, err := ra.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.Close()
	time.Sleep(50 * time.Millisecond)
	rec.Close()
	ex, _ := rec.Exchanges()
	src := capture.CaseFile(ex, capture.Options{Suite: "capture", Case: "blocked", Header: "TestCaptureBlockedCommand"})
	s := string(src)
	blpop, push, read := strings.Index(s, `"BLPOP"`), strings.Index(s, `"LPUSH"`), strings.Index(s, "read: true")
	if blpop < 0 || push < blpop || read < push || !strings.Contains(s[blpop:push], "async: true") {
		t.Fatalf("want BLPOP async, LPUSH, then BLPOP's read:\n%s", s)
	}
	f, err := cases.Load("blocked.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	if res := replay(t, f, "redis-8.6.3"); res.Status != runner.Pass {
		t.Errorf("replay: %s %s\n%s", res.Status, res.Reason, s)
	}
}

// keysRecorder is a Recorder in front of addr that reads the keys before
// (--keys-before); the caller closes it.
func keysRecorder(t *testing.T, addr string) *clients.Recorder {
	t.Helper()
	rec, err := clients.NewRecorderWith(t.Context(), target.Config{Addr: addr, Timeout: 10 * time.Second}, "127.0.0.1:0", clients.RecorderOptions{KeysBefore: true})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// dialProxy connects to rec, with a 20 s deadline for what follows.
func dialProxy(t *testing.T, rec *clients.Recorder) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", rec.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}
