package servers

import (
	"bytes"
	"context"
	"debug/elf"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// pinnedTSV is pinned.tsv: a line a pinned build (name, install kind,
// Debian source package, version, suite), read by scripts/install-servers.sh
// and scripts/record-goldens too.
//
//go:embed pinned.tsv
var pinnedTSV string

// Pinned lists the builds that scripts/install-servers.sh installs and that
// CI requires, by Build.Name, in pinned.tsv's order ("redis-7.0.15", ...,
// "valkey-9.1.2").
var Pinned = pinnedNames(pinnedTSV)

// FromBinaryPackage reports whether the pinned build name is installed from
// Debian binary packages (install "apt" or "backports" in pinned.tsv:
// redis-7.0.15, valkey-8.0.1), which ship no source tree and so no command
// files (reply schemas, argument docs).
func FromBinaryPackage(name string) bool {
	for _, line := range strings.Split(pinnedTSV, "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[0] == name && !strings.HasPrefix(line, "#") {
			return f[1] == "apt" || f[1] == "backports"
		}
	}
	return false
}

// pinnedNames is the first column of pinned.tsv's lines that are not
// comments; it panics on a line without five columns (a broken file fails
// every test at once).
func pinnedNames(tsv string) []string {
	var names []string
	for i, line := range strings.Split(tsv, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			panic(fmt.Sprintf("runner/servers/pinned.tsv:%d: %d columns, want 5 (name install package version suite)", i+1, len(f)))
		}
		names = append(names, f[0])
	}
	return names
}

// installHint is the command that installs the pinned builds.
const installHint = "scripts/install-servers.sh"

// Build is one installed server binary.
type Build struct {
	Name    string // "redis-7.0.15"
	Family  string // "redis" or "valkey"
	Version string // "7.0.15"
	Bin     string // absolute path to the *-server binary
}

// TLS reports whether the binary was built with TLS (it links OpenSSL's
// libssl: Debian's packages do, and scripts/install-servers.sh builds the
// source builds with BUILD_TLS=yes); a build without it refuses
// --tls-port ("Failed finding TLS support").
func (b Build) TLS() bool {
	f, err := elf.Open(b.Bin)
	if err != nil {
		return false
	}
	defer f.Close()
	libs, _ := f.ImportedLibraries()
	return slices.ContainsFunc(libs, func(l string) bool { return strings.HasPrefix(l, "libssl.so") })
}

// cacheDir returns the directory that scripts/install-servers.sh installs
// into: $RESPCHECK_CACHE when set, else ~/.cache/respcheck.
func cacheDir() string {
	if d := os.Getenv("RESPCHECK_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "respcheck-cache")
	}
	return filepath.Join(home, ".cache", "respcheck")
}

// Installed returns the builds installed under cacheDir()/servers, sorted by
// family, then by version (numerically). A build counts as installed when its
// .stamp file and its <family>-server binary exist; unfinished or broken
// installs are left out. A missing servers directory is no error.
func Installed() ([]Build, error) {
	root, err := filepath.Abs(filepath.Join(cacheDir(), "servers"))
	if err != nil {
		return nil, fmt.Errorf("servers: %w", err)
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("servers: list installed builds: %w", err)
	}
	var out []Build
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		family, version, ok := strings.Cut(name, "-")
		if !ok || (family != "redis" && family != "valkey") {
			continue
		}
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, ".stamp")); err != nil {
			continue
		}
		bin := filepath.Join(dir, "bin", family+"-server")
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			continue
		}
		out = append(out, Build{Name: name, Family: family, Version: version, Bin: bin})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return out[i].Family < out[j].Family
		}
		return compareVersions(out[i].Version, out[j].Version) < 0
	})
	return out, nil
}

// Find returns the installed build with the given Name, such as
// "valkey-9.1.2".
func Find(name string) (Build, error) {
	builds, err := Installed()
	if err != nil {
		return Build{}, err
	}
	var prefixed []Build
	for _, b := range builds {
		if b.Name == name {
			return b, nil
		}
		if strings.HasPrefix(b.Name, name) {
			prefixed = append(prefixed, b)
		}
	}
	if len(prefixed) == 1 && !slices.Contains(Pinned, name) {
		return prefixed[0], nil // "valkey-9.1" for valkey-9.1.2
	}
	if !slices.Contains(Pinned, name) {
		var have []string
		for _, b := range builds {
			have = append(have, b.Name)
		}
		e := &UnknownBuildError{Name: name, Installed: have}
		for _, b := range prefixed {
			e.Matches = append(e.Matches, b.Name)
		}
		return Build{}, e
	}
	return Build{}, fmt.Errorf("servers: build %s is not installed under %s; run %s --only %s",
		name, filepath.Join(cacheDir(), "servers"), installHint, name)
}

// UnknownBuildError is Find's error for a name that is neither a pinned
// build nor the unambiguous prefix of an installed one: a mistake of the
// user's, not of the machine's.
type UnknownBuildError struct {
	Name      string
	Installed []string // names of the installed builds
	Matches   []string // installed builds it is a prefix of, when several
}

// Error names the pinned and the installed builds.
func (e *UnknownBuildError) Error() string {
	if len(e.Matches) > 1 {
		return fmt.Sprintf("servers: %s could be any of %s: name one", e.Name, strings.Join(e.Matches, ", "))
	}
	return fmt.Sprintf("servers: %s is not a build respcheck installs (pinned: %s; installed: %s); "+
		"use --server-bin PATH for another redis-server or valkey-server, or --server miniredis",
		e.Name, strings.Join(Pinned, ", "), strings.Join(e.Installed, ", "))
}

// LookPath returns the redis-server, or else the valkey-server, found on
// PATH, identified by its --version output.
func LookPath() (Build, error) {
	for _, name := range []string{"redis-server", "valkey-server"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		return Identify(p)
	}
	return Build{}, fmt.Errorf("servers: neither redis-server nor valkey-server is on PATH; " +
		"install one (apt-get install redis-server) or the pinned builds (" + installHint + ")")
}

var versionRE = regexp.MustCompile(`(?m)^(Redis|Valkey) server v=(\S+)`)

// Identify runs bin --version and returns the build it reports, from output
// such as "Redis server v=7.0.15 sha=..." or "Valkey server v=9.1.2 ...".
// Bin is made absolute but symlinks are kept: Debian's valkey-server is a
// symlink to valkey-check-rdb, which acts as the server only when started
// under the server's name.
func Identify(bin string) (Build, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return Build{}, fmt.Errorf("servers: identify %s: %w", bin, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, abs, "--version")
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if out = bytes.TrimSpace(out); len(out) > 0 {
			return Build{}, fmt.Errorf("servers: identify %s: %s --version: %w: %s", bin, abs, err, out)
		}
		return Build{}, fmt.Errorf("servers: identify %s: %s --version: %w", bin, abs, err)
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return Build{}, fmt.Errorf("servers: identify %s: unrecognised --version output %q", bin, bytes.TrimSpace(out))
	}
	family := strings.ToLower(string(m[1]))
	version := string(m[2])
	return Build{Name: family + "-" + version, Family: family, Version: version, Bin: abs}, nil
}

// compareVersions compares dotted versions numerically ("7.0.15" < "8.6.3").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y string
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		xn, xerr := strconv.Atoi(x)
		yn, yerr := strconv.Atoi(y)
		switch {
		case xerr == nil && yerr == nil && xn != yn:
			if xn < yn {
				return -1
			}
			return 1
		case (xerr != nil || yerr != nil) && x != y:
			return strings.Compare(x, y)
		}
	}
	return 0
}

// major returns the leading number of a version, or -1.
func major(version string) int {
	s, _, _ := strings.Cut(version, ".")
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// acceptsDebugFlag reports whether the build knows --enable-debug-command,
// which Redis added in 7.0 (Valkey forked from 7.2 and has it in every
// release).
func acceptsDebugFlag(b Build) bool {
	switch b.Family {
	case "valkey":
		return true
	case "redis":
		return major(b.Version) >= 7
	}
	return false
}
