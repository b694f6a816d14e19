package capture_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/bench"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// BenchmarkCaptureOverhead measures what the capture proxy adds, side by
// side with a direct connection to a throwaway Redis 8.6.3:
//
//   - roundtrip/{direct,capture}: one SET of a 16-byte value round trip on
//     loopback; metrics "µs-p50" and "µs-p99" are the median and 99th
//     percentile of the iterations' round trips (the bound: the
//     proxy's p50 at most twice direct's);
//   - link1ms/{direct,capture}: the same through the bench's relay with 1
//     ms of latency each way (bench.Link), the proxy in front of it (the
//     bound: at most 5% more);
//   - pipelined/{direct,capture}: redis-benchmark -P 16 -t set,get (the
//     build's own; an iteration is one pipeline of 16 of each), metric
//     "req/s" (the bound: the proxy at least 70% of direct);
//     pipelined/capture-keys is the proxy as respcheck capture runs it by
//     default, reading each key before its first command (--keys-before).
//
// Pin it for the round trips (taskset -c 0 go test -run XXX -bench
// CaptureOverhead ./runner/capture): a client and a server on one vCPU
// run several times faster than on two, which would make the two sides
// incomparable; all three processes then share that vCPU. Unpinned, the
// pipelined runs put the server and redis-benchmark on one vCPU
// (shareOneCPU) and leave the proxy the others. Repeat (-count 10) and
// compare medians: single runs here vary by ±20%.
func BenchmarkCaptureOverhead(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	link, err := bench.NewLink(srv.Addr(), bench.LinkConfig{Latency: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { link.Close() })
	proxyWith := func(up string, o clients.RecorderOptions) string {
		rec, err := clients.NewRecorderWith(context.Background(), target.Config{Addr: up, Timeout: 10 * time.Second}, "127.0.0.1:0", o)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rec.Close() })
		return rec.Addr()
	}
	proxy := func(up string) string { return proxyWith(up, clients.RecorderOptions{}) }
	direct, captured := srv.Addr(), proxy(srv.Addr())
	for _, tc := range []struct{ name, addr string }{
		{"roundtrip/direct", direct}, {"roundtrip/capture", captured},
		{"link1ms/direct", link.Addr()}, {"link1ms/capture", proxy(link.Addr())},
	} {
		b.Run(tc.name, func(b *testing.B) { roundTrips(b, tc.addr) })
	}
	cli := filepath.Join(filepath.Dir(srv.Build().Bin), "redis-benchmark")
	pin := shareOneCPU(b, srv.Pid())
	keys := proxyWith(srv.Addr(), clients.RecorderOptions{KeysBefore: true})
	for _, tc := range []struct{ name, addr string }{{"pipelined/direct", direct}, {"pipelined/capture", captured}, {"pipelined/capture-keys", keys}} {
		b.Run(tc.name, func(b *testing.B) { pipelined(b, append(pin, cli), tc.addr) })
	}
}

// roundTrips times b.N SET round trips on one connection to addr.
func roundTrips(b *testing.B, addr string) {
	c, err := target.Config{Addr: addr, Timeout: 10 * time.Second}.Dial(context.Background(), 2)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	set := resp.AppendCommandString(nil, "SET", "{bench}:k", "0123456789abcdef")
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if v, err := c.DoBytes(set); err != nil || string(v.Str) != "OK" {
			b.Fatalf("SET: %v %q", err, v.Raw)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "µs-p50")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "µs-p99")
}

// shareOneCPU puts the server (pid) on the first CPU this process may
// run on and returns the command prefix that starts redis-benchmark there
// too (taskset -c N), when the process may run on two or more: the direct
// runs then have the pair on one vCPU as always. This process, the
// proxy's, moves to the other CPUs (every thread, GOMAXPROCS their
// number, as Go sets it for a process started there) until the benchmark
// ends: a proxy in front of a production server has a core of its own,
// and left on both it took the pair's vCPU from them half of the time
// (2026-12-07: 61% of direct's requests per second unconfined, 73-80%
// confined). On one CPU (taskset -c 0 go test ...) or without taskset,
// nil: all three share what there is.
func shareOneCPU(b *testing.B, pid int) []string {
	cpus, err := allowedCPUs()
	taskset, lookErr := exec.LookPath("taskset")
	if len(cpus) < 2 || err != nil || lookErr != nil {
		return nil
	}
	ids := make([]string, len(cpus))
	for i, c := range cpus {
		ids[i] = strconv.Itoa(c)
	}
	first, rest := ids[0], ids[1:]
	pinTo := func(list string, pid int, all bool) {
		args := []string{"-p", "-c", list, strconv.Itoa(pid)}
		if all {
			args = append([]string{"-a"}, args...)
		}
		if out, err := exec.Command(taskset, args...).CombinedOutput(); err != nil {
			b.Fatalf("taskset %v: %v\n%s", args, err, out)
		}
	}
	pinTo(first, pid, false)
	procs := runtime.GOMAXPROCS(0)
	pinTo(strings.Join(rest, ","), os.Getpid(), true)
	runtime.GOMAXPROCS(len(rest))
	b.Cleanup(func() {
		pinTo(strings.Join(ids, ","), os.Getpid(), true)
		runtime.GOMAXPROCS(procs)
	})
	return []string{taskset, "-c", first}
}

// allowedCPUs lists the CPUs this process may run on, in order, from
// /proc/self/status's Cpus_allowed_list ("0-1", "0,2-3").
func allowedCPUs() ([]int, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	_, list, ok := strings.Cut(string(status), "Cpus_allowed_list:")
	if !ok {
		return nil, errors.New("no Cpus_allowed_list in /proc/self/status")
	}
	list, _, _ = strings.Cut(strings.TrimSpace(list), "\n")
	var cpus []int
	for _, r := range strings.Split(strings.TrimSpace(list), ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || z < a {
			return nil, fmt.Errorf("Cpus_allowed_list %q: not a CPU list", list)
		}
		for c := a; c <= z; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// pipelined runs redis-benchmark -P 16 (cmd: the prefix that starts it,
// its path last) against addr for 16 requests an iteration of each of
// SET and GET (b.N pipelines, at least 1,000 requests) and reports its
// requests per second, SET and GET averaged.
func pipelined(b *testing.B, cmd []string, addr string) {
	host, port, _ := strings.Cut(addr, ":")
	n := strconv.Itoa(max(16*b.N, 1000))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b.ResetTimer()
	args := append(slices.Clone(cmd[1:]), "-h", host, "-p", port, "-P", "16", "-t", "set,get", "-n", n, "-q", "--csv")
	out, err := exec.CommandContext(ctx, cmd[0], args...).Output()
	b.StopTimer()
	if err != nil {
		b.Fatalf("redis-benchmark: %v\n%s", err, out)
	}
	var sum float64
	var tests int
	// "test","rps",... one line per test after the header.
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) < 2 {
			continue
		}
		rps, err := strconv.ParseFloat(strings.Trim(f[1], `"`), 64)
		if err != nil {
			b.Fatalf("redis-benchmark's line %q: %v", line, err)
		}
		sum, tests = sum+rps, tests+1
	}
	if tests == 0 {
		b.Fatalf("redis-benchmark reported nothing:\n%s", out)
	}
	b.ReportMetric(sum/float64(tests), "req/s")
}
