package clients

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// cliTestDrivers returns the CLI configurations of the installed builds;
// a pinned build's CLI that is missing fails under CI.
func cliTestDrivers(t *testing.T) []Driver {
	t.Helper()
	ds, notes := cliDrivers()
	if len(notes) > 0 && servers.InCI() {
		for _, n := range notes {
			if !strings.Contains(n, "Debian redis-tools") {
				t.Fatal("CI is set and a command-line client is missing: " + n)
			}
		}
	}
	if len(ds) == 0 {
		t.Skip("no command-line client installed: " + strings.Join(notes, "; "))
	}
	return ds
}

func TestCLIExplore(t *testing.T) {
	if os.Getenv("RESPCHECK_CLI_EXPLORE") == "" {
		t.Skip("set RESPCHECK_CLI_EXPLORE")
	}
	srv := servers.ForTest(t, os.Getenv("RESPCHECK_CLI_EXPLORE"))
	files, err := cases.LoadPaths([]string{"../../testdata/clients/"})
	if err != nil {
		t.Fatal(err)
	}
	ds := cliTestDrivers(t)
	start := time.Now()
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 4, StepTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]map[Verdict]int{}
	var lines []string
	for _, res := range rep.Results {
		if counts[res.Client] == nil {
			counts[res.Client] = map[Verdict]int{}
		}
		for _, sv := range res.Steps {
			counts[res.Client][sv.Verdict]++
			if sv.Verdict.Finding() {
				lines = append(lines, fmt.Sprintf("%s %s %s:%d %s %v canary=%s", res.Client, sv.Verdict, res.Case.Name, sv.Step.Pos.Line, FormatArgs(sv.Args), sv.Notes, sv.Canary))
			}
		}
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-32s %v", n, counts[n])
	}
	for _, l := range lines {
		t.Log(l)
	}
	t.Logf("%s", time.Since(start))
}
