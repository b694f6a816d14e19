package servers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// installFixture is a scratch cache for scripts/install-servers.sh that
// already holds the downloaded sources of builds (a stand-in upstream
// tarball each), and a folder with a stand-in make for PATH that writes a
// <family>-server answering --version. The stand-in make's behaviour is
// chosen by FAKE_MAKE in the script's environment:
//   - wait-other: leave a mark, then wait (at most 20 s) until another
//     build's mark is there too, which only parallel builds pass quickly;
//   - slow: append the build's name to makes.log, then sleep FAKE_MAKE_SLEEP
//     seconds before writing the binaries.
//
// It needs root (the script refuses otherwise) and the build packages
// already installed (it must not reach apt): it skips otherwise.
type installFixture struct {
	script, cache, fake string
}

func newInstallFixture(t *testing.T, builds ...string) *installFixture {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("scripts/install-servers.sh needs root")
	}
	for _, p := range []string{"build-essential", "dpkg-dev", "pkg-config", "xz-utils", "libssl-dev"} {
		if out, _ := exec.Command("dpkg-query", "-W", "-f=${db:Status-Status}", p).Output(); string(out) != "installed" {
			t.Skipf("%s is not installed: the script would run apt-get", p)
		}
	}
	script, err := filepath.Abs("../../scripts/install-servers.sh")
	if err != nil {
		t.Fatal(err)
	}
	f := &installFixture{script: script, cache: t.TempDir(), fake: t.TempDir()}
	for _, b := range builds {
		src := filepath.Join(f.cache, "src", b)
		tree := filepath.Join(t.TempDir(), b, "src")
		for _, dir := range []string{src, tree} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		tarball := filepath.Join(src, strings.Replace(b, "-", "_", 1)+".orig.tar.gz")
		if out, err := exec.Command("tar", "-czf", tarball, "-C", filepath.Dir(filepath.Dir(tree)), b).CombinedOutput(); err != nil {
			t.Fatalf("tar: %v %s", err, out)
		}
		os.WriteFile(filepath.Join(src, ".complete"), nil, 0o644)
	}
	// make -C TREE ...: the build's name is the folder above the tree
	// (build/NAME.XXXXXX/tree), without its random suffix.
	makeScript := `#!/bin/sh
tree=$2; name=$(basename "$(dirname "$tree")"); name=${name%.*}; fam=${name%%-*}; ver=${name#*-}
case $fam in redis) Fam=Redis ;; *) Fam=Valkey ;; esac
case $FAKE_MAKE in
wait-other)
	touch "` + f.fake + `/$name.started"
	i=0; while [ "$(ls ` + f.fake + `/*.started | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
	[ $i -lt 200 ] || echo "make: the other build never started" >&2 ;;
slow)
	echo "make: compiling $name"
	echo "$name" >>"` + f.fake + `/makes.log"
	sleep "$FAKE_MAKE_SLEEP" ;;
esac
mkdir -p "$tree/src"
for f in server cli benchmark; do
	printf '#!/bin/sh\necho "%s server v=%s sha=00000000:0"\n' "$Fam" "$ver" >"$tree/src/$fam-$f"
	chmod 755 "$tree/src/$fam-$f"
done
`
	if err := os.WriteFile(filepath.Join(f.fake, "make"), []byte(makeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// command is the install script with args on the fixture's cache, in a
// process group of its own (so a test can kill the whole build), ended by
// ctx's deadline.
func (f *installFixture) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", append([]string{f.script}, args...)...)
	cmd.Env = append(os.Environ(), "RESPCHECK_CACHE="+f.cache, "PATH="+f.fake+":"+os.Getenv("PATH"), "RESPCHECK_SERIAL_BUILDS=", "RESPCHECK_BUILD_SLOTS=")
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs the script to its end (at most 60 s) and fails the test if it fails.
func (f *installFixture) run(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := f.command(ctx, env, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("install-servers.sh %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestInstallScriptBuildsInParallel: two source builds run in child
// processes at once, each is stamped with tls=yes and its source's SHA-256,
// a second run finds both cached, and --list names them.
func TestInstallScriptBuildsInParallel(t *testing.T) {
	builds := []string{"redis-8.0.6", "valkey-8.1.1"}
	f := newInstallFixture(t, builds...)
	env := []string{"FAKE_MAKE=wait-other"}
	out := f.run(t, env, "--only", strings.Join(builds, ","))
	logs := ""
	for _, b := range builds {
		stamp, err := os.ReadFile(filepath.Join(f.cache, "servers", b, ".stamp"))
		if err != nil || !strings.Contains(string(stamp), "tls=yes") || !strings.Contains(string(stamp), "upstream tarball only") ||
			!strings.Contains(string(stamp), "source-sha256="+sha256File(t, filepath.Join(f.cache, "src", b, strings.Replace(b, "-", "_", 1)+".orig.tar.gz"))) {
			t.Errorf("%s: stamp %q, %v\n%s", b, stamp, err, out)
		}
		l, _ := os.ReadFile(filepath.Join(f.cache, "logs", b+".log"))
		logs += string(l)
	}
	if strings.Contains(logs, "never started") {
		t.Errorf("the builds ran one after the other:\n%s", logs)
	}
	if out := f.run(t, env, "--only", strings.Join(builds, ",")); strings.Count(out, ": cached") != 2 {
		t.Errorf("second run:\n%s", out)
	}
	if out := f.run(t, nil, "--list"); !strings.Contains(out, "redis-8.0.6 8.0.6 ") || !strings.Contains(out, "valkey-8.1.1 8.1.1 ") {
		t.Errorf("--list:\n%s", out)
	}
	// Another source tarball (a new pin, a corrected download) is built again.
	tarball := filepath.Join(f.cache, "src", "redis-8.0.6", "redis_8.0.6.orig.tar.gz")
	if err := os.WriteFile(tarball, append(readFile(t, tarball), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := f.run(t, env, "--only", "redis-8.0.6"); strings.Contains(out, ": cached") {
		t.Errorf("a changed source tarball was taken as cached:\n%s", out)
	}
}

// TestTwoInstallersAtOnce: two install-servers.sh started at once on one
// cache both succeed; the build runs once, the second says what it waits
// for and whose it is, and finds the build done. While the build runs,
// --list names it as in progress and not as installed.
func TestTwoInstallersAtOnce(t *testing.T) {
	f := newInstallFixture(t, "redis-8.0.6")
	env := []string{"FAKE_MAKE=slow", "FAKE_MAKE_SLEEP=3"}
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			out, err := f.command(ctx, env, "--only", "redis-8.0.6").CombinedOutput()
			outs[i] = string(out)
			if err != nil {
				t.Errorf("installer %d: %v\n%s", i, err, out)
			}
		}()
	}
	list := waitForMakes(t, f, 1)
	if !strings.Contains(list, "redis-8.0.6 in-progress pid ") || strings.Contains(list, "redis-8.0.6 8.0.6 ") {
		t.Errorf("--list during the build:\n%s", list)
	}
	wg.Wait()
	both := outs[0] + outs[1]
	if !strings.Contains(both, "waiting for another installer (pid ") || !strings.Contains(both, "cached (built by another installer)") {
		t.Errorf("the second installer did not say it waited:\n%s\n----\n%s", outs[0], outs[1])
	}
	if makes := strings.Fields(string(readFile(t, filepath.Join(f.fake, "makes.log")))); len(makes) != 1 {
		t.Errorf("make ran %d times, want 1: %v", len(makes), makes)
	}
	if out := f.run(t, nil, "--list"); !strings.Contains(out, "redis-8.0.6 8.0.6 ") {
		t.Errorf("--list after both:\n%s", out)
	}
}

// TestWaiterKeepsTheBuildLog: an installer started while another one's
// build of the same server is in make waits for it and leaves its log
// alone (it emptied the log the build was writing, so a failing build
// showed a tail without make's output).
func TestWaiterKeepsTheBuildLog(t *testing.T) {
	f := newInstallFixture(t, "redis-8.0.6")
	env := []string{"FAKE_MAKE=slow", "FAKE_MAKE_SLEEP=3"}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := f.command(ctx, env, "--only", "redis-8.0.6")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitForMakes(t, f, 1)
	out := f.run(t, env, "--only", "redis-8.0.6")
	if err := first.Wait(); err != nil {
		t.Fatalf("the first installer: %v", err)
	}
	if !strings.Contains(out, "cached (built by another installer)") {
		t.Errorf("the second installer did not wait for the build:\n%s", out)
	}
	if l := string(readFile(t, filepath.Join(f.cache, "logs", "redis-8.0.6.log"))); !strings.Contains(l, "make: compiling redis-8.0.6") {
		t.Errorf("the build's log lost make's output:\n%s", l)
	}
}

// TestKilledBuildLeavesNothingInstalled: an installer killed during make
// leaves nothing that --list or the servers package calls installed; the
// next run builds it.
func TestKilledBuildLeavesNothingInstalled(t *testing.T) {
	f := newInstallFixture(t, "valkey-8.1.1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := f.command(ctx, []string{"FAKE_MAKE=slow", "FAKE_MAKE_SLEEP=30"}, "--only", "valkey-8.1.1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForMakes(t, f, 1)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if out := f.run(t, nil, "--list"); strings.Contains(out, "valkey-8.1.1") {
		t.Errorf("--list after a killed build:\n%s", out)
	}
	t.Setenv("RESPCHECK_CACHE", f.cache)
	if got, _ := Installed(); len(got) != 0 {
		t.Errorf("Installed() after a killed build = %v", got)
	}
	out := f.run(t, []string{"FAKE_MAKE=slow", "FAKE_MAKE_SLEEP=0"}, "--only", "valkey-8.1.1")
	if !strings.Contains(out, "valkey-8.1.1: built in") {
		t.Errorf("the build after a killed one:\n%s", out)
	}
	if left, _ := filepath.Glob(filepath.Join(f.cache, "build", "*")); len(left) != 0 {
		t.Errorf("build folders left: %v", left)
	}
}

// waitForMakes waits (at most 30 s) until the stand-in make has started n
// times, and returns --list's output at that moment.
func waitForMakes(t *testing.T, f *installFixture, n int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(f.fake, "makes.log")); len(strings.Fields(string(b))) >= n {
			return f.run(t, nil, "--list")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("make did not start %d times within 30 s", n)
	return ""
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("sha256sum", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))[0]
}
