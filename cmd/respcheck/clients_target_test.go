package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// clientsGateCases has one case per gate kind that `run` honours: clients
// must skip and run exactly the same ones.
const clientsGateCases = `suite: gates
cases:
  - name: runs
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: absent command that exists
    requires: {absent: [PING]}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: absent command that does not exist
    requires: {absent: [NOSUCHCOMMANDX]}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: missing command
    requires: {commands: [NOSUCHCOMMANDX]}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: RESP2 only
    requires: {proto: 2}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: wrong family
    requires: {server: "valkey>=1"}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: failing probe
    requires: {probes: [[NOSUCHCOMMANDX]]}
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
`

// skipsOf reads a JSON report of run or clients and returns, per case name
// and protocol, whether it was skipped.
func skipsOf(t *testing.T, path string, clients bool) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct {
			Case    string `json:"case"`
			Name    string `json:"name"`
			Proto   int    `json:"proto"`
			Status  string `json:"status"`
			Verdict string `json:"verdict"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]bool{}
	for _, r := range rep.Results {
		name := r.Case
		if name == "" {
			name = r.Name
		}
		name = name[strings.LastIndex(name, "/")+1:]
		key := name + "/" + string(rune('0'+r.Proto))
		if clients {
			out[key] = r.Verdict == "skip"
		} else {
			out[key] = r.Status == "skip"
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no results:\n%s", path, b)
	}
	return out
}

// TestClientsGatesAsRun checks that clients skips exactly the cases run
// skips, for every kind of gate (requires.absent was once ignored there).
func TestClientsGatesAsRun(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "gates.yaml", clientsGateCases)
	dir := t.TempDir()
	runJSON, clJSON := filepath.Join(dir, "run.json"), filepath.Join(dir, "clients.json")
	if code, out, errs := respcheck(t, "run", "--addr", srv.Addr(), "--format", "json", "-o", runJSON, f); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := respcheck(t, "clients", "--addr", srv.Addr(), "--allow-destructive", "--clients", "go-redis",
		"--format", "json", "-o", clJSON, f); code != exitOK {
		t.Fatalf("clients: exit %d\n%s%s", code, out, errs)
	}
	for name, file := range map[string]string{"run": runJSON, "clients": clJSON} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Check(name, data); err != nil {
			t.Errorf("the %s report of a real run does not match its schema: %v", name, err)
		}
	}
	want, got := skipsOf(t, runJSON, false), skipsOf(t, clJSON, true)
	for k, skip := range want {
		if g, ok := got[k]; !ok || g != skip {
			t.Errorf("%s: run skipped=%v, clients skipped=%v (present %v)", k, skip, g, ok)
		}
	}
	if want["absent command that exists/2"] != true || want["absent command that does not exist/2"] != false {
		t.Errorf("run's absent gate: %v", want)
	}
}

var findingRE = regexp.MustCompile(`\d+ (mismatch|crash|hang|desync|error)\b`)

// TestClientsAuthAndTLS runs clients against the targets run accepts: an
// ACL user with a password, a password alone (REDISCLI_AUTH), a database,
// and a TLS port.
func TestClientsAuthAndTLS(t *testing.T) {
	ca, cert, key := writeCerts(t)
	tlsPort := freePort(t)
	srv := servers.ForTestWith(t, "redis-7.0.15", servers.Options{ExtraArgs: []string{
		"--requirepass", "s3cret-pw", "--user", "app", "on", ">app-pw", "~*", "&*", "+@all",
		"--tls-port", tlsPort, "--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", ca,
		"--tls-auth-clients", "no"}})
	f := writeFile(t, "ping.yaml", "suite: p\ncases:\n  - name: ping\n    steps:\n      - {send: [PING], reply: \"+PONG\\r\\n\"}\n      - {send: [SET, \"{key}\", v], reply: \"+OK\\r\\n\"}\n")
	for _, tc := range []struct {
		name, env string
		args      []string
	}{
		{"ACL user in the URL", "", []string{"-u", "redis://app:app-pw@" + srv.Addr() + "/3"}},
		{"password from REDISCLI_AUTH", "s3cret-pw", []string{"--addr", srv.Addr()}},
		{"TLS with the CA", "s3cret-pw", []string{"-u", "rediss://127.0.0.1:" + tlsPort, "--tls-ca", ca}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("REDISCLI_AUTH", tc.env)
			args := append([]string{"clients", "--allow-destructive", "--clients", "go-redis,rueidis,redigo", "--timeout", "3s"}, tc.args...)
			code, out, errs := respcheck(t, append(args, f)...)
			if code != exitOK || !strings.Contains(out, "5 results: ") || findingRE.MatchString(out) {
				t.Errorf("exit %d, want 0 with matches:\n%s%s", code, out, errs)
			}
			if strings.Contains(out+errs, "pw") {
				t.Errorf("the password shows in the output:\n%s%s", out, errs)
			}
		})
	}
	for _, db := range []int{0, 3} {
		tg := target.New(target.Config{Addr: srv.Addr(), Password: "s3cret-pw", DB: db}, target.Server{})
		if n, err := tg.DBSize(context.Background()); err != nil || n != 0 {
			t.Errorf("database %d holds %d keys after the runs (%v): clients must delete its cases' keys", db, n, err)
		}
	}
	t.Run("wrong password", func(t *testing.T) {
		t.Setenv("REDISCLI_AUTH", "wrong")
		code, out, errs := respcheck(t, "clients", "--allow-destructive", "--clients", "go-redis", "--addr", srv.Addr(), f)
		if code != exitServer || !strings.Contains(out+errs, "WRONGPASS") {
			t.Errorf("exit %d, want %d naming WRONGPASS:\n%s%s", code, exitServer, out, errs)
		}
	})
}

// TestClientsServerDies checks that a server that dies during a client's
// step is an error of the run (exit 3), not a verdict about the library.
func TestClientsServerDies(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	f := writeFile(t, "dies.yaml", `suite: dies
cases:
  - name: the server shuts down under the library
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
      - {send: [SHUTDOWN, NOSAVE], any: true}
      - {send: [PING], reply: "+PONG\r\n"}
`)
	dir := t.TempDir()
	out := filepath.Join(dir, "clients.json")
	code, stdout, stderr := respcheck(t, "clients", "--addr", srv.Addr(), "--allow-destructive", "--clients", "go-redis",
		"--proto", "2", "--timeout", "2s", "--format", "json", "-o", out, f)
	if code != exitServer || !strings.Contains(stdout+stderr, "stopped answering") {
		t.Fatalf("exit %d (want %d, naming the server):\n%s%s", code, exitServer, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"verdict": "crash"`) || strings.Contains(string(b), `"verdict": "desync"`) || !strings.Contains(string(b), `"verdict": "error"`) {
		t.Errorf("the library was blamed, or no error recorded:\n%s", b)
	}
}

// TestClientsNoProtocol: libraries that speak none of --proto are a usage
// error, not a run of zero results.
func TestClientsNoProtocol(t *testing.T) {
	f := writeFile(t, "p.yaml", "suite: p\ncases:\n  - name: ping\n    steps:\n      - {send: [PING], reply: \"+PONG\\r\\n\"}\n")
	code, out, errs := respcheck(t, "clients", "--server", "miniredis", "--clients", "redigo", "--proto", "3", f)
	if code != exitUsage || !strings.Contains(errs, "none of the chosen clients speaks RESP3: redigo speaks RESP2") {
		t.Errorf("exit %d, want %d:\n%s%s", code, exitUsage, out, errs)
	}
}

// TestResetKeepsTheRunsCredentials: the bundled RESET cases pass on a
// server with a password and a database other than 0 (RESET logs the
// connection out and selects database 0; the runner restores both).
func TestResetKeepsTheRunsCredentials(t *testing.T) {
	srv := servers.ForTestWith(t, "redis-8.6.3", servers.Options{ExtraArgs: []string{"--requirepass", "pw-reset-1"}})
	code, out, errs := respcheck(t, "run", "-u", "redis://:pw-reset-1@"+srv.Addr()+"/2", "--run", "RESET")
	if code != exitOK || !strings.Contains(out, " 0 failed") || strings.Contains(out, " 0 passed") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
}

// TestClientsChecksTheCases: clients checks the cases themselves as run
// does. A case whose expectation the server's reply does not meet fails the
// command (exit 1) and is named at its step, apart from the libraries'
// verdicts, which stay judged against the bytes (go-redis decodes +OK as
// expected: erased, not a finding); the JSON report carries the check as a
// run report and keeps its schema, the JUnit XML as a suite of its own. The
// same file with the right expectation exits 0.
func TestClientsChecksTheCases(t *testing.T) {
	const file = `suite: wrong
cases:
  - name: an expectation the server does not meet
    steps:
      - send: [SET, "{key}", v]
        reply: %q
      - send: [GET, "{key}"]
        reply: "$1\r\nv\r\n"
`
	wrong := writeFile(t, "wrong.yaml", strings.Replace(file, "%q", `"+NOPE\r\n"`, 1))
	dir := t.TempDir()
	out := filepath.Join(dir, "c.json")
	code, stdout, stderr := respcheck(t, "clients", "--server", "redis-8.6.3", "--clients", "go-redis", "-o", out, wrong)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d:\n%s%s", code, exitFindings, stdout, stderr)
	}
	for _, want := range []string{
		"the cases themselves: the server's replies do not meet them",
		"FAIL  wrong/an expectation the server does not meet [RESP2]",
		"FAIL  wrong/an expectation the server does not meet [RESP3]",
		"wrong.yaml:5:9 > \"SET\"", "wrong.yaml:6:16: reply differs at byte 1",
		`want: "+NOPE\r\n"`,
		`got: "+OK\r\n"`,
		"2 results: 2 erased",
		"the cases themselves, as run checks them: 0 passed, 2 failed, 0 skipped",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Check("clients", b); err != nil {
		t.Errorf("the JSON report breaks its schema: %v", err)
	}
	var rep struct {
		Worst string
		Cases *struct {
			Summary struct{ Failed int }
			Results []struct{ Status string }
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Worst != "erased" || rep.Cases == nil || rep.Cases.Summary.Failed != 2 || len(rep.Cases.Results) != 2 || rep.Cases.Results[0].Status != "fail" {
		t.Errorf("worst %q, cases %+v: want the libraries erased and both protocols of the case failed", rep.Worst, rep.Cases)
	}
	code, stdout, _ = respcheck(t, "clients", "--server", "redis-8.6.3", "--clients", "go-redis", "--format", "junit", wrong)
	if code != exitFindings || !strings.Contains(stdout, `<testsuite name="the cases, as run checks them" tests="2" failures="2" errors="0" skipped="0">`) {
		t.Errorf("junit: exit %d:\n%s", code, stdout)
	}

	right := writeFile(t, "right.yaml", strings.Replace(file, "%q", `"+OK\r\n"`, 1))
	code, stdout, stderr = respcheck(t, "clients", "--server", "redis-8.6.3", "--clients", "go-redis", right)
	if code != exitOK || !strings.Contains(stdout, "the cases themselves, as run checks them: 2 passed, 0 failed, 0 skipped") || strings.Contains(stdout, "do not meet") {
		t.Errorf("the right expectation: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestClientsCheckOnItsOwnServer: on a throwaway target the cases' own
// check runs on a throwaway server of its own, so what the libraries leave
// on theirs does not reach it: a case that shuts the server down (the
// libraries' report is kept, the check's server is started again as run's
// is), and a pause a library could not lift (its raw UNPAUSE step is not
// sent through libraries), which made the check's next cases time out when
// it ran on the libraries' server. The check runs in the protocols the libraries
// speak: redigo's RESP2 only, so a wrong RESP3 expectation is not a
// finding of this run.
func TestClientsCheckOnItsOwnServer(t *testing.T) {
	f := writeFile(t, "own.yaml", `suite: own
cases:
  - name: ping
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: shutdown
    steps:
      - {send: [SHUTDOWN, NOSAVE], expect: closed}
`)
	pause := writeFile(t, "pause.yaml", `suite: pause
cases:
  - name: writes paused, then resumed by a raw command
    exclusive: true
    steps:
      - {conn: b, send: [CLIENT, PAUSE, "8000", WRITE], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$-1\r\n"}
      - {conn: b, raw: "CLIENT UNPAUSE\r\n", reply: "+OK\r\n"}
  - name: a write after it
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
  - name: a wrong expectation in RESP3 only
    steps:
      - {send: [HGETALL, "{key:h}"], reply: {resp2: "*0\r\n", resp3: "%1\r\n+a\r\n+b\r\n"}}
`)
	code, stdout, stderr := respcheck(t, "clients", "--server", "redis-8.6.3", "--clients", "go-redis", "--proto", "3", "--jobs", "1", f)
	if code != exitOK || !strings.Contains(stdout, "2 results: 1 match, 1 erased") || !strings.Contains(stdout, "the cases themselves, as run checks them: 2 passed, 0 failed, 0 skipped") {
		t.Errorf("a case that shuts the server down: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = respcheck(t, "clients", "--server", "redis-8.6.3", "--clients", "redigo", "--timeout", "2s", pause)
	// (redigo's SET after the pause hangs: the pause is still on there.)
	if code == exitServer || strings.Contains(stdout, "do not meet") || !strings.Contains(stdout, "the cases themselves, as run checks them: 3 passed, 0 failed, 0 skipped") {
		t.Errorf("a pause left by the libraries, redigo in RESP2: exit %d:\n%s%s", code, stdout, stderr)
	}
}
