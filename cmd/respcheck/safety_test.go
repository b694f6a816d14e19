package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestMain lets the test binary act as respcheck in a subprocess (for
// signals): RESPCHECK_TEST_MAIN=1 runs mainRun on the arguments.
func TestMain(m *testing.M) {
	if os.Getenv(clients.GoAdapterEnv) == "1" {
		clients.ServeGoAdapter(os.Stdin, os.Stdout)
		return
	}
	if os.Getenv("RESPCHECK_TEST_MAIN") == "1" {
		realProcess = true
		os.Exit(mainRun(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	closeMatrixDrivers()
	os.Exit(code)
}

func TestCanaryPasswordAppearsNowhere(t *testing.T) {
	const canary = "canary-pw-7f3a9c"
	srv := servers.ForTestWith(t, "redis-7.0.15", servers.Options{ExtraArgs: []string{"--requirepass", canary}})
	f := writeFile(t, "auth.yaml", `suite: auth
cases:
  - name: AUTH and HELLO AUTH inside a case
    steps:
      - send: [AUTH, "`+canary+`"]
        reply: "+OK\r\n"
      - send: [AUTH, default, "`+canary+`"]
        reply: "+OK\r\n"
      - send: [HELLO, "3", AUTH, default, "`+canary+`"]
        any: true
      - raw: "AUTH `+canary+`\r\n"
        reply: "+OK\r\n"
      - send: [CONFIG, GET, requirepass]
        any: true
      - send: [AUTH, wrong]
        error_code: WRONGPASS
      - send: [PING]
        reply: "+PING\r\n"
`)
	t.Setenv("REDISCLI_AUTH", canary)
	dir := t.TempDir()
	var all bytes.Buffer
	for _, format := range []string{"human", "json", "junit", "tap"} {
		out := filepath.Join(dir, "report."+format)
		// --allow-destructive: the guard refuses CONFIG GET requirepass on a
		// shared server (it reads a secret); here its redaction is the point.
		code, stdout, errs := respcheck(t, "run", "--addr", srv.Addr(), "--allow-destructive", "-v", "--format", format, "-o", out, f)
		if code != exitFindings {
			t.Fatalf("%s: exit %d\n%s%s", format, code, stdout, errs)
		}
		data, _ := os.ReadFile(out)
		all.WriteString(stdout + errs)
		all.Write(data)
	}
	// Goldens recorded through the password-protected server.
	gdir := filepath.Join(dir, "golden")
	code, stdout, errs := respcheck(t, "record", "--addr", srv.Addr(), "--allow-destructive", "--out", gdir, "--passes", "1", f)
	all.WriteString(stdout + errs)
	goldens, _ := filepath.Glob(filepath.Join(gdir, "*"))
	if len(goldens) == 0 {
		t.Fatalf("record wrote no goldens (exit %d): %s", code, errs)
	}
	for _, g := range goldens {
		data, _ := os.ReadFile(g)
		all.Write(data)
	}
	// The bundled suite through the password-protected server, too.
	code, stdout, errs = respcheck(t, "run", "-u", "redis://:"+canary+"@"+srv.Addr(), "-v", "--format", "json", "--run", "strings/")
	if code != exitOK {
		t.Fatalf("bundled strings suite with a password: exit %d\n%s", code, errs)
	}
	all.WriteString(stdout + errs)
	// A bad URL must not echo the password either.
	for _, bad := range []string{"redis://user:" + canary + "@", "redis://:" + canary + "@127.0.0.1:abc", "redis://:" + canary + "@[::1"} {
		_, stdout, errs = respcheck(t, "run", "-u", bad)
		all.WriteString(stdout + errs)
	}
	if strings.Contains(all.String(), canary) {
		i := strings.Index(all.String(), canary)
		t.Fatalf("the password appears in the output: …%s…", all.String()[max(0, i-200):i+len(canary)])
	}
	if !strings.Contains(all.String(), `"AUTH" "****************"`) {
		t.Errorf("the redacted AUTH step is not shown")
	}
}

// TestInterruptCleansUp sends SIGINT to a run against a shared server while
// a case blocks: the run stops, deletes the keys it created and says so.
func TestInterruptCleansUp(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "block.yaml", `suite: block
cases:
  - name: writes then blocks
    steps:
      - send: [SET, "{key:a}", v]
      - send: [RPUSH, "{key:b}", x]
      - send: [BLPOP, "{key:c}", "30"]
        timeout: 60s
`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--addr", srv.Addr(), "--proto", "2", f)
	cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := dialRawTCP(t, srv.Addr())
	deadline := time.Now().Add(10 * time.Second)
	for c.dbsize(t) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	t.Logf("stopped %v after SIGINT:\n%s", time.Since(start), out.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit %v, want %d", err, exitInterrupted)
	}
	if n := c.dbsize(t); n != 0 {
		t.Errorf("%d keys left after the interrupted run", n)
	}
	if !strings.Contains(out.String(), "cleanup: removed 2 keys") {
		t.Errorf("output does not report the cleanup")
	}
	// The run's ACL user was there, and is deleted although interrupted.
	if !strings.Contains(out.String(), "protection: the guard, and ACL user respcheck-run-") {
		t.Errorf("output does not name the run's ACL user")
	}
	admin, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if v, err := admin.Do("ACL", "USERS"); err != nil || len(v.Elems) != 1 || string(v.Elems[0].Str) != "default" {
		t.Errorf("ACL USERS after the interrupted run: %q %v, want default alone", v.Raw, err)
	}
}

// tcpClient is a line-level client for fixtures.
type tcpClient struct{ nc net.Conn }

func dialRawTCP(t *testing.T, addr string) *tcpClient {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &tcpClient{nc}
}

func (c *tcpClient) dbsize(t *testing.T) int {
	c.nc.Write([]byte("DBSIZE\r\n"))
	buf := make([]byte, 64)
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.nc.Read(buf)
	if err != nil || n < 4 || buf[0] != ':' {
		t.Fatalf("DBSIZE: %q %v", buf[:n], err)
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(buf[1:n])))
	return v
}

// blocked is the server's blocked_clients (INFO clients), or -1 when it
// does not answer.
func (c *tcpClient) blocked(t *testing.T) int {
	c.nc.Write([]byte("INFO clients\r\n"))
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := c.nc.Read(buf)
	if err != nil {
		return -1
	}
	_, rest, ok := strings.Cut(string(buf[:n]), "blocked_clients:")
	if !ok {
		return -1
	}
	v, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\r\n", 2)[0]))
	return v
}

// writeCerts makes a CA and a server certificate for 127.0.0.1 (see
// servers.TestCerts) and returns the paths of ca.pem, server.pem and
// server.key.
func writeCerts(t *testing.T) (ca, cert, key string) {
	f := servers.TestCerts(t)
	return f.CA, f.Cert, f.Key
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// deadAddr is an address on 127.0.0.1 that refuses connections for the
// test's lifetime: a socket bound to it and never listening (a connect
// gets a reset), which also keeps every other process from binding the
// port. A port freePort closed does not stay dead: TestClusterSeeds once
// met another test's server there (CI, 2026-12-06).
func deadAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
}

// TestTLS runs against Debian's redis-server 7.0.15 (built with TLS) on a
// TLS port with a certificate made here.
func TestTLS(t *testing.T) {
	ca, cert, key := writeCerts(t)
	tlsPort := freePort(t)
	srv := servers.ForTestWith(t, "redis-7.0.15", servers.Options{ExtraArgs: []string{
		"--tls-port", tlsPort, "--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", ca,
		"--tls-auth-clients", "no"}})
	tlsAddr := "127.0.0.1:" + tlsPort
	f := writeFile(t, "ping.yaml", "suite: p\ncases:\n  - name: ping\n    steps:\n      - {send: [PING], reply: \"+PONG\\r\\n\"}\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"rediss with the CA", []string{"-u", "rediss://" + tlsAddr, "--tls-ca", ca}, exitOK, "2 passed"},
		{"--addr --tls with a server name", []string{"--addr", tlsAddr, "--tls-ca", ca, "--tls-server-name", "redis.test"}, exitOK, "2 passed"},
		{"insecure", []string{"-u", "rediss://" + tlsAddr, "--insecure"}, exitOK, "2 passed"},
		{"unknown CA", []string{"-u", "rediss://" + tlsAddr}, exitServer, "certificate signed by unknown authority"},
		{"plaintext to the TLS port", []string{"--addr", tlsAddr}, exitServer, "a TLS port?"},
		{"TLS to the plaintext port", []string{"-u", "rediss://" + srv.Addr(), "--tls-ca", ca}, exitServer, "TLS handshake"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, out, errs := respcheck(t, append(append([]string{"run", "--timeout", "2s"}, tc.args...), f)...)
			if code != tc.code || !strings.Contains(out+errs, tc.msg) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.code, tc.msg, out, errs)
			}
			t.Logf("%v", time.Since(start))
		})
	}
}

// faultProxy forwards to upstream and rewrites server bytes with replace.
func faultProxy(t *testing.T, upstream string, old, new []byte) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(u, c); u.Close() }()
			go func() {
				buf := make([]byte, 64<<10)
				for {
					n, err := u.Read(buf)
					if n > 0 {
						c.Write(bytes.ReplaceAll(buf[:n], old, new))
					}
					if err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

func TestMalformedReplyIsExit3(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	addr := faultProxy(t, srv.Addr(), []byte("$10\r\ncorrupt-me\r\n"), []byte("$10\r\ncorrupt-me!!"))
	f := writeFile(t, "m.yaml", `suite: m
cases:
  - name: before
    steps: [{send: [PING], reply: "+PONG\r\n"}]
  - name: corrupt
    steps: [{send: [ECHO, corrupt-me]}]
`)
	code, out, errs := respcheck(t, "run", "--addr", addr, "--proto", "2", "--jobs", "1", "-v", f)
	if code != exitServer {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "pass  m/before [RESP2]") || !strings.Contains(errs, "malformed RESP") || !strings.Contains(out+errs, "offset 0") {
		t.Errorf("output:\n%s%s", out, errs)
	}
}

// TestACLUser authenticates as an ACL user: HELLO 3 AUTH in RESP3, AUTH
// user pass in RESP2 (--no-acl-user: else ACL WHOAMI names the run's own
// user, created with these credentials); a wrong password is a clear exit
// 3.
func TestACLUser(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	c := dialRawTCP(t, srv.Addr())
	c.nc.Write([]byte("ACL SETUSER app on >app-pw ~* &* +@all\r\n"))
	buf := make([]byte, 64)
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.nc.Read(buf); err != nil || string(buf[:n]) != "+OK\r\n" {
		t.Fatalf("ACL SETUSER: %q %v", buf[:n], err)
	}
	f := writeFile(t, "who.yaml", "suite: w\ncases:\n  - name: whoami\n    steps:\n      - {send: [ACL, WHOAMI], reply: \"$3\\r\\napp\\r\\n\"}\n")
	t.Setenv("REDISCLI_AUTH", "app-pw")
	if code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--user", "app", "--no-acl-user", f); code != exitOK {
		t.Errorf("--user app: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := respcheck(t, "run", "-u", "redis://app:@"+srv.Addr(), "--no-acl-user", f); code != exitOK {
		t.Errorf("redis://app:@ with REDISCLI_AUTH: exit %d\n%s%s", code, out, errs)
	}
	pw := writeFile(t, "pw", "wrong-pw\n")
	code, _, errs := respcheck(t, "run", "--addr", srv.Addr(), "--user", "app", "--password-file", pw, f)
	if code != exitServer || !strings.Contains(errs, "WRONGPASS") || strings.Contains(errs, "wrong-pw") {
		t.Errorf("wrong password: exit %d, stderr %s", code, errs)
	}
}

// TestClientsCtrlCWhileAdaptersStart sends SIGINT to the process group of
// a clients run (as a terminal's Ctrl-C does) once its first adapter
// process is up: exit 130, "interrupted", and no adapter left behind. The
// adapters have process groups of their own, so the signal reaches
// respcheck only (before, it was ignored until every adapter had
// started, ~10 s, and the Node and Python adapters died of it: their
// configurations silently dropped out of the results).
func TestClientsCtrlCWhileAdaptersStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "clients", "--server", "redis-8.6.3", "../../testdata/clients/nil-kinds.yaml")
	cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Every child seen, from the first one on for 300 ms: the first may
	// be short-lived (node adapter.js --list), and the adapters' hello
	// processes end once they answered.
	seen := map[int]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for len(seen) == 0 && time.Now().Before(deadline) {
		for _, c := range children(pid) {
			seen[c] = true
		}
		time.Sleep(10 * time.Millisecond)
	}
	for until := time.Now().Add(300 * time.Millisecond); time.Now().Before(until); time.Sleep(10 * time.Millisecond) {
		for _, c := range children(pid) {
			seen[c] = true
		}
	}
	started := slices.Collect(maps.Keys(seen))
	syscall.Kill(-pid, syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("exit %v, want %d\n%s", err, exitInterrupted, out.String())
	}
	if len(started) == 0 {
		t.Fatal("no adapter process started")
	}
	// An adapter ends when its stdin closes: give them a moment.
	for _, c := range started {
		for wait := time.Now().Add(10 * time.Second); alive(c) && time.Now().Before(wait); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(c) {
			t.Errorf("adapter process %d left running", c)
		}
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// children returns the pids of the processes whose parent is pid (the
// children of each of its threads: a Go program forks from any).
func children(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, name := range files {
		b, _ := os.ReadFile(name)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
