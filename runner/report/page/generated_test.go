package page

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateReport = flag.Bool("update-report", false, "rewrite docs/generated/report.html from testdata/golden/* and docs/generated/client-matrix.json")

const (
	// repoRoot is the repository from this package's directory.
	repoRoot = "../../.."
	// generatedReport is the committed page, from repoRoot.
	generatedReport = "docs/generated/report.html"
	// reportCommand regenerates it.
	reportCommand = "go test ./runner/report/page -run TestGeneratedReport -update-report"
)

// generatedInputs are the committed page's inputs: every golden directory
// of testdata/golden (sorted: one server column each), then
// docs/generated/client-matrix.json when it exists (written by the client matrix
// tests' -update-client-matrix: a clients matrix per server). Paths are
// from the repository's root, as the page names them.
func generatedInputs(t testing.TB) []Input {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "golden", "*"))
	if err != nil || len(dirs) < 2 {
		t.Fatalf("goldens: %v %v", dirs, err)
	}
	paths := dirs
	matrix := filepath.Join(repoRoot, "docs", "generated", "client-matrix.json")
	if _, err := os.Stat(matrix); err == nil {
		paths = append(paths, matrix)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var ins []Input
	for _, p := range paths {
		in, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		in.Path, _ = filepath.Rel(repoRoot, p)
		in.Path = filepath.ToSlash(in.Path)
		ins = append(ins, in)
	}
	return ins
}

// TestGeneratedReport keeps docs/generated/report.html, the page of the committed
// goldens and of the client matrix (generatedInputs), up to date:
// -update-report rewrites it; otherwise a page that is not what the
// inputs make now fails, naming the command. The page must have a server
// column per golden directory and stay under maxReportBytes.
func TestGeneratedReport(t *testing.T) {
	ins := generatedInputs(t)
	start := time.Now()
	var buf bytes.Buffer
	if err := Write(&buf, ins); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d inputs: %d bytes in %v", len(ins), buf.Len(), time.Since(start).Round(time.Millisecond))
	p := Build(ins)
	golden := 0
	for _, in := range ins {
		if in.Golden != nil {
			golden++
		}
	}
	if len(p.Servers) != golden {
		t.Errorf("%d server columns for %d golden directories", len(p.Servers), golden)
	}
	if buf.Len() > maxReportBytes {
		t.Errorf("the page is %d bytes, more than %d", buf.Len(), maxReportBytes)
	}
	path := filepath.Join(repoRoot, generatedReport)
	if *updateReport {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(committed, buf.Bytes()) {
		t.Errorf("%s is stale (%d bytes committed, %d now: %v); run: %s", generatedReport, len(committed), buf.Len(), err, reportCommand)
	}
}

// maxReportBytes bounds the committed page: it is opened from a link in
// the README.
const maxReportBytes = 6 << 20
