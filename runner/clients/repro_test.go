package clients

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// The repros in testdata/clients/repro back the matrix's findings outside
// respcheck: each is a few lines in the library's own language that drives
// the library directly against a server and prints what it returned. Its
// header says what it shows (repro:), which matrix lines it reproduces
// (finds:), how to run it (run:) and a regexp its output must match
// (expect:). A command-line client's repro is a shell script run as
// `sh FILE.sh ADDR CLI` with the CLI of the server build its run: line
// names (run: cli-redis-8.6.3).
//
// A repro may have several run: lines (one script for two installs of a
// library, e.g. run: python-4.3.4 and run: python-6.4.0): TestRepros runs it
// once per run: line. It then has either one expect: for every run or one
// expect: per run:, paired in order.
//
// The code a language's repros share is in lib.go, lib.js and lib.py in the
// same folder (no header; not repros themselves): a Go repro runs as
// `go run FILE.go lib.go ADDR`, a Node one as `node FILE.js ADDR` (it
// requires ./lib), a Python one as `python3 FILE.py ADDR` (it imports lib);
// C, Ruby and PHP ones: see langReproCommand.
// testdata/clients/repro/README.md says how to run one by hand.

const reproDir = "../../testdata/clients/repro"

type repro struct {
	file    string
	runs    []string
	expects []*regexp.Regexp // one, or one per run
	finds   []string         // "case [client]"
	// cluster (header "cluster: true") runs the repro against a node of a
	// Redis 8.6.3 cluster (3 primaries) instead of a standalone server.
	cluster bool
}

// expectFor is the regexp the output of the i-th run: must match.
func (r repro) expectFor(i int) *regexp.Regexp {
	if len(r.expects) == 1 {
		return r.expects[0]
	}
	return r.expects[i]
}

// reproExts are the languages of repros: Go, Node, Python, C (hiredis),
// Ruby, PHP and shell (the command-line clients).
var reproExts = map[string]bool{".go": true, ".js": true, ".py": true, ".c": true, ".rb": true, ".php": true, ".sh": true}

var reproHeader = regexp.MustCompile(`^(?://|#)\s*(repro|finds|run|expect|cluster):\s?(.*)$`)

func loadRepros(t *testing.T) []repro {
	t.Helper()
	ents, err := os.ReadDir(reproDir)
	if err != nil {
		t.Fatal(err)
	}
	var rs []repro
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || !reproExts[ext] || strings.HasPrefix(e.Name(), "lib.") {
			continue
		}
		f, err := os.Open(filepath.Join(reproDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		r := repro{file: e.Name()}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m := reproHeader.FindStringSubmatch(strings.TrimSpace(sc.Text()))
			if m == nil {
				continue
			}
			v := strings.TrimSpace(m[2])
			switch m[1] {
			case "finds":
				r.finds = append(r.finds, v)
			case "run":
				r.runs = append(r.runs, v)
			case "cluster":
				r.cluster = v == "true"
			case "expect":
				re, err := regexp.Compile(v)
				if err != nil {
					t.Errorf("%s: expect: %v", e.Name(), err)
					continue
				}
				r.expects = append(r.expects, re)
			}
		}
		f.Close()
		if len(r.runs) == 0 || len(r.expects) == 0 || len(r.finds) == 0 {
			t.Errorf("%s: header needs run:, expect: and at least one finds:", e.Name())
			continue
		}
		if len(r.expects) != 1 && len(r.expects) != len(r.runs) {
			t.Errorf("%s: %d expect: lines for %d run: lines (want 1 or one per run:)", e.Name(), len(r.expects), len(r.runs))
			continue
		}
		rs = append(rs, r)
	}
	return rs
}

// reproCommand is the command that runs a repro with the runtime of one of
// its run: lines, or a reason it cannot run here.
func reproCommand(ctx context.Context, r repro, run string, addr string) (*exec.Cmd, string) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	path := filepath.Join(root, "testdata", "clients", "repro", r.file)
	var cmd *exec.Cmd
	env := append(os.Environ(), "PYTHONNOUSERSITE=1")
	// A Python run may name a configuration: python-4.3.4+hiredis,
	// python-6.4.0[callbacks=none] (lib.py reads RESPCHECK_REPRO_CONFIG).
	run, config := pyRun(run)
	switch {
	case run == "node":
		bin, err := exec.LookPath("node")
		if err != nil {
			return nil, "node not found"
		}
		mods := filepath.Join(adaptersDir(""), "node", "node_modules")
		if _, err := os.Stat(mods); err != nil {
			return nil, "no node_modules: " + err.Error()
		}
		abs, _ := filepath.Abs(mods)
		cmd = exec.CommandContext(ctx, bin, path, addr)
		env = append(env, "NODE_PATH="+abs)
	case run == "python-4.3.4" || run == "python-"+pyRedisSid:
		if _, err := os.Stat(pythonBin); err != nil {
			return nil, pythonBin + " not found"
		}
		cmd = exec.CommandContext(ctx, pythonBin, path, addr)
		pp := ""
		env = append(env, "RESPCHECK_REPRO_CONFIG="+config)
		if run == "python-4.3.4" {
			// Debian's python3-redis, which Python sees without PYTHONPATH.
			if _, err := os.Stat("/usr/lib/python3/dist-packages/redis"); err != nil {
				return nil, "Debian's python3-redis (redis-py 4.3.4) not installed: " + err.Error()
			}
		} else {
			pp = filepath.Join(clientsCache(), "python", "redis-"+pyRedisSid, "usr", "lib", "python3", "dist-packages")
			if _, err := os.Stat(pp); err != nil {
				return nil, "redis-py " + pyRedisSid + " not installed: " + err.Error()
			}
		}
		env = append(env, "PYTHONPATH="+pp)
	case run == "go":
		bin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(bin); err != nil {
			var err2 error
			if bin, err2 = exec.LookPath("go"); err2 != nil {
				return nil, "go not found"
			}
		}
		cmd = exec.CommandContext(ctx, bin, "run", path, filepath.Join(filepath.Dir(path), "lib.go"), addr)
	case run == "c" || run == "ruby" || run == "php":
		// A C repro may set commaLocale, which install-clients.sh
		// compiles into the cache.
		env = append(env, "LOCPATH="+localeDir())
		var why string
		if cmd, why = langReproCommand(ctx, run, path, addr); cmd == nil {
			return nil, why
		}
	case strings.HasPrefix(run, "cli-"):
		// A shell script given the command-line client of a server
		// build: sh FILE.sh ADDR CLI.
		b, err := servers.Find(strings.TrimPrefix(run, "cli-"))
		if err != nil {
			return nil, err.Error()
		}
		cli := filepath.Join(filepath.Dir(b.Bin), b.Family+"-cli")
		if _, err := os.Stat(cli); err != nil {
			return nil, err.Error()
		}
		cmd = exec.CommandContext(ctx, "/bin/sh", path, addr, cli)
	default:
		return nil, "unknown runtime " + run
	}
	cmd.Dir = root
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	return cmd, ""
}

// pyRun splits a Python run: line into its runtime and the configuration
// suffix of a redis-py configuration (see pyConfigs); other runs are
// returned whole.
func pyRun(run string) (string, string) {
	for _, v := range []string{"python-4.3.4", "python-" + pyRedisSid} {
		if cfg, ok := strings.CutPrefix(run, v); ok && slices.Contains(pyConfigs, cfg) {
			return v, cfg
		}
	}
	return run, ""
}

// TestRepros runs every repro against redis 8.6.3, once per run: line, and
// checks its output against its expect: regexp. The standalone repros run
// reproParallel at a time, each on a server of its own (they subscribe,
// track keys and wait out hangs: most of their time is waiting); the
// cluster ones run one after the other on one cluster.
func TestRepros(t *testing.T) {
	rs := loadRepros(t)
	if len(rs) == 0 {
		t.Fatal("no repros in " + reproDir)
	}
	var cl *servers.Cluster // started for the first cluster repro
	var wg sync.WaitGroup
	slots := make(chan struct{}, reproParallel)
	for _, r := range rs {
		for i, run := range r.runs {
			name := r.file
			if len(r.runs) > 1 {
				name += "/" + run
			}
			if r.cluster {
				if cl == nil {
					cl = servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
				}
				t.Run(name, func(t *testing.T) { runRepro(t, r, run, i, cl.Nodes[0].Addr()) })
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				// t.Run may be called from several goroutines; each
				// returns before TestRepros does (wg).
				t.Run(name, func(t *testing.T) {
					srv := servers.ForTest(t, "redis-8.6.3")
					runRepro(t, r, run, i, srv.Addr())
				})
			}()
		}
	}
	wg.Wait()
}

// reproParallel is how many standalone repros run at once.
const reproParallel = 4

// runRepro runs the i-th run: line of r against addr and checks its
// output, within 30 s.
func runRepro(t *testing.T, r repro, run string, i int, addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, why := reproCommand(ctx, r, run, addr)
	if cmd == nil {
		if servers.InCI() {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("no end within 30s; output:\n%s", out)
	}
	expect := r.expectFor(i)
	if !expect.Match(out) {
		t.Fatalf("output does not match %q (err %v):\n%s", expect, err, out)
	}
	t.Logf("%s", strings.TrimSpace(lastLines(string(out), 6)))
}

// findingLine is a finding of the matrix; the client name may hold
// brackets (redis-cli-8.6.3[--no-raw]/resp3).
var findingLine = regexp.MustCompile("^- \\*\\*(mismatch|crash|hang|desync)\\*\\*(?: \\(rule: [a-z-]+\\))? `(.+?)` \\[(.+?/resp[23])\\]:")

// matrixPages are the client matrix's pages under docs/generated/, one per server
// (cmd/respcheck TestClientMatrix writes them).
var matrixPages = []string{"client-matrix.md", "client-matrix-valkey-9.1.2.md"}

// TestReproCoverage fails on a finding of the matrix pages (mismatch,
// crash, hang, desync) that no repro claims, and on a claim that names no
// finding of any page. A finding of a case and client on both pages is
// one finding.
func TestReproCoverage(t *testing.T) {
	findings := map[string]string{} // "case [client]" -> verdict
	var order []string
	var pages string
	for _, page := range matrixPages {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "generated", page))
		if err != nil {
			t.Fatal(err)
		}
		pages += string(b)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			m := findingLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			n++
			k := m[2] + " [" + m[3] + "]"
			if _, dup := findings[k]; !dup {
				order = append(order, k)
			}
			findings[k] = m[1]
		}
		if n == 0 {
			t.Fatalf("no finding lines in docs/generated/%s", page)
		}
	}
	claimed := map[string][]string{}
	for _, r := range loadRepros(t) {
		for _, f := range r.finds {
			if _, ok := findings[f]; !ok {
				if cellExists(pages, f) {
					// A finding that depends on timing (a crash or a hang
					// under load) may be absent from a run of the matrix.
					t.Logf("%s: finds: %s: not a finding of this run of the matrix", r.file, f)
				} else {
					t.Errorf("%s: finds: %s: no such case and client in docs/generated/%s", r.file, f, strings.Join(matrixPages, " or "))
				}
				continue
			}
			claimed[f] = append(claimed[f], r.file)
		}
	}
	var missing []string
	for _, k := range order {
		if len(claimed[k]) == 0 {
			missing = append(missing, findings[k]+" "+k)
		}
	}
	byVerdict := map[string][2]int{}
	for _, k := range order {
		c := byVerdict[findings[k]]
		c[1]++
		if len(claimed[k]) > 0 {
			c[0]++
		}
		byVerdict[findings[k]] = c
	}
	var vs []string
	for v, c := range byVerdict {
		vs = append(vs, fmt.Sprintf("%s %d/%d", v, c[0], c[1]))
	}
	sort.Strings(vs)
	// Every finding is a claim about a library: it needs its
	// reproduction outside respcheck (or a fix, if the verdict is wrong),
	// or an entry in UNREPRODUCED saying why it has none yet.
	debt := unreproduced(t)
	for _, m := range missing {
		if _, listed := debt[m[strings.IndexByte(m, ' ')+1:]]; listed {
			t.Logf("not reproduced yet (UNREPRODUCED): %s", m)
			continue
		}
		t.Errorf("not reproduced: %s", m)
	}
	for k := range debt {
		switch _, ok := findings[k]; {
		case len(claimed[k]) > 0:
			t.Errorf("UNREPRODUCED: %s is claimed by a repro: remove it", k)
		case !ok:
			// A finding that depends on timing may be absent from a run.
			t.Logf("UNREPRODUCED: %s is not a finding of this page", k)
		}
	}
	t.Logf("covered %d/%d finding lines (%s)", len(order)-len(missing), len(order), strings.Join(vs, ", "))
}

// langReproCommand is the command of a hiredis (run: c), redis-rb (run:
// ruby) or phpredis (run: php) repro: a C one is compiled with gcc against
// the hiredis tree of the clients cache (it includes lib.h) and run; a Ruby
// one runs as `ruby -E UTF-8 FILE.rb ADDR` (it requires lib.rb), a PHP one
// as `php FILE.php ADDR` (it requires lib.php).
func langReproCommand(ctx context.Context, run, path, addr string) (*exec.Cmd, string) {
	switch run {
	case "c":
		tree := filepath.Join(filepath.Dir(filepath.Dir(hiredisAdapter())), "hiredis")
		if _, err := os.Stat(filepath.Join(tree, "libhiredis.a")); err != nil {
			return nil, "hiredis not built (run scripts/install-clients.sh): " + err.Error()
		}
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			return nil, "gcc not found"
		}
		bin := filepath.Join(os.TempDir(), "respcheck-repro-"+strings.TrimSuffix(filepath.Base(path), ".c"))
		script := `"$1" -O1 -std=c11 -D_GNU_SOURCE -I"$2" "$3" "$2/libhiredis.a" -lm -o "$4" && exec "$4" "$5"`
		return exec.CommandContext(ctx, "/bin/sh", "-c", script, "sh", gcc, tree, path, bin, addr), ""
	case "ruby":
		if _, err := os.Stat(rubyBin); err != nil {
			return nil, rubyBin + " not found"
		}
		return exec.CommandContext(ctx, rubyBin, "-E", "UTF-8", path, addr), ""
	default:
		if _, err := os.Stat(phpBin); err != nil {
			return nil, phpBin + " not found"
		}
		return exec.CommandContext(ctx, phpBin, path, addr), ""
	}
}

// unreproduced reads testdata/clients/repro/UNREPRODUCED: findings without a
// repro yet, each under a "# why:" comment.
func unreproduced(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(reproDir, "UNREPRODUCED"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	why := false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "# why:"):
			why = true
		case l == "" || strings.HasPrefix(l, "#"):
		case !why:
			t.Errorf("UNREPRODUCED: %q has no # why: above it", l)
		default:
			out[l] = true
		}
	}
	return out
}

// cellExists reports whether the pages have a column for the client of a
// "case [client]" claim and name its case.
func cellExists(pages, claim string) bool {
	i := strings.LastIndex(claim, " [")
	if i < 0 || !strings.HasSuffix(claim, "]") {
		return false
	}
	name, client := claim[:i], claim[i+2:len(claim)-1]
	_, caseName, _ := strings.Cut(name, "/")
	return strings.Contains(pages, "| "+client+" |") && strings.Contains(pages, caseName)
}
