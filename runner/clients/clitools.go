package clients

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// debianCLI is the redis-cli of Debian's redis-tools package.
const debianCLI = "/usr/bin/redis-cli"

// cliDrivers returns the command-line client configurations: the
// redis-cli or valkey-cli of every installed server build (each binary
// once: redis-7.0.15's is Debian's /usr/bin/redis-cli), then Debian's
// redis-cli if no build has it, each in the raw and the --no-raw format;
// and notes about pinned builds whose CLI is missing.
func cliDrivers() ([]Driver, []string) {
	tools, missing, notes := cliTools()
	var ds []Driver
	for _, t := range tools {
		ds = append(ds, newCLIDriver(t, false), newCLIDriver(t, true))
	}
	for _, m := range missing {
		notes = append(notes, m[0]+": "+m[1], m[0]+"[--no-raw]: "+m[1])
	}
	return ds, notes
}

// cliTools returns the CLI binaries, the labels of those missing with the
// reason ([label, reason]), and other notes.
func cliTools() ([]*cliTool, [][2]string, []string) {
	var tools []*cliTool
	var notes []string
	var missing [][2]string
	seen := map[string]bool{} // resolved binary paths
	labels := map[string]bool{}
	add := func(t *cliTool) {
		real, err := filepath.EvalSymlinks(t.bin)
		if err != nil {
			real = t.bin
		}
		switch {
		case seen[real]:
			return
		case labels[t.name+"-"+t.version]:
			notes = append(notes, t.name+"-"+t.version+" ("+t.bin+"): another binary of that version is listed already")
			return
		}
		seen[real], labels[t.name+"-"+t.version] = true, true
		tools = append(tools, t)
	}
	builds, err := servers.Installed()
	if err != nil {
		notes = append(notes, "command-line clients: "+err.Error())
	}
	var have []string
	for _, b := range builds {
		have = append(have, b.Name)
		name := b.Family + "-cli"
		bin := filepath.Join(filepath.Dir(b.Bin), name)
		if _, err := os.Stat(bin); err != nil {
			missing = append(missing, [2]string{name + "-" + b.Version, bin + " missing (run scripts/install-servers.sh)"})
			continue
		}
		add(&cliTool{name: name, family: b.Family, version: cliVersion(bin, b.Version), bin: bin,
			source: buildSource(b, bin)})
	}
	for _, p := range servers.Pinned {
		if !slices.Contains(have, p) {
			fam, ver, _ := strings.Cut(p, "-")
			missing = append(missing, [2]string{fam + "-cli-" + ver, "server build " + p + " not installed (run scripts/install-servers.sh)"})
		}
	}
	if _, err := os.Stat(debianCLI); err == nil {
		add(&cliTool{name: "redis-cli", family: "redis", version: cliVersion(debianCLI, "?"), bin: debianCLI,
			source: debianSource(debianCLI)})
	} else {
		notes = append(notes, "redis-cli (Debian redis-tools): "+debianCLI+" missing (apt-get install redis-tools)")
	}
	// A label another binary provides is not missing (redis-7.0.15's CLI
	// is Debian's).
	missing = slices.DeleteFunc(missing, func(m [2]string) bool { return labels[m[0]] })
	return tools, missing, notes
}

// cliVersion is the version `bin --version` prints ("redis-cli 8.6.3"),
// or def.
func cliVersion(bin, def string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if f := strings.Fields(string(out)); err == nil && len(f) >= 2 {
		return f[1]
	}
	return def
}

// buildSource says where a build's CLI comes from: a Debian package when
// the binary is one (redis-7.0.15 links Debian's), else the build and how
// scripts/install-servers.sh made it (its .stamp).
func buildSource(b servers.Build, bin string) string {
	if real, err := filepath.EvalSymlinks(bin); err == nil && strings.HasPrefix(real, "/usr/") {
		return debianSource(real) + ", server build " + b.Name
	}
	s := "server build " + b.Name
	if how := stampHow(filepath.Join(filepath.Dir(filepath.Dir(b.Bin)), ".stamp")); how != "" {
		s += " (" + how + ")"
	}
	return s
}

func stampHow(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if how, ok := strings.CutPrefix(sc.Text(), "how="); ok {
			return how
		}
	}
	return ""
}

// debianSources caches debianSource by path: dpkg-query -S reads every
// package's file list (about 0.3 s of CPU here), and a process that lists
// the CLIs more than once (the tests; a library embedding respcheck)
// asked it each time.
var debianSources sync.Map // path -> string

// debianSource is "Debian package P V" for a file dpkg knows, else its
// path.
func debianSource(path string) string {
	if s, ok := debianSources.Load(path); ok {
		return s.(string)
	}
	s := queryDebianSource(path)
	debianSources.Store(path, s)
	return s
}

// queryDebianSource is debianSource, asked of dpkg-query.
func queryDebianSource(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "dpkg-query", "-S", path).Output()
	pkg, _, ok := strings.Cut(strings.TrimSpace(string(out)), ":")
	if err != nil || !ok {
		return path
	}
	ver, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return "Debian package " + pkg + " (" + path + ")"
	}
	return "Debian package " + pkg + " " + string(ver) + " (" + path + ")"
}
