package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestBenchQuick runs "respcheck bench --quick" against Redis 8.6.3 and
// Valkey 9.1.2 and checks the outputs' shape (never the timings): the JSON
// parses and has every table, the header names the link and the server's
// configuration, the chart is an SVG document, and the counts that do not
// depend on timing (the INCREX tables' final values and keys without TTL);
// then one table through --latency, and the script tables on a throwaway
// server.
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
		Tables []benchTable
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, b)
	}
	var ids []string
	for _, tab := range rep.Tables {
		ids = append(ids, tab.ID)
	}
	wantIDs := "overwrite,digest,incr-expire,batch,batch-read,contention-lost,contention-commands,contention-time," +
		"contention-gave-up,contention-p50,contention-p99,increx-contention,increx-crash," +
		"script-pairs,script-drop,script-stall,script-busy"
	if got := strings.Join(ids, ","); got != wantIDs || rep.Trials != 5 || rep.Server.Version != version {
		t.Errorf("tables %s, trials %d, server %+v", got, rep.Trials, rep.Server)
	}
	if rep.Link != "loopback" || !slices.Contains(rep.Config, "appendonly=no") {
		t.Errorf("link %q, config %q", rep.Link, rep.Config)
	}
	checkIncrex(t, rep.Tables)
	// The articles' orderings are judged (whatever the outcome: these are
	// timings), on cells every quick run has (Valkey has no SET IFDEQ: its
	// overwrite claim is not measured).
	judged := []string{"batch", "contention-commands", "increx-crash"}
	if strings.HasPrefix(build, "redis-8") {
		judged = append(judged, "overwrite")
	}
	for _, id := range judged {
		tab := findTable(rep.Tables, id)
		if tab == nil || len(tab.Claims) == 0 {
			t.Errorf("%s: no article claim", id)
			continue
		}
		for _, c := range tab.Claims {
			if (c.Holds != "holds" && c.Holds != "does not hold") || c.Measured == "" {
				t.Errorf("%s: claim %q judged %q (%s)", id, c.Text, c.Holds, c.Measured)
			}
		}
	}
	// --addr: the threshold (5000 ms) is the server's, too high to run past.
	if busy := findTable(rep.Tables, "script-busy"); busy == nil || len(busy.Rows) != 1 ||
		!strings.HasPrefix(busy.Rows[0].Cells[0].Note, "not run: busy-reply-threshold 5000 ms") {
		t.Errorf("script-busy on --addr: %+v", busy)
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
	benchScripts(t, build)
	code, stdout, stderr = respcheck(t, "bench", "--addr", srv.Addr(), "--quick", "--tables", "batch-aof-always")
	if code != 0 || strings.Contains(stdout, "appendfsync always (") || !strings.Contains(stderr, "batch-aof-always needs a throwaway server") {
		t.Errorf("batch-aof-always on --addr: exit %d\n%s%s", code, stdout, stderr)
	}
}

// benchTable is a table of the bench's JSON report.
type benchTable struct {
	ID      string
	Columns []string
	Claims  []struct{ Text, Holds, Measured string }
	Rows    []struct {
		Label string
		Cells []struct {
			Supported bool
			Note      string
			Median    float64
		}
	}
}

func findTable(tabs []benchTable, id string) *benchTable {
	for i := range tabs {
		if tabs[i].ID == id {
			return &tabs[i]
		}
	}
	return nil
}

// checkIncrex checks the INCREX tables of a --quick run: 20 clients x 20
// requests leave 400 on the key with a TTL under every supported variant;
// the crashes leave keys without TTL under INCR + EXPIRE only, one per
// crash (each request has a fresh key, so every INCR answers 1).
func checkIncrex(t *testing.T, tabs []benchTable) {
	t.Helper()
	cont, crash := findTable(tabs, "increx-contention"), findTable(tabs, "increx-crash")
	if cont == nil || crash == nil || len(cont.Rows) != 4 || len(crash.Rows) != 4 {
		t.Fatalf("INCREX tables: %+v %+v", cont, crash)
	}
	for i, row := range cont.Rows {
		c := row.Cells
		if !c[0].Supported {
			if row.Label != "INCREX" || c[0].Note != "not supported by this server" {
				t.Errorf("%s: %+v", row.Label, c)
			}
			continue
		}
		if c[0].Median != 400 || c[1].Median <= 0 || c[1].Median > 60 {
			t.Errorf("increx-contention %s: final %v, TTL %v", row.Label, c[0].Median, c[1].Median)
		}
		k := crash.Rows[i].Cells
		wantNoTTL := 0.0
		if row.Label == "INCR + EXPIRE" {
			wantNoTTL = k[0].Median
		}
		if k[0].Median == 0 || k[1].Median != wantNoTTL {
			t.Errorf("increx-crash %s: crashes %v, keys without TTL %v", row.Label, k[0].Median, k[1].Median)
		}
	}
}

// benchScripts runs the script tables on a throwaway server: script-busy
// runs past a threshold of 100 ms set for it, script-kill is there, and
// the script that wrote first keeps both writes (SCRIPT KILL cannot stop
// it).
func benchScripts(t *testing.T, build string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "scripts.json")
	code, stdout, stderr := respcheck(t, "bench", "--server", build, "--quick", "--trials", "1", "--tables", "scripts",
		"--format", "json", "-o", out)
	if code != 0 {
		t.Fatalf("scripts: exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Tables []benchTable }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tab := range rep.Tables {
		ids = append(ids, tab.ID)
	}
	if got := strings.Join(ids, ","); got != "script-pairs,script-drop,script-stall,script-busy,script-kill" {
		t.Errorf("script tables: %s", got)
	}
	if busy := findTable(rep.Tables, "script-busy"); busy == nil || !busy.Rows[0].Cells[0].Supported {
		t.Errorf("script-busy: %+v", busy)
	}
	kill := findTable(rep.Tables, "script-kill")
	if kill == nil || len(kill.Rows) != 2 || kill.Rows[1].Cells[3].Median != 2 || kill.Rows[0].Cells[3].Note != "no writes" {
		t.Errorf("script-kill: %+v", kill)
	}
}

// TestBenchServerKilledIsExit3 kills the server once the bench has sent
// some thousand commands: exit 3, and a message that says the server
// stopped answering, with the first error only (a 50-client table joined
// fifty "EOF" lines).
func TestBenchServerKilledIsExit3(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	go func() {
		c, err := target.Config{Addr: srv.Addr()}.Dial(context.Background(), 2)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			v, err := c.Do("INFO", "stats")
			if err != nil || strings.Contains(string(v.Str), "total_commands_processed:") &&
				statInt(string(v.Str), "total_commands_processed") > 5000 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		srv.Signal(syscall.SIGKILL)
	}()
	code, out, errs := respcheck(t, "bench", "--addr", srv.Addr(), "--quick")
	if code != exitServer || !strings.Contains(errs, "stopped answering during the bench") || strings.Count(errs, "\n") > 3 {
		t.Errorf("exit %d, want 3\nstdout:\n%.2000s\nstderr:\n%s", code, out, errs)
	}
}

// statInt returns the integer field name of an INFO reply, or -1.
func statInt(info, name string) int64 {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
