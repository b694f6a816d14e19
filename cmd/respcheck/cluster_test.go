package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// TestClusterFlags: --cluster N starts a throwaway cluster that the run
// recognises (the cluster cases pass, a redirect is reported), and bad
// combinations are usage errors.
func TestClusterFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "2"}, "bad --cluster 2: a cluster needs at least 3 primaries"},
		{[]string{"--replicas", "1"}, "--replicas needs --cluster N"},
		{[]string{"--cluster", "3", "--addr", "127.0.0.1:1"}, "--cluster N starts a throwaway cluster"},
		{[]string{"--cluster", "3", "--server", "miniredis"}, "miniredis has no cluster mode"},
	} {
		code, _, errs := respcheck(t, append([]string{"run"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s; want %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
	code, out, errs := respcheck(t, "run", "--server", "redis-8.6.3", "--cluster", "3", "--run", "cluster/", "../../cases/suite/")
	if code != exitOK || !strings.Contains(out, "redirect: cluster/a slot migrating") || !strings.Contains(out, ", 0 failed") ||
		!strings.Contains(out, "redis 8.6.3 cluster 3x0 at 127.0.0.1:") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// TestClusterNodeKilledIsExit3: a primary killed (SIGKILL) while cases
// wait on every shard ends the run with exit 3, naming the node and its
// slots and the cases that were running; the time it took is logged (the
// watchdog's silence limit is the step timeout), not asserted.
func TestClusterNodeKilledIsExit3(t *testing.T) {
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	var b strings.Builder
	b.WriteString("suite: waits\ncases:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  - name: waits %d\n    steps: [{send: [BLPOP, \"{key}\", \"0\"], timeout: 1h}]\n", i)
	}
	f := writeFile(t, "waits.yaml", b.String())
	victim := cl.Nodes[2]
	go func() {
		time.Sleep(700 * time.Millisecond)
		victim.Kill()
	}()
	start := time.Now()
	code, out, errs := respcheck(t, "run", "--addr", cl.Nodes[0].Addr(), "--jobs", "8", "--timeout", "2s", f)
	t.Logf("exited %v after the start", time.Since(start))
	if code != exitServer {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(out+errs, "the cluster node "+victim.Addr()+" (primary of slots ") || !strings.Contains(out+errs, `"waits `) {
		t.Errorf("the node or the cases are not named:\n%s%s", out, errs)
	}
}

// TestClusterGoldens records the cluster, scripting and strings files on
// throwaway clusters (3 primaries, 1 replica each) twice and on a
// standalone server of the same build, then checks that the two cluster
// recordings are identical for diff, that a run on another cluster (other
// ports, ids and, with a random run id, other slots) matches them byte for
// byte, that the cluster's run matches the standalone goldens except for
// the steps and cases that depend on the topology (counted), and that a
// byte changed outside the normalised fields is reported by run --golden
// and by diff.
func TestClusterGoldens(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			// The two builds side by side: most of each one's time is
			// waiting for clusters to form and settle (81% idle here).
			t.Parallel()
			other := servers.ClusterForTest(t, build, servers.ClusterOptions{Primaries: 3, Replicas: 1})
			sel := []string{"--server", build, "--run", "^(cluster|scripting|strings)/"}
			dir := t.TempDir()
			a, b, s := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "standalone")
			// The three recordings side by side (each mostly waits on its
			// own throwaway cluster or server).
			recs := [][]string{
				{"record", "--cluster", "3", "--replicas", "1", "--out", a},
				{"record", "--cluster", "3", "--replicas", "1", "--passes", "1", "--out", b},
				{"record", "--passes", "1", "--out", s},
			}
			fails := make([]string, len(recs))
			var wg sync.WaitGroup
			for i, rec := range recs {
				wg.Go(func() {
					if code, out, errs := respcheck(t, append(rec, sel...)...); code != exitOK {
						fails[i] = fmt.Sprintf("%v: exit %d\n%s%s", rec, code, out, errs)
					}
				})
			}
			wg.Wait()
			for _, f := range fails {
				if f != "" {
					t.Fatal(f)
				}
			}
			if code, out, errs := respcheck(t, "diff", a, b); code != exitOK || !strings.Contains(out, "identical recordings") {
				t.Errorf("diff of two cluster recordings: exit %d\n%s%s", code, out, errs)
			}
			// Another cluster, a random run id: other slots, perhaps on
			// another shard.
			code, out, errs := respcheck(t, "run", "--addr", other.Nodes[0].Addr(), "--run", sel[3], "--golden", a)
			if code != exitOK || !regexp.MustCompile(`golden \S+ \(\S+ \S+ cluster 3x1\): [1-9]\d+ steps compared byte for byte, \d+ volatile steps checked by their expectation, 0 differ`).MatchString(out) {
				t.Errorf("run on another cluster against the goldens: exit %d\n%s%s", code, out, errs)
			}
			t.Log(lineWith(out, "steps compared"))
			code, out, errs = respcheck(t, "run", "--cluster", "3", "--replicas", "1", "--golden", s, sel[0], sel[1], sel[2], sel[3])
			if code != exitOK || !strings.Contains(out, " 0 differ") || !strings.Contains(out, "steps not compared: they expect one reply on a cluster and another on a standalone server") {
				t.Errorf("cluster run against the standalone goldens: exit %d\n%s%s", code, out, errs)
			}
			t.Log(lineWith(out, "steps compared"), "; ", lineWith(out, "not compared"))
			code, out, errs = respcheck(t, "diff", s, a)
			if code != exitOK || !strings.Contains(out, "cases one of them skipped for its topology") {
				t.Errorf("diff of the standalone and cluster recordings: exit %d\n%s%s", code, out, errs)
			}
			t.Log(lineWith(out, "note:"))

			// One byte outside the normalised fields: "-MOVED" becomes "-MOVEd".
			tampered := filepath.Join(dir, "tampered")
			os.MkdirAll(tampered, 0o755)
			for _, f := range []string{"cluster.golden", "scripting.golden", "strings.golden", "_server.golden"} {
				data, err := os.ReadFile(filepath.Join(a, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "cluster.golden" {
					data = bytes.Replace(data, []byte(`reply "-MOVED {slot} {addr:owner}\r\n"`), []byte(`reply "-MOVEd {slot} {addr:owner}\r\n"`), 1)
				}
				os.WriteFile(filepath.Join(tampered, f), data, 0o644)
			}
			code, out, errs = respcheck(t, "run", "--addr", other.Nodes[0].Addr(), "--run", sel[3], "--golden", tampered)
			if code != exitFindings || !strings.Contains(out, "reply differs from the golden at byte 5") || !strings.Contains(out, ", 1 differ") {
				t.Errorf("a changed byte: exit %d\n%s%s", code, out, errs)
			}
			code, out, _ = respcheck(t, "diff", a, tampered)
			if code != exitFindings || !strings.Contains(out, `"-MOVEd {slot} {addr:owner}\r\n"`) {
				t.Errorf("diff with a changed byte: exit %d\n%s", code, out)
			}
		})
	}
}

// lineWith is the first line of out that contains s.
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestClusterSeeds: --addr A,B and several -u URLs are seed nodes of a
// cluster: an unreachable one is skipped with a note and the first that
// answers is used; none answering is exit 3 naming each; seed URLs that
// differ in credentials are a usage error.
func TestClusterSeeds(t *testing.T) {
	cl := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	dead1, dead2 := deadAddr(t), deadAddr(t)
	live := cl.Nodes[1].Addr()
	sel := []string{"--run", "cluster/CLUSTER KEYSLOT"}
	for _, args := range [][]string{
		{"--addr", dead1 + "," + live},
		{"-u", "redis://" + dead1, "-u", "redis://" + live},
		{"-u", "redis://" + dead1 + ",redis://" + dead2 + ",redis://" + live},
	} {
		code, out, errs := respcheck(t, append(append([]string{"run"}, args...), sel...)...)
		if code != exitOK || !strings.Contains(errs, "note: seed "+dead1+" skipped: ") || !strings.Contains(out, "2 passed") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		t.Log(lineWith(errs, "note: seed"))
	}
	code, out, errs := respcheck(t, append([]string{"run", "--addr", dead1 + "," + dead2}, sel...)...)
	if code != exitServer || !strings.Contains(errs, "none of the 2 seed nodes answered: "+dead1+": ") || !strings.Contains(errs, "; "+dead2+": ") {
		t.Errorf("no seed answering: exit %d\n%s%s", code, out, errs)
	}
	t.Log(lineWith(errs, "none of"))
	code, _, errs = respcheck(t, append([]string{"run", "-u", "redis://:a@" + dead1 + ",redis://:b@" + live}, sel...)...)
	if code != exitUsage || !strings.Contains(errs, "the -u seed URLs differ") {
		t.Errorf("seeds with two passwords: exit %d\n%s", code, errs)
	}
}

// TestClusterAuthAndTLS runs the bundled cluster cases through -u on a
// cluster whose nodes require a password (requirepass, and masterauth for
// the replicas; all but the slot migration, whose MIGRATE has no AUTH)
// and on a TLS cluster (tls-port, tls-cluster and
// tls-replication yes): every case passes, and on the TLS cluster every
// redirect the run followed went to a TLS port.
func TestClusterAuthAndTLS(t *testing.T) {
	certs := servers.TestCerts(t)
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build+"/auth", func(t *testing.T) {
			cl := servers.ClusterForTest(t, build, servers.ClusterOptions{Primaries: 3, Replicas: 1,
				Server: servers.Options{ExtraArgs: []string{"--requirepass", "cl-pw", "--masterauth", "cl-pw"}}})
			// All but the case that migrates its slot: its MIGRATE sends no
			// AUTH, and the target node refuses it ("ERR Target instance
			// replied with error: NOAUTH Authentication required.").
			code, out, errs := respcheck(t, "run", "-u", "redis://:cl-pw@"+cl.Nodes[0].Addr(), "--allow-destructive", "--run", "^cluster/([^a]|a [^s]|a s[^l])")
			if code != exitOK || !strings.Contains(out, "28 passed, 0 failed, 0 skipped") || strings.Contains(out, "cl-pw") {
				t.Errorf("exit %d\n%s%s", code, out, errs)
			}
			t.Log(lineWith(out, "passed"))
			code, out, errs = respcheck(t, "run", "--addr", cl.Nodes[0].Addr(), "--run", "^cluster/")
			if code != exitServer || !strings.Contains(out+errs, "NOAUTH") {
				t.Errorf("without the password: exit %d\n%s%s", code, out, errs)
			}
		})
		t.Run(build+"/tls", func(t *testing.T) {
			cl := servers.ClusterForTest(t, build, servers.ClusterOptions{Primaries: 3, Replicas: 1, TLS: &certs})
			code, out, errs := respcheck(t, "run", "-u", "rediss://"+cl.TLSAddrs[1], "--tls-ca", certs.CA, "--allow-destructive", "--run", "^cluster/")
			if code != exitOK || !strings.Contains(out, ", 0 failed, 0 skipped") {
				t.Errorf("exit %d\n%s%s", code, out, errs)
			}
			redirects := 0
			for _, l := range strings.Split(out, "\n") {
				if _, to, ok := strings.Cut(l, "followed to "); ok && strings.HasPrefix(l, "redirect: ") {
					redirects++
					if !slices.Contains(cl.TLSAddrs, to) {
						t.Errorf("redirected to %s, not a TLS port %v: %s", to, cl.TLSAddrs, l)
					}
				}
			}
			if redirects == 0 {
				t.Errorf("no redirect followed:\n%s", out)
			}
			t.Log(lineWith(out, "passed"), "; ", redirects, " redirects, each to a TLS port")
		})
	}
}

// TestThrowawayClusterNodeDiesIsExit3: a node of a throwaway cluster
// (--cluster 3) that dies mid-run ends the run with exit 3 naming it; a
// cluster is not started again (respawn used to call the fleet's missing
// spawn function: a nil-pointer panic, exit 2, found by a fresh user with
// kill -9).
func TestThrowawayClusterNodeDiesIsExit3(t *testing.T) {
	f := writeFile(t, "dies.yaml", `suite: dies
cases:
  - name: the node crashes
    steps: [{send: [DEBUG, SEGFAULT], any: true}]
`)
	code, out, errs := respcheck(t, "run", "--server", "redis-8.6.3", "--cluster", "3", "--proto", "2", f)
	if code != exitServer || strings.Contains(errs, "panic") || !strings.Contains(out+errs, "the cluster node ") {
		t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
