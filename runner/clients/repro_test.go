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

const reproDir = "../../testdata/clients/repro"

type repro struct {
	file   string
	run    string
	expect *regexp.Regexp
	finds  []string // "case [client]"
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
		if e.IsDir() || (ext != ".go" && ext != ".js" && ext != ".py") {
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
				r.run = v
			case "expect":
				re, err := regexp.Compile(v)
				if err != nil {
					t.Errorf("%s: expect: %v", e.Name(), err)
					continue
				}
				r.expect = re
			}
		}
		f.Close()
		if r.run == "" || r.expect == nil || len(r.finds) == 0 {
			t.Errorf("%s: header needs run:, expect: and at least one finds:", e.Name())
			continue
		}
		rs = append(rs, r)
	}
	return rs
}

// reproCommand is the command that runs a repro with its runtime, or a
// reason it cannot run here.
func reproCommand(ctx context.Context, r repro, addr string) (*exec.Cmd, string) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	path := filepath.Join(root, "testdata", "clients", "repro", r.file)
	var cmd *exec.Cmd
	env := append(os.Environ(), "PYTHONNOUSERSITE=1")
	switch r.run {
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
		if r.run == "python-4.3.4" {
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
		cmd = exec.CommandContext(ctx, bin, "run", path, addr)
	default:
		return nil, "unknown runtime " + r.run
	}
	cmd.Dir = root
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	return cmd, ""
}

// TestRepros runs every repro against redis 8.6.3 and checks its output
// against its expect: regexp.
func TestRepros(t *testing.T) {
	rs := loadRepros(t)
	if len(rs) == 0 {
		t.Fatal("no repros in " + reproDir)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	for _, r := range rs {
		t.Run(r.file, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd, why := reproCommand(ctx, r, srv.Addr())
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
			if !r.expect.Match(out) {
				t.Fatalf("output does not match %q (err %v):\n%s", r.expect, err, out)
			}
			t.Logf("%s", strings.TrimSpace(lastLines(string(out), 6)))
		})
	}
}

var findingLine = regexp.MustCompile("^- \\*\\*(mismatch|crash|hang|desync)\\*\\* `(.+?)` \\[([^\\]]+)\\]:")

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
