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
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// The repros in testdata/clients/repro back the matrix's findings outside
// respcheck: each is a few lines in the library's own language that drives
// the library directly against a server and prints what it returned. Its
// header says what it shows (repro:), which matrix lines it reproduces
// (finds:), how to run it (run:) and a regexp its output must match
// (expect:).
//
// A repro may have several run: lines (one script for two installs of a
// library, e.g. run: python-4.3.4 and run: python-6.4.0): TestRepros runs it
// once per run: line. It then has either one expect: for every run or one
// expect: per run:, paired in order.
//
// The code a language's repros share is in lib.go, lib.js and lib.py in the
// same folder (no header; not repros themselves): a Go repro runs as
// `go run FILE.go lib.go ADDR`, a Node one as `node FILE.js ADDR` (it
// requires ./lib), a Python one as `python3 FILE.py ADDR` (it imports lib).
// testdata/clients/repro/README.md says how to run one by hand.

const reproDir = "../../testdata/clients/repro"

type repro struct {
	file    string
	runs    []string
	expects []*regexp.Regexp // one, or one per run
	finds   []string         // "case [client]"
}

// expectFor is the regexp the output of the i-th run: must match.
func (r repro) expectFor(i int) *regexp.Regexp {
	if len(r.expects) == 1 {
		return r.expects[0]
	}
	return r.expects[i]
}

var reproHeader = regexp.MustCompile(`^(?://|#)\s*(repro|finds|run|expect):\s?(.*)$`)

func loadRepros(t *testing.T) []repro {
	t.Helper()
	ents, err := os.ReadDir(reproDir)
	if err != nil {
		t.Fatal(err)
	}
	var rs []repro
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".go" && ext != ".js" && ext != ".py") || strings.HasPrefix(e.Name(), "lib.") {
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
	switch run {
	case "node":
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
	case "python-4.3.4", "python-" + pyRedisSid:
		if _, err := os.Stat(pythonBin); err != nil {
			return nil, pythonBin + " not found"
		}
		cmd = exec.CommandContext(ctx, pythonBin, path, addr)
		pp := ""
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
	case "go":
		bin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(bin); err != nil {
			var err2 error
			if bin, err2 = exec.LookPath("go"); err2 != nil {
				return nil, "go not found"
			}
		}
		cmd = exec.CommandContext(ctx, bin, "run", path, filepath.Join(filepath.Dir(path), "lib.go"), addr)
	default:
		return nil, "unknown runtime " + run
	}
	cmd.Dir = root
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	return cmd, ""
}

// TestRepros runs every repro against redis 8.6.3, once per run: line, and
// checks its output against its expect: regexp.
func TestRepros(t *testing.T) {
	rs := loadRepros(t)
	if len(rs) == 0 {
		t.Fatal("no repros in " + reproDir)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	for _, r := range rs {
		for i, run := range r.runs {
			name := r.file
			if len(r.runs) > 1 {
				name += "/" + run
			}
			expect := r.expectFor(i)
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cmd, why := reproCommand(ctx, r, run, srv.Addr())
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
				if !expect.Match(out) {
					t.Fatalf("output does not match %q (err %v):\n%s", expect, err, out)
				}
				t.Logf("%s", strings.TrimSpace(lastLines(string(out), 6)))
			})
		}
	}
}

// findingLine is one finding of docs/client-matrix.md: its verdict, case
// and client (whose label may hold brackets: "ioredis-6.0.0[replyMapping=resp3]/resp3").
var findingLine = regexp.MustCompile("^- \\*\\*(mismatch|crash|hang|desync)\\*\\* `(.+?)` \\[(\\S+)\\]:")

// TestReproCoverage fails on a finding of the matrix (mismatch, crash,
// hang, desync) that no repro claims, and on a claim that names no finding.
func TestReproCoverage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "client-matrix.md"))
	if err != nil {
		t.Fatal(err)
	}
	findings := map[string]string{} // "case [client]" -> verdict
	var order []string
	for _, l := range strings.Split(string(b), "\n") {
		m := findingLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		k := m[2] + " [" + m[3] + "]"
		if _, dup := findings[k]; !dup {
			order = append(order, k)
		}
		findings[k] = m[1]
	}
	if len(findings) == 0 {
		t.Fatal("no finding lines in docs/client-matrix.md")
	}
	claimed := map[string][]string{}
	for _, r := range loadRepros(t) {
		for _, f := range r.finds {
			if _, ok := findings[f]; !ok {
				t.Errorf("%s: finds: %s: no such finding in docs/client-matrix.md", r.file, f)
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
	// reproduction outside respcheck (or a fix, if the verdict is wrong).
	for _, m := range missing {
		t.Errorf("not reproduced: %s", m)
	}
	t.Logf("covered %d/%d finding lines (%s)", len(order)-len(missing), len(order), strings.Join(vs, ", "))
}
