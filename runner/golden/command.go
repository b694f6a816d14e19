package golden

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/respcheck/respcheck/cases"
)

// bundled returns the paths of the suite files built into respcheck
// ("suite/strings.yaml"), which respcheck record records when given no
// files.
var bundled = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	files, _ := cases.Bundled()
	for _, f := range files {
		m[f.Path] = true
	}
	return m
})

// recordCommand returns the respcheck record command line that records the
// case files at paths (as loaded: "suite/strings.yaml" for a bundled file)
// into the golden directory dir, on the server build s, in the protocols
// protos (nil: both), with the target flags it was recorded with when it
// did not start an installed build (s.Target); a cluster's recording (s.Topology "cluster 3x1") on
// a throwaway cluster of that shape (--cluster 3 --replicas 1). Files of the bundled suite are named by --run (or not
// at all when they are the whole suite), since record reads them from
// respcheck itself; other files by their paths, relative to where they were
// recorded from. When paths mix both, the two commands are joined by " &&
// ". Which cases --run or --tags chose when recording is not known: the
// command records all of the files' cases.
func recordCommand(s Server, dir string, paths []string, protos []int) string {
	target := "--server " + buildName(s)
	switch {
	case s.Target != "":
		target = s.Target
	case s.Family == "":
		target = "--server BUILD"
	}
	spawned := s.Target == "" || strings.HasPrefix(s.Target, "--server-bin ")
	if shape, ok := strings.CutPrefix(s.Topology, "cluster "); ok && spawned {
		primaries, replicas, _ := strings.Cut(shape, "x")
		target += " --cluster " + primaries
		if replicas != "0" {
			target += " --replicas " + replicas
		}
	}
	base := []string{"respcheck record", target, "--out", ShellQuote(dir)}
	if len(protos) == 1 {
		base = append(base, "--proto", strconv.Itoa(protos[0]))
	}
	var suite, own []string
	for _, p := range paths {
		if bundled()[p] {
			suite = append(suite, p)
		} else {
			own = append(own, p)
		}
	}
	sort.Strings(suite)
	suite = slices.Compact(suite)
	sort.Strings(own)
	own = slices.Compact(own)
	for i, p := range own {
		own[i] = ShellQuote(p)
	}
	var cmds []string
	if len(suite) > 0 {
		cmd := slices.Clone(base)
		if len(suite) < len(bundled()) {
			var names []string
			for _, p := range suite {
				names = append(names, regexp.QuoteMeta(baseOf(p)))
			}
			cmd = append(cmd, "--run", ShellQuote("^("+strings.Join(names, "|")+")/"))
		}
		cmds = append(cmds, strings.Join(cmd, " "))
	}
	if len(own) > 0 {
		cmds = append(cmds, strings.Join(append(slices.Clone(base), own...), " "))
	}
	return strings.Join(cmds, " && ")
}

// RecordCommand returns the respcheck record command line that records
// again every case file the directory holds goldens of, and with extra,
// these case files too (see the function recordCommand).
func (d *Dir) RecordCommand(extra ...string) string {
	s := d.Server
	var paths []string
	for _, f := range d.Sorted() {
		paths = append(paths, f.Path)
		if s.Family == "" {
			s = f.Server
		}
	}
	return recordCommand(s, d.Path, append(paths, extra...), d.protos())
}

// protos returns the one protocol the directory's cases were recorded in,
// or nil for both (or none).
func (d *Dir) protos() []int {
	var out []int
	for _, f := range d.Files {
		out = append(out, f.protos()...)
	}
	return oneProto(out)
}

// protos returns the one protocol the file's cases were recorded in, or
// nil.
func (f *File) protos() []int {
	var out []int
	for _, c := range f.Cases {
		out = append(out, c.Proto)
	}
	return oneProto(out)
}

func oneProto(ps []int) []int {
	sort.Ints(ps)
	ps = slices.Compact(ps)
	if len(ps) != 1 {
		return nil
	}
	return ps
}

// buildName is the --server name of a recorded server: "redis-7.0.15", or
// "miniredis" for the embedded emulator.
func buildName(s Server) string {
	if s.Family == "miniredis" {
		return "miniredis"
	}
	return s.Family + "-" + s.Version
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// ShellQuote quotes s for a POSIX shell when it needs it. Text with
// control characters (a line break in a file name) is quoted as $'...' with
// escapes, as bash and zsh read it, so that the command stays on one line.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' || c == '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < ' ' || c == 0x7f:
				fmt.Fprintf(&b, "\\x%02x", c)
			default:
				b.WriteByte(c)
			}
		}
		return b.String() + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
