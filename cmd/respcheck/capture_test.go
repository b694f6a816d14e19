package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestCaptureCommand: respcheck capture in front of a server ends after
// --max-commands frames, writes the case file (a secret not among its
// bytes, the reply expected byte for byte), and respcheck run replays it
// on the same build; a --listen address it cannot take is a usage error.
func TestCaptureCommand(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	code, errs, b := capturing(t, []string{"capture", "--addr", srv.Addr(), "--max-commands", "6"},
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n", "*2\r\n$4\r\nAUTH\r\n$11\r\ncanary-pass\r\n", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	for _, want := range []string{`send: ["SET", "k", "v1"]`, `reply: "+OK\r\n"`, `send: ["GET", "k"]`, `reply: "$2\r\nv1\r\n"`, "AUTH not written"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "canary-pass") {
		t.Errorf("the password is in the file:\n%s", b)
	}
	out := filepath.Join(t.TempDir(), "capture.yaml")
	os.WriteFile(out, b, 0o644)
	code, o, e := respcheck(t, "run", "--server", "redis-8.6.3", out)
	if code != exitOK || !strings.Contains(o, "1 passed, 0 failed") {
		t.Errorf("replay: exit %d\n%s%s", code, o, e)
	}
	if code, _, e := respcheck(t, "capture", "--addr", srv.Addr(), "--listen", "256.0.0.1:1", "-o", out); code != exitUsage || !strings.Contains(e, "--listen 256.0.0.1:1") {
		t.Errorf("a bad --listen: exit %d\n%s", code, e)
	}
	// A --twin that is no build: a usage error before the capture.
	if code, _, e := respcheck(t, "capture", "--addr", srv.Addr(), "--twin", "redis-9.9", "--duration", "2s", "-o", out); code != exitUsage || !strings.Contains(e, "--twin redis-9.9") || strings.Contains(e, "proxy on") {
		t.Errorf("an unknown --twin: exit %d\n%s", code, e)
	}
	// An upstream that does not answer: exit 3 before the proxy listens,
	// with --keys-before (the default) and without.
	dead := deadAddr(t)
	for _, keys := range []string{"--keys-before=true", "--keys-before=false"} {
		code, _, e := respcheck(t, "capture", "--addr", dead, keys, "--duration", "2s", "-o", out)
		if code != exitServer || !strings.Contains(e, "the upstream "+dead+" could not be reached") || strings.Contains(e, "proxy on") {
			t.Errorf("a dead upstream, %s: exit %d\n%s", keys, code, e)
		}
	}
}

// capturing runs respcheck capture with args (and --listen, -o, a
// --duration bound), sends cmds on one connection through it, reading the
// reply to each ("{last}" in a command is the previous reply's payload, as
// a blob string), and returns capture's exit, stderr and the file.
func capturing(t *testing.T, args []string, cmds ...string) (int, string, []byte) {
	t.Helper()
	listen := "127.0.0.1:" + freePort(t)
	out := filepath.Join(t.TempDir(), "capture.yaml")
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, e := respcheck(t, append(args, "--listen", listen, "--duration", "60s", "-o", out)...)
		done <- result{code, e}
	}()
	var c net.Conn
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err = net.DialTimeout("tcp", listen, time.Second); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the proxy does not listen on %s: %v", listen, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := resp.NewReader(c)
	var first, last []byte
	for _, cmd := range cmds {
		// "{last}" is the payload of the reply before, "{first}" the
		// first reply's.
		cmd = strings.ReplaceAll(cmd, "{last}", fmt.Sprintf("$%d\r\n%s", len(last), last))
		cmd = strings.ReplaceAll(cmd, "{first}", fmt.Sprintf("$%d\r\n%s", len(first), first))
		if _, err := c.Write([]byte(cmd)); err != nil {
			t.Fatal(err)
		}
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		last = append([]byte(nil), v.Str...)
		if first == nil {
			first = last
		}
	}
	select {
	case res := <-done:
		b, _ := os.ReadFile(out)
		return res.code, res.errs, b
	case <-time.After(40 * time.Second):
		t.Fatal("capture did not end after --max-commands frames")
	}
	return 0, "", nil
}

// TestCaptureLearnsNoise: a reply that differs from run to run on the
// upstream's build but is not a command of the fixed volatile list (a
// script that returns TIME's microseconds) is learned on a throwaway twin
// of that build, as Diffy learns on a second instance, and expects any
// reply (stderr names EVAL); the file then passes on the same build. With --twin none it is
// expected byte for byte, and the replay fails there.
func TestCaptureLearnsNoise(t *testing.T) {
	cmds := []string{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n", "*3\r\n$4\r\nEVAL\r\n$30\r\nreturn redis.call('TIME')[2]+0\r\n$1\r\n0\r\n", "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"}
	code, errs, b := capturing(t, []string{"capture", "--server", "redis-8.6.3", "--max-commands", "6"}, cmds...)
	if code != exitOK || !strings.Contains(errs, "1 captured replies differed on a twin (a throwaway redis-8.6.3): expected as any reply: EVAL ×1") ||
		!strings.Contains(string(b), "any: true # differed on a twin") || !strings.Contains(string(b), `reply: "+OK\r\n"`) {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	file := filepath.Join(t.TempDir(), "learned.yaml")
	os.WriteFile(file, b, 0o644)
	if code, o, e := respcheck(t, "run", "--server", "redis-8.6.3", file); code != exitOK {
		t.Errorf("replay of the learned file: exit %d\n%s%s\n%s", code, o, e, b)
	}
	code, errs, b = capturing(t, []string{"capture", "--server", "redis-8.6.3", "--twin", "none", "--max-commands", "6"}, cmds...)
	os.WriteFile(file, b, 0o644)
	if code != exitOK || strings.Contains(string(b), "differed on a twin") {
		t.Fatalf("--twin none: exit %d\n%s\n%s", code, errs, b)
	}
	if code, o, e := respcheck(t, "run", "--server", "redis-8.6.3", file); code != exitFindings {
		t.Errorf("replay of the file without noise: exit %d, want %d\n%s%s", code, exitFindings, o, e)
	}
}

// TestCaptureCarriesValues: a value the server drew (XADD's ID) and the
// application sent back later (XRANGE, XDEL) is captured and carried
// through the replay ({cap:v1}), in the commands and in a reply that holds
// it, so the file passes on a server that draws another ID.
//
// A carried value is carried into a reply written in any order too (the
// set of SMEMBERS: a review found it written as the captured ID, which
// failed on the capture's own build).
func TestCaptureCarriesValues(t *testing.T) {
	cmds := []string{"*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$1\r\nf\r\n$1\r\nv\r\n",
		"*3\r\n$4\r\nSADD\r\n$3\r\nids\r\n{first}\r\n",
		"*2\r\n$8\r\nSMEMBERS\r\n$3\r\nids\r\n",
		"*4\r\n$6\r\nXRANGE\r\n$1\r\ns\r\n{first}\r\n$1\r\n+\r\n"}
	code, errs, b := capturing(t, []string{"capture", "--server", "redis-8.6.3", "--twin", "none", "--max-commands", "8"}, cmds...)
	if code != exitOK || !strings.Contains(string(b), "capture: v1") || !strings.Contains(string(b), `send: ["XRANGE", "s", "{cap:v1}", "+"]`) ||
		!strings.Contains(string(b), `${len:{cap:v1}}\r\n{cap:v1}\r\n`) || !strings.Contains(string(b), `value: {array_unordered: [{blob: "{cap:v1}"}]}`) {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	file := filepath.Join(t.TempDir(), "carried.yaml")
	os.WriteFile(file, b, 0o644)
	// A millisecond later: another ID.
	time.Sleep(2 * time.Millisecond)
	if code, o, e := respcheck(t, "run", "--server", "redis-8.6.3", file); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s\n%s", code, o, e, b)
	}
}

// TestCaptureUnorderedReplies: the replies of commands whose COMMAND INFO
// tips say nondeterministic_output_order (SMEMBERS, SUNION, HGETALL) are
// written as typed values in any order, so a replay on another build
// passes where the order differs: Redis 7.0.15 keeps a set of 20 strings
// in a hashtable whose order depends on the process's random hash seed,
// Redis 8.6.3 in a listpack in insertion order (SMEMBERS of two members
// came back reversed for a fresh user, 2026-12-07). Other replies stay
// bytes.
func TestCaptureUnorderedReplies(t *testing.T) {
	sadd := []string{"SADD", "st"}
	for i := range 20 {
		sadd = append(sadd, fmt.Sprintf("member-%d", i))
	}
	var cmds []string
	for _, args := range [][]string{sadd, {"SMEMBERS", "st"}, {"SUNION", "st", "nosuch"}, {"HSET", "h", "f", "v", "g", "w"}, {"HGETALL", "h"}, {"SCARD", "st"}} {
		cmds = append(cmds, string(resp.AppendCommandString(nil, args...)))
	}
	code, errs, b := capturing(t, []string{"capture", "--server", "redis-8.6.3", "--twin", "none", "--max-commands", "12"}, cmds...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	for _, want := range []string{`value: {array_unordered: [{blob: "member-0"}, {blob: "member-1"}, `, `value: {array_unordered: [{blob: "f"}, {blob: "v"}, {blob: "g"}, {blob: "w"}]}`, `reply: ":20\r\n"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file lacks %s:\n%s", want, b)
		}
	}
	if n := strings.Count(string(b), "array_unordered"); n != 3 {
		t.Errorf("%d replies in any order, want 3 (SMEMBERS, SUNION, HGETALL):\n%s", n, b)
	}
	file := filepath.Join(t.TempDir(), "unordered.yaml")
	os.WriteFile(file, b, 0o644)
	if code, o, e := respcheck(t, "run", "--server", "redis-7.0.15", file); code != exitOK {
		t.Errorf("replay on redis-7.0.15: exit %d\n%s%s\n%s", code, o, e, b)
	}
}

// TestCaptureRestoresKeysBefore: keys the upstream held before the
// capture (a string with a TTL, a list, a set, a sorted set, a hash, a
// stream) are read just before the first command that names each, built
// again at the start of the file, and the replay on a fresh server of the
// build reads them as the application did.
func TestCaptureRestoresKeysBefore(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	seedKeys(t, srv.Addr(), [][]string{{"SET", "s", "hello", "PX", "100000"}, {"RPUSH", "l", "a", "b", "c"}, {"SADD", "st", "x", "y"},
		{"ZADD", "z", "1", "a", "2.5", "b"}, {"HSET", "h", "f", "v", "g", "w"}, {"XADD", "x", "1-1", "f", "v"}, {"XADD", "x", "2-5", "g", "w"}}...)
	var cmds []string
	for _, args := range [][]string{{"GET", "s"}, {"LRANGE", "l", "0", "-1"}, {"SMEMBERS", "st"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
		{"HGETALL", "h"}, {"XRANGE", "x", "-", "+"}, {"EXISTS", "nosuch"}, {"GET", "s"}} {
		cmds = append(cmds, string(resp.AppendCommandString(nil, args...)))
	}
	code, errs, b := capturing(t, []string{"capture", "--addr", srv.Addr(), "--max-commands", "16"}, cmds...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	for _, want := range []string{`send: ["SET", "s", "hello"]`, `send: ["PEXPIRE", "s", "`, `send: ["RPUSH", "l", "a", "b", "c"]`, `reply: ":3\r\n"`,
		`send: ["ZADD", "z", "1", "a", "2.5", "b"]`, `send: ["XADD", "x", "2-5", "g", "w"]`, "conn: setup"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file lacks %s:\n%s", want, b)
		}
	}
	if strings.Count(string(b), `send: ["SET", "s", "hello"]`) != 1 {
		t.Errorf("s is built again more than once:\n%s", b)
	}
	file := filepath.Join(t.TempDir(), "keys.yaml")
	os.WriteFile(file, b, 0o644)
	if code, o, e := respcheck(t, "run", "--server", "redis-8.6.3", file); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s\n%s", code, o, e, b)
	}
}

// TestCaptureKeysBeforeLeavesOutWhatTheAppMayNotRead: the proxy reads
// keys as respcheck's user; a key whose command the server refused the
// application's user (NOPERM) is not written into the file, and a random
// pick (HRANDFIELD) is not carried into later commands (the replay's own
// pick would make them differ).
func TestCaptureKeysBeforeLeavesOutWhatTheAppMayNotRead(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	seedKeys(t, srv.Addr(), [][]string{{"HSET", "secret:1", "hash", "canary-secret-value"}, {"HSET", "app:h", "f1", "a", "f2", "b"},
		{"ACL", "SETUSER", "app", "on", ">pw", "~app:*", "+@all"}}...)
	var cmds []string
	for _, args := range [][]string{{"AUTH", "app", "pw"}, {"HGET", "secret:1", "hash"}, {"HRANDFIELD", "app:h"}, {"HGET", "app:h", "{last}"}} {
		cmds = append(cmds, string(resp.AppendCommandString(nil, args...)))
	}
	cmds[3] = strings.Replace(cmds[3], "$6\r\n{last}", "{last}", 1)
	code, errs, b := capturing(t, []string{"capture", "--addr", srv.Addr(), "--max-commands", "8"}, cmds...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errs, b)
	}
	if strings.Contains(string(b), "canary-secret-value") || !strings.Contains(string(b), "refused NOPERM") {
		t.Errorf("a key the application may not read is in the file:\n%s", b)
	}
	if strings.Contains(string(b), "{cap:") || !strings.Contains(string(b), `send: ["HSET", "app:h", "f1", "a", "f2", "b"]`) {
		t.Errorf("a random pick carried, or app:h not built again:\n%s", b)
	}
}

// seedKeys sends each command to the server at addr directly (not
// through a capture), failing the test on an error reply.
func seedKeys(t *testing.T, addr string, cmds ...[]string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := resp.NewReader(c)
	for _, args := range cmds {
		c.Write(resp.AppendCommandString(nil, args...))
		if v, err := r.Read(); err != nil || v.Kind == resp.SimpleError {
			t.Fatalf("%q: %v %q", args, err, v.Raw)
		}
	}
}

// TestCaptureCtrlCLearnsNoise: a capture ended by Ctrl-C (how most end)
// learns the noise on the twin too, within the seconds before the
// process is ended, and writes the file: exit 130 (before, Ctrl-C wrote
// the file without learning, and a script's TIME failed every replay).
func TestCaptureCtrlCLearnsNoise(t *testing.T) {
	listen := "127.0.0.1:" + freePort(t)
	out := filepath.Join(t.TempDir(), "capture.yaml")
	cmd, _, stderr := startRespcheck(t, "capture", "--server", "redis-8.6.3", "--listen", listen, "-o", out)
	waitFor(t, "the proxy", func() bool { return strings.Contains(stderr.String(), "proxy on") })
	c, err := net.DialTimeout("tcp", listen, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("*3\r\n$4\r\nEVAL\r\n$30\r\nreturn redis.call('TIME')[2]+0\r\n$1\r\n0\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"))
	r := resp.NewReader(c)
	for range 2 {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	sent := time.Now()
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	if code := exitCode(t, cmd, sent); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "any: true # differed on a twin") || !strings.Contains(stderr.String(), "1 captured replies differed on a twin (a throwaway redis-8.6.3): expected as any reply: EVAL ×1") {
		t.Errorf("%v\n%s\n%s", err, stderr, b)
	}
}
