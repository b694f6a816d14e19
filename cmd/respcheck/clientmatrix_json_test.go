package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report/page"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestClientMatrixJSON runs two corpus files (nil-kinds, numbers) through
// go-redis and ioredis on Redis 8.6.3 and writes the matrix file as
// -update-client-matrix does (writeMatrixJSON), twice under two section
// names: the file read back (page.Load) holds both sections, every cell's
// verdict is the run's, only the findings' cells carry steps, and no step
// it keeps is a match.
func TestClientMatrixJSON(t *testing.T) {
	files, err := cases.LoadPaths([]string{"../../testdata/clients/nil-kinds.yaml", "../../testdata/clients/numbers.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	all, notes := clients.AvailableFor(context.Background(), clients.AdapterSource{}, "go-redis,ioredis")
	t.Cleanup(func() { clients.CloseDrivers(all) })
	ds, err := clients.Select(all, "go-redis,ioredis")
	if err != nil || len(ds) == 0 {
		t.Skipf("no go-redis or ioredis: %v %v", err, notes)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := clients.Run(context.Background(), files, clients.Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 4, StepTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "client-matrix.json")
	writeMatrixJSON(t, path, "redis-8.6.3", rep)
	writeMatrixJSON(t, path, "b-copy", rep)
	in, err := page.Load(path)
	if err != nil || in.Matrix == nil {
		t.Fatalf("Load: %v %+v", err, in)
	}
	if len(in.Matrix.Sections) != 2 || in.Matrix.Sections[0].Name != "b-copy" {
		t.Fatalf("%d sections, first %q", len(in.Matrix.Sections), in.Matrix.Sections[0].Name)
	}
	got, err := in.Matrix.Sections[1].Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]clients.Verdict{}
	for _, r := range rep.Results {
		want[[2]string{r.Case.ID(), r.Client}] = r.Verdict
	}
	withSteps := 0
	for _, r := range got.Results {
		if !strings.HasPrefix(r.ID, "testdata/clients/") {
			t.Errorf("case ID %q: not from the repository's root", r.ID)
		}
		k := [2]string{"../../" + r.ID, r.Client}
		if v, ok := want[k]; !ok || v != r.Verdict {
			t.Errorf("%v: %s in the file, %s in the run", k, r.Verdict, v)
		}
		delete(want, k)
		if len(r.Steps) > 0 {
			withSteps++
			if !r.Verdict.Finding() {
				t.Errorf("%v: a %s with steps", k, r.Verdict)
			}
		}
		for _, s := range r.Steps {
			if s.Verdict == clients.Match || s.Wire != nil || s.Value != nil {
				t.Errorf("%v: a step kept whole, or a match kept: %+v", k, s)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("cells of the run missing from the file: %v", want)
	}
	data, _ := os.ReadFile(path)
	t.Logf("%d cells (%d with steps) of %d cases: %d bytes for two sections", len(got.Results), withSteps, len(in.Matrix.Sections[1].Cases), len(data))
	if withSteps == 0 || !strings.Contains(string(data), rep.Results[0].Case.FullName()) {
		t.Errorf("no cell with steps, or no case name, in the file:\n%.2000s", data)
	}
}
