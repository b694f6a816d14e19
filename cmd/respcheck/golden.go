package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
)

// goldenRun is run --golden DIR [--update]: it compares the run with the
// goldens of DIR, or (update) rewrites the goldens that changed.
type goldenRun struct {
	dir     *golden.Dir
	update  bool
	checker *golden.Checker
	files   []*cases.File
}

func openGolden(dir string, update bool, files []*cases.File) (*goldenRun, error) {
	d, err := golden.Load(dir)
	if err != nil {
		if !update {
			return nil, usageErr("--golden: %v", err)
		}
		d = &golden.Dir{Path: dir, Files: map[string]*golden.File{}}
	}
	g := &goldenRun{dir: d, update: update, files: files}
	g.checker = golden.NewChecker(d, files)
	return g, nil
}

// hook returns the runner's golden hook: none when updating (every reply is
// accepted and recorded).
func (g *goldenRun) hook() runner.GoldenChecker {
	if g.update {
		return nil
	}
	return g.checker
}

// finish prints the golden summary, or writes the updated goldens. Its error
// is the exit status for stale or missing goldens (2) when the run itself
// found nothing.
func (g *goldenRun) finish(w io.Writer, rep *runner.Report) error {
	if g.update {
		return g.write(w, rep)
	}
	compared, volatile, differ := g.checker.Counts()
	fmt.Fprintf(w, "golden %s (%s): %d steps compared byte for byte, %d volatile steps checked by their expectation, %d differ\n",
		g.dir.Path, g.dir.Server.Name(), compared, volatile, differ)
	live := golden.Server{Family: rep.Server.Family, Version: rep.Server.Version, Topology: golden.TopologyOf(rep.Topology)}
	if live.Name() != g.dir.Server.Name() {
		fmt.Fprintf(w, "golden: note: recorded on %s, the target is %s\n", g.dir.Server.Name(), live.Name())
	}
	if n := g.checker.ByTopology(); n > 0 {
		fmt.Fprintf(w, "golden: %d steps not compared: they expect one reply on a cluster and another on a standalone server\n", n)
	}
	problems := g.checker.Problems()
	for _, p := range problems {
		fmt.Fprintln(w, "golden: "+p)
	}
	switch {
	case (differ > 0 || len(problems) > 0) && live.Name() != g.dir.Server.Name():
		// --update refuses another server's directory.
		fmt.Fprintf(w, "golden: to keep %s's replies as goldens of their own: respcheck record --out DIR (same target and files)\n", live.Name())
	case differ > 0 || len(problems) > 0:
		fmt.Fprintf(w, "golden: to accept the server's replies as the new goldens: respcheck run --golden %s --update (same target and files)\n", g.dir.Path)
	}
	if len(problems) > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d stale or missing goldens in %s (not server failures)", len(problems), g.dir.Path)}
	}
	return nil
}

func (g *goldenRun) write(w io.Writer, rep *runner.Report) error {
	live := golden.Server{Family: rep.Server.Family, Version: rep.Server.Version, Topology: golden.TopologyOf(rep.Topology)}
	if g.dir.Server.Family != "" && live.Name() != g.dir.Server.Name() {
		// One directory holds one build's recordings (_server.golden
		// names it): writing another build's into it would mix them.
		return usageErr("--update: %s holds the recordings of %s, the target is %s: nothing written; record %s into a directory of its own (respcheck record --out DIR)",
			g.dir.Path, g.dir.Server.Name(), live.Name(), live.Name())
	}
	fresh := golden.FromReport(rep, g.files, "recorded")
	n := 0
	for i, f := range fresh {
		f.Server.Target = g.dir.Server.Target              // the header's record command: the directory's target
		golden.Carry(g.dir.Files[f.Base()], f, g.files[i]) // the cases --run left out keep their recordings
		m := golden.Merge(g.dir.Files[f.Base()], f)
		if m == nil {
			continue
		}
		path := filepath.Join(g.dir.Path, f.Base()+golden.Ext)
		if changed, err := golden.Write(path, m.Marshal()); err != nil {
			return &exitError{code: exitUsage, err: err}
		} else if changed {
			n++
			fmt.Fprintf(w, "golden: updated %s\n", path)
		}
	}
	fmt.Fprintf(w, "golden: %d files updated in %s\n", n, g.dir.Path)
	return nil
}
