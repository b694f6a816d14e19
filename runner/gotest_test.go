package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestGoAPI is the example to copy: the bundled strings cases against a
// throwaway Redis 8.6.3, each case and protocol a subtest of its own.
func TestGoAPI(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	runner.Test(t, srv.Addr(), runner.Options{}, "../cases/suite/strings.yaml")
}

const goAPICases = `suite: go api
cases:
  - name: PING (answers) PONG?
    steps:
      - {send: [PING], reply: "+PONG\r\n"}
  - name: wrong expectation
    steps:
      - send: [ECHO, hello]
        reply: "$3\r\nbye\r\n"
`

// TestGoAPIHelper is TestGoAPISubtests's child: it runs only when the
// parent runs this test binary with RESPCHECK_GOAPI_ADDR set.
func TestGoAPIHelper(t *testing.T) {
	addr := os.Getenv("RESPCHECK_GOAPI_ADDR")
	if addr == "" {
		t.Skip("run by TestGoAPISubtests")
	}
	runner.Test(t, addr, runner.Options{}, os.Getenv("RESPCHECK_GOAPI_FILE"))
}

// TestGoAPISubtests runs runner.Test in a child go test and reads its
// output: names are file/case/RESPn with pattern characters replaced, -run
// selects one case in one protocol (the others never run), and a failure
// is reported at the case file's line with the command sent.
func TestGoAPISubtests(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	file := filepath.Join(t.TempDir(), "goapi.yaml")
	if err := os.WriteFile(file, []byte(goAPICases), 0o644); err != nil {
		t.Fatal(err)
	}
	child := func(run string) string {
		cmd := exec.Command(os.Args[0], "-test.run", run, "-test.v")
		cmd.Env = append(os.Environ(), "RESPCHECK_GOAPI_ADDR="+srv.Addr(), "RESPCHECK_GOAPI_FILE="+file)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	all := child("^TestGoAPIHelper$")
	for _, want := range []string{
		"--- PASS: TestGoAPIHelper/goapi/PING__answers__PONG_/RESP2",
		"--- PASS: TestGoAPIHelper/goapi/PING__answers__PONG_/RESP3",
		"--- FAIL: TestGoAPIHelper/goapi/wrong_expectation/RESP3",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
	if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(file) + `:9:16: reply differs at byte 1\n\s*sent: "ECHO" "hello"`).MatchString(all) {
		t.Errorf("the failure is not reported at the case file's line with the command:\n%s", all)
	}
	one := child("^TestGoAPIHelper$/goapi/PING__answers__PONG_/RESP3")
	if strings.Count(one, "=== RUN   TestGoAPIHelper/goapi/") != 2 || !strings.Contains(one, "--- PASS: TestGoAPIHelper/goapi/PING__answers__PONG_/RESP3") {
		t.Errorf("-run selected more or less than one case:\n%s", one)
	}
}
