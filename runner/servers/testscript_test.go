package servers

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestScriptsTestFailsWhenAPackageCannotList: scripts/test's tests phase
// (its tests function, run with a stand-in go) fails when a package's test
// binary does not build or start (go test -list fails), saying so; before,
// the package's tests were left out of the plan in silence and the phase
// passed.
func TestScriptsTestFailsWhenAPackageCannotList(t *testing.T) {
	script, err := filepath.Abs("../../scripts/test")
	if err != nil {
		t.Fatal(err)
	}
	harness := `set -euo pipefail
go() {
	case "$1 $2" in
	"list -m") echo example.com/m ;;
	"list ./...") printf 'example.com/m/%s\n' resp cases broken ;;
	"test -list") if [[ $4 == */broken ]]; then echo "broken/x_test.go:1:1: syntax error"; return 1; fi
		printf 'TestA\nTestB\nok  %s 0.1s\n' "$4" ;;
	*) echo "ran: go $*" ;;
	esac
}
eval "$(sed -n '/^RACE_PKGS=/,/^wanted tests/p' "$1" | sed '$d')"
rc=0
RESPCHECK_SHARDS=2 tests || rc=$?
echo "tests rc=$rc"
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", "-c", harness, "harness", script).CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "tests rc=1") || !strings.Contains(s, "go test -list example.com/m/broken failed") {
		t.Errorf("a package whose tests cannot be listed did not fail the phase:\n%s", s)
	}
	// Dealt to either shard, alone or together with the other.
	for _, test := range []string{"TestA", "TestB"} {
		if !regexp.MustCompile(`-run \^\((\w+\|)*` + test + `(\|\w+)*\)\$ example\.com/m/cases`).MatchString(s) {
			t.Errorf("the other packages' tests did not run (%s):\n%s", test, s)
		}
	}
}

// TestScriptsTestRefusesZeroShards: RESPCHECK_SHARDS=0 (or a word) fails
// the tests phase; it started no shard, so every test outside the race run
// was left out and the phase passed.
func TestScriptsTestRefusesZeroShards(t *testing.T) {
	script, err := filepath.Abs("../../scripts/test")
	if err != nil {
		t.Fatal(err)
	}
	harness := `set -euo pipefail
go() {
	case "$1 $2" in
	"list -m") echo example.com/m ;;
	"list ./...") echo example.com/m/cases ;;
	"test -list") printf 'TestA\nok  %s 0.1s\n' "$4" ;;
	*) echo "ran: go $*" ;;
	esac
}
eval "$(sed -n '/^RACE_PKGS=/,/^wanted tests/p' "$1" | sed '$d')"
for n in 0 abc; do
	rc=0
	RESPCHECK_SHARDS=$n tests >/dev/null 2>&1 || rc=$?
	echo "shards=$n rc=$rc"
done
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", "-c", harness, "harness", script).CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	if s := string(out); strings.Contains(s, "rc=0") {
		t.Errorf("RESPCHECK_SHARDS without a shard passed the phase:\n%s", s)
	}
}

// TestScriptsTestRefusesAnUnknownPhase: scripts/test --phase test (for
// tests) is a usage error; it ran no phase and passed.
func TestScriptsTestRefusesAnUnknownPhase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../scripts/test", "--no-setup", "--phase", "test")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "unknown phase 'test'") {
		t.Errorf("--phase test: %v, want exit 2 naming the phase\n%s", err, out)
	}
}

// TestScriptsHelp: every script's --help exits 0 and prints comment text
// only: scripts/test and install-schemas.sh printed "set -euo pipefail"
// (and a cd) after it, their line ranges being off.
func TestScriptsHelp(t *testing.T) {
	for _, s := range []string{"install-servers.sh", "install-clients.sh", "install-schemas.sh", "setup", "test", "run-suite", "record-goldens"} {
		path := filepath.Join("../../scripts", s)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, "bash", path, "--help").CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s --help: %v\n%s", s, err, out)
			continue
		}
		src := readFile(t, path)
		comments := map[string]bool{}
		for _, l := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(l, "#") {
				comments[strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")] = true
			}
		}
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if !comments[l] && strings.TrimSpace(l) != "" && !strings.Contains(l, "respcheck run --help") {
				t.Errorf("%s --help prints %q, which is no comment of the script", s, l)
			}
		}
	}
}
