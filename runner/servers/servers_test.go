//go:build unix

package servers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What the pinned builds report (measured on Debian 12 amd64, 2026-11-30):
//
//	build         INFO server                                                      HELLO 3
//	redis-7.0.15  redis_version:7.0.15 (no server_name, no valkey_version)          server=redis  version=7.0.15
//	valkey-8.0.1  redis_version:7.2.4 server_name:valkey valkey_version:8.0.1       server=valkey version=8.0.1
//	redis-8.0.6   redis_version:8.0.6 (no server_name, no valkey_version)           server=redis  version=8.0.6
//	valkey-8.1.1  redis_version:7.2.4 server_name:valkey valkey_version:8.1.1       server=valkey version=8.1.1
//	redis-8.6.3   redis_version:8.6.3 (no server_name, no valkey_version)           server=redis  version=8.6.3
//	valkey-9.1.2  redis_version:7.2.4 server_name:valkey valkey_version:9.1.2       server=valkey version=9.1.2
//
// Valkey keeps redis_version frozen at 7.2.4 (the Redis release it forked
// from) for clients that gate on it; its own version is valkey_version and
// HELLO's version. All six accept --enable-debug-command and DEBUG works.

// testNames returns the pinned builds followed by any other installed ones.
func testNames(t *testing.T) []string {
	t.Helper()
	names := slices.Clone(Pinned)
	builds, err := Installed()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range builds {
		if !slices.Contains(names, b.Name) {
			names = append(names, b.Name)
		}
	}
	return names
}

// anyBuild returns the first installed build, or fails (CI) / skips.
func anyBuild(t *testing.T) Build {
	t.Helper()
	builds, err := Installed()
	if err != nil {
		t.Fatal(err)
	}
	if len(builds) == 0 {
		return requireBuild(t, Pinned[0])
	}
	return builds[0]
}

// startServer starts a throwaway server of b, stopped when the test ends.
func startServer(t *testing.T, b Build) *Server {
	t.Helper()
	s, err := Start(t.Context(), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

func TestPinnedBuilds(t *testing.T) {
	for _, name := range testNames(t) {
		t.Run(name, func(t *testing.T) {
			b := requireBuild(t, name)
			if got := b.Family + "-" + b.Version; got != name {
				t.Fatalf("Build %+v: family-version %q, want %q", b, got, name)
			}
			s := startServer(t, b)
			if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
				t.Errorf("Addr() = %q, want 127.0.0.1:PORT", s.Addr())
			}
			if s.Build() != b {
				t.Errorf("Build() = %+v, want %+v", s.Build(), b)
			}
			if err := ping(s.Addr(), 2*time.Second); err != nil {
				t.Fatalf("PING: %v\n%s", err, s.Log())
			}

			info := infoFields(t, s.Addr())
			hello := do(t, s.Addr(), "HELLO", "3")
			hm, ok := hello.(map[string]any)
			if !ok {
				t.Fatalf("HELLO 3 = %#v, want a map", hello)
			}
			t.Logf("INFO server: redis_version=%q server_name=%q valkey_version=%q; HELLO server=%v version=%v",
				info["redis_version"], info["server_name"], info["valkey_version"], hm["server"], hm["version"])
			switch b.Family {
			case "redis":
				if info["redis_version"] != b.Version {
					t.Errorf("redis_version = %q, want %q", info["redis_version"], b.Version)
				}
				if v, ok := info["valkey_version"]; ok {
					t.Errorf("Redis reports valkey_version %q", v)
				}
			case "valkey":
				if info["valkey_version"] != b.Version {
					t.Errorf("valkey_version = %q, want %q", info["valkey_version"], b.Version)
				}
				if info["server_name"] != "valkey" {
					t.Errorf("server_name = %q, want valkey", info["server_name"])
				}
				if info["redis_version"] != "7.2.4" {
					t.Errorf("redis_version = %q, want Valkey's frozen 7.2.4", info["redis_version"])
				}
			}
			if hm["server"] != b.Family || hm["version"] != b.Version {
				t.Errorf("HELLO 3 server=%v version=%v, want %s %s", hm["server"], hm["version"], b.Family, b.Version)
			}
			if got := do(t, s.Addr(), "DEBUG", "SLEEP", "0"); got != "OK" {
				t.Errorf("DEBUG SLEEP 0 = %#v, want OK (--enable-debug-command)", got)
			}

			pid, addr, dir := s.Pid(), s.Addr(), s.dir
			if err := s.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			checkGone(t, pid, addr, dir)
			if err := s.Stop(); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
}

func TestKill(t *testing.T) {
	b := anyBuild(t)
	s, err := Start(t.Context(), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, addr, dir := s.Pid(), s.Addr(), s.dir
	if err := s.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := ping(addr, 500*time.Millisecond); err == nil {
		t.Fatal("PING answered after Kill")
	}
	if err := s.Kill(); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	if err := s.Signal(syscall.SIGCONT); err == nil {
		t.Error("Signal after Kill: no error")
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop after Kill: %v", err)
	}
	checkGone(t, pid, addr, dir)
}

func TestTwoServers(t *testing.T) {
	b := anyBuild(t)
	s1 := startServer(t, b)
	s2 := startServer(t, b)
	if s1.Addr() == s2.Addr() || s1.Pid() == s2.Pid() || s1.dir == s2.dir {
		t.Fatalf("two servers share an address, pid or dir: %s/%d/%s and %s/%d/%s",
			s1.Addr(), s1.Pid(), s1.dir, s2.Addr(), s2.Pid(), s2.dir)
	}
	for _, s := range []*Server{s1, s2} {
		if err := ping(s.Addr(), 2*time.Second); err != nil {
			t.Errorf("PING %s: %v", s.Addr(), err)
		}
	}
}

func TestSignalStopCont(t *testing.T) {
	b := anyBuild(t)
	s := startServer(t, b)
	if err := s.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := ping(s.Addr(), 300*time.Millisecond); err == nil {
		t.Fatal("a SIGSTOPped server answered PING")
	}
	if err := s.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := ping(s.Addr(), 2*time.Second); err != nil {
		t.Fatalf("PING after SIGCONT: %v", err)
	}
	// Stop must not wait out the grace period on a stopped server.
	if err := s.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= stopGrace {
		t.Errorf("Stop of a SIGSTOPped server took %v", d)
	}
}

func TestStartFailureShowsLog(t *testing.T) {
	b := anyBuild(t)
	_, err := Start(t.Context(), b, Options{ExtraArgs: []string{"--no-such-directive", "1"}})
	if err == nil {
		t.Fatal("Start with a bad directive succeeded")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "servers: start "+b.Name+": ") || !strings.Contains(msg, "no-such-directive") {
		t.Errorf("error lacks context or the log tail:\n%s", msg)
	}
}

func TestStartTimeout(t *testing.T) {
	// A "server" that never answers PING.
	bin := filepath.Join(t.TempDir(), "silent-server")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n[ \"$1\" = --version ] && { echo silent 1.0; exit 0; }\necho silent\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := Identify(bin); err == nil {
		t.Fatalf("Identify(%s) = %+v, want an error", bin, b)
	}
	b := Build{Name: "silent-0", Family: "silent", Version: "0", Bin: bin}
	start := time.Now()
	_, err := Start(t.Context(), b, Options{StartTimeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("Start of a silent server succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Start took %v with a 300ms timeout", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "no PONG") || !strings.Contains(msg, "silent") {
		t.Errorf("error lacks the reason or the log tail:\n%s", msg)
	}
}

func TestOutputWriters(t *testing.T) {
	b := anyBuild(t)
	var w syncBuffer
	s, err := Start(t.Context(), b, Options{Stdout: &w, Stderr: &w})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"Options.Stdout": w.String(), "Log()": s.Log()} {
		if !strings.Contains(out, "Ready to accept connections") {
			t.Errorf("%s lacks the ready line:\n%s", name, out)
		}
	}
}

func TestForTest(t *testing.T) {
	s := ForTest(t, Pinned[0])
	if err := ping(s.Addr(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestFindMissing(t *testing.T) {
	// Not a pinned build: the install script cannot help; the error names
	// the pinned builds and --server-bin.
	_, err := Find("redis-0.0.0")
	if err == nil || !strings.Contains(err.Error(), "not a build respcheck installs") || !strings.Contains(err.Error(), "--server-bin") {
		t.Fatalf("Find(unpinned) error = %v", err)
	}
	// A pinned build that is missing: the error gives the install command.
	t.Setenv("RESPCHECK_CACHE", t.TempDir())
	_, err = Find(Pinned[0])
	if err == nil || !strings.Contains(err.Error(), "scripts/install-servers.sh --only "+Pinned[0]) {
		t.Fatalf("Find(missing) error = %v, want the install command", err)
	}
}

func TestIdentifyInstalled(t *testing.T) {
	builds, err := Installed()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range builds {
		got, err := Identify(b.Bin)
		if err != nil {
			t.Errorf("Identify(%s): %v", b.Bin, err)
		} else if got != b {
			t.Errorf("Identify(%s) = %+v, want %+v", b.Bin, got, b)
		}
		if i > 0 {
			p := builds[i-1]
			if p.Family > b.Family || (p.Family == b.Family && compareVersions(p.Version, b.Version) >= 0) {
				t.Errorf("Installed not sorted: %s before %s", p.Name, b.Name)
			}
		}
	}
}

func TestLookPath(t *testing.T) {
	b, err := LookPath()
	if err != nil {
		if !strings.Contains(err.Error(), "apt-get install redis-server") {
			t.Errorf("LookPath error lacks the install hint: %v", err)
		}
		t.Skip(err)
	}
	if b.Family != "redis" && b.Family != "valkey" || b.Version == "" {
		t.Errorf("LookPath() = %+v", b)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"7.0.15", "8.6.3", -1},
		{"8.0.1", "9.1.2", -1},
		{"7.0.15", "7.0.9", 1},
		{"9.1.2", "9.1.2", 0},
		{"7.2", "7.2.4", -1},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for v, want := range map[string]bool{"6.2.14": false, "7.0.15": true, "8.6.3": true} {
		if got := acceptsDebugFlag(Build{Family: "redis", Version: v}); got != want {
			t.Errorf("acceptsDebugFlag(redis %s) = %v", v, got)
		}
	}
}

// checkGone asserts that a stopped server's process, port and dir are gone.
func checkGone(t *testing.T, pid int, addr, dir string) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d still exists after stop (kill 0: %v)", pid, err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Errorf("port %s not free after stop: %v", addr, err)
	} else {
		l.Close()
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still there after stop (%v)", dir, err)
	}
}

// infoFields returns the key:value lines of INFO server.
func infoFields(t *testing.T, addr string) map[string]string {
	t.Helper()
	v, ok := do(t, addr, "INFO", "server").(string)
	if !ok {
		t.Fatalf("INFO server: not a bulk string")
	}
	m := map[string]string{}
	for _, line := range strings.Split(v, "\r\n") {
		if k, val, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			m[k] = val
		}
	}
	return m
}

// do sends one command on a fresh connection and decodes the reply.
func do(t *testing.T, addr string, args ...string) any {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	v, err := readReply(bufio.NewReader(c))
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// readReply decodes one RESP2/RESP3 reply: strings, numbers and verbatim
// strings as string, errors as error, aggregates as []any / map[string]any.
func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad line %q", line)
	}
	typ, body := line[0], line[1:len(line)-2]
	switch typ {
	case '+', ':', ',', '(', '#':
		return body, nil
	case '-', '!':
		return errors.New(body), nil
	case '_':
		return nil, nil
	case '$', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*', '~', '>', '%':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		if typ == '%' {
			m := map[string]any{}
			for range n {
				k, err := readReply(r)
				if err != nil {
					return nil, err
				}
				v, err := readReply(r)
				if err != nil {
					return nil, err
				}
				m[fmt.Sprint(k)] = v
			}
			return m, nil
		}
		a := make([]any, 0, n)
		for range n {
			v, err := readReply(r)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestFindByPrefix: an unambiguous prefix of an installed build finds it;
// an ambiguous or unknown name is an *UnknownBuildError naming the choices.
func TestFindByPrefix(t *testing.T) {
	requireBuild(t, "valkey-9.1.2")
	requireBuild(t, "valkey-8.0.1")
	if b, err := Find("valkey-9.1"); err != nil || b.Name != "valkey-9.1.2" {
		t.Errorf("Find(valkey-9.1) = %v, %v", b.Name, err)
	}
	var ub *UnknownBuildError
	if _, err := Find("valkey"); !errors.As(err, &ub) || !strings.Contains(err.Error(), "valkey-8.0.1, ") || !strings.Contains(err.Error(), "valkey-9.1.2") {
		t.Errorf("Find(valkey) = %v, want an ambiguity naming both", err)
	}
	if _, err := Find("keydb-6"); !errors.As(err, &ub) || len(ub.Installed) == 0 {
		t.Errorf("Find(keydb-6) = %v, want an unknown build listing the installed ones", err)
	}
}

// TestPinnedIsTheInstallScriptsList: Pinned and scripts/install-servers.sh's
// ALL_BUILDS (the script's pins block run by bash itself, reading
// pinned.tsv) name the same builds in the same order, and its binary-package
// pins are the builds FromBinaryPackage names.
func TestPinnedIsTheInstallScriptsList(t *testing.T) {
	script, err := os.ReadFile("../../scripts/install-servers.sh")
	if err != nil {
		t.Fatal(err)
	}
	_, pins, ok := strings.Cut(string(script), "# ---- pins")
	_, pins, _ = strings.Cut(pins, "\n") // the rest of the heading
	pins, _, ok2 := strings.Cut(pins, "\n# Packages needed")
	if !ok || !ok2 {
		t.Fatal("scripts/install-servers.sh: no '# ---- pins' block ending before '# Packages needed'")
	}
	// The block finds pinned.tsv beside the script it is in.
	pins = strings.ReplaceAll(pins, `$(dirname "${BASH_SOURCE[0]}")`, "../../scripts")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -eu\n"+pins+"\necho \"$ALL_BUILDS\"; echo \"redis-$REDIS_APT_VERSION,valkey-$VALKEY_BPO_VERSION\"")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	all, binary, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if want := strings.Join(Pinned, ","); all != want {
		t.Errorf("install-servers.sh ALL_BUILDS = %s, Pinned = %s", all, want)
	}
	for _, b := range strings.Split(binary, ",") {
		if !FromBinaryPackage(b) {
			t.Errorf("install-servers.sh installs %s from binary packages, FromBinaryPackage says not", b)
		}
	}
}

// TestAnotherServerOnThePort: a server whose port another process's server
// answers on (it took the port between pickPort and the bind) is not
// taken as started: answersAsItself names the other's process_id, and a
// server's own process passes.
func TestAnotherServerOnThePort(t *testing.T) {
	other := ForTest(t, "redis-8.6.3")
	if err := other.answersAsItself(2 * time.Second); err != nil {
		t.Fatalf("the server itself: %v", err)
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	mine := &Server{addr: other.Addr(), cmd: sleeper}
	err := mine.answersAsItself(2 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "another server (process_id "+strconv.Itoa(other.cmd.Process.Pid)+")") {
		t.Fatalf("a server that is not this process's: %v", err)
	}
}

// TestStartRetriesATakenTLSPort: a TLS port taken between its pick and the
// server's bind (by another test binary, or an outgoing connection's
// ephemeral port) is picked again at the next attempt, as the main port
// is; before, a cluster node's TLS port was picked once, and its start
// failed on every attempt.
func TestStartRetriesATakenTLSPort(t *testing.T) {
	b := ForTest(t, "redis-8.6.3").Build()
	if !b.TLS() {
		t.Skip("redis-8.6.3 built without TLS")
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func() (int, error) {
		calls++
		if calls == 2 { // the first attempt's TLS port
			return taken, nil
		}
		return pickFreePort()
	}
	defer func() { pickPort = pickFreePort }()
	certs := TestCerts(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, b, Options{TLSPort: true, ExtraArgs: []string{
		"--tls-cert-file", certs.Cert, "--tls-key-file", certs.Key, "--tls-ca-cert-file", certs.CA, "--tls-auth-clients", "no"}})
	if err != nil {
		t.Fatalf("start with the first TLS port taken: %v", err)
	}
	defer s.Stop()
	if p := s.TLSPort(); p == 0 || p == taken {
		t.Errorf("TLS port %d (the taken one was %d)", p, taken)
	}
	if calls < 4 {
		t.Errorf("%d ports picked: the start was not retried", calls)
	}
}
