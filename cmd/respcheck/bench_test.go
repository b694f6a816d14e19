package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestBenchQuick runs "respcheck bench --quick" against Redis 8.6.3 and
// checks the outputs' shape (never the timings): the JSON parses and has
// every table, the chart is an SVG document.
func TestBenchQuick(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	dir := t.TempDir()
	out, chart := filepath.Join(dir, "bench.json"), filepath.Join(dir, "bench.svg")
	code, stdout, stderr := respcheck(t, "bench", "--addr", srv.Addr(), "--quick", "--format", "json", "-o", out, "--chart", chart)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Server struct{ Family, Version string }
		Trials int
		Tables []struct {
			ID   string
			Rows []struct{ Label string }
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, b)
	}
	var ids []string
	for _, tab := range rep.Tables {
		ids = append(ids, tab.ID)
	}
	if got := strings.Join(ids, ","); got != "overwrite,digest,incr-expire,batch" || rep.Trials != 5 || rep.Server.Version != "8.6.3" {
		t.Errorf("tables %s, trials %d, server %+v", got, rep.Trials, rep.Server)
	}
	svg, err := os.ReadFile(chart)
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("chart: %v, %d bytes", err, len(svg))
	}

	code, stdout, _ = respcheck(t, "bench", "--addr", srv.Addr(), "--quick", "--trials", "2")
	if code != 0 || !strings.Contains(stdout, "2 timed trials per cell") || !strings.Contains(stdout, "SET IFDEQ") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
}
