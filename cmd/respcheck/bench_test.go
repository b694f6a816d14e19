package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestBenchQuick runs "respcheck bench --quick" against Redis 8.6.3 and
// Valkey 9.1.2 and checks the outputs' shape (never the timings): the JSON
// parses and has every table, the header names the link and the server's
// configuration, the chart is an SVG document; then one table through
// --latency.
func TestBenchQuick(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) { benchQuick(t, build) })
	}
}

func benchQuick(t *testing.T, build string) {
	srv := servers.ForTest(t, build)
	version := build[strings.IndexByte(build, '-')+1:]
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
		Link   string
		Config []string
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
	wantIDs := "overwrite,digest,incr-expire,batch,batch-read,contention-lost,contention-commands,contention-time,contention-gave-up,contention-p50,contention-p99"
	if got := strings.Join(ids, ","); got != wantIDs || rep.Trials != 5 || rep.Server.Version != version {
		t.Errorf("tables %s, trials %d, server %+v", got, rep.Trials, rep.Server)
	}
	if rep.Link != "loopback" || !slices.Contains(rep.Config, "appendonly=no") {
		t.Errorf("link %q, config %q", rep.Link, rep.Config)
	}
	svg, err := os.ReadFile(chart)
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("chart: %v, %d bytes", err, len(svg))
	}

	code, stdout, _ = respcheck(t, "bench", "--addr", srv.Addr(), "--quick", "--trials", "2", "--tables", "overwrite,incr-expire",
		"--latency", "1ms", "--jitter", "1ms", "--bandwidth", "100MB/s")
	if code != 0 || !strings.Contains(stdout, "2 timed trials per cell") || !strings.Contains(stdout, "SET IFDEQ") ||
		!strings.Contains(stdout, "link: +1ms each way, jitter 1ms, 100 MB/s; PING round trip") || strings.Contains(stdout, "HMSET") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := respcheck(t, "bench", "--addr", srv.Addr(), "--tables", "nope"); code != 2 || !strings.Contains(stderr, "contention") {
		t.Errorf("--tables nope: exit %d\n%s", code, stderr)
	}
	// The appendfsync always table: a second throwaway server with
	// --server; on --addr it is left out with a note, the server untouched.
	code, stdout, stderr = respcheck(t, "bench", "--server", build, "--quick", "--tables", "batch-aof-always")
	if code != 0 || !strings.Contains(stdout, "appendfsync always (µs per item; 2 trials per cell)") ||
		!strings.Contains(stdout, "appendonly=yes, appendfsync=always") || !strings.Contains(stdout, "server config: appendonly=no") {
		t.Errorf("batch-aof-always: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = respcheck(t, "bench", "--addr", srv.Addr(), "--quick", "--tables", "batch-aof-always")
	if code != 0 || strings.Contains(stdout, "appendfsync always (") || !strings.Contains(stderr, "batch-aof-always needs a throwaway server") {
		t.Errorf("batch-aof-always on --addr: exit %d\n%s%s", code, stdout, stderr)
	}
}
