package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// fileState says how a case file relates to its golden.
type fileState int

// The file states.
const (
	current       fileState = iota // the golden was recorded from this case file, or from one whose cases say the same
	stale                          // the case file changed since: some of its cases (Checker.StaleCases) differ from their recordings or have none
	missingGolden                  // there is no golden for this case file
)

// Checker compares a run with a golden directory; it implements
// runner.GoldenChecker (set it as runner.Options.Golden).
type Checker struct {
	Dir   *Dir
	files map[*cases.File]*File
	state map[*cases.File]fileState
	// stale holds the cases of a stale file that are not compared, each
	// with why; its other cases are.
	stale map[*cases.Case]string

	mu       sync.Mutex
	compared int // steps compared byte for byte
	volatile int // steps compared by their expectation only
	differ   int // steps whose bytes differed
	topology int // steps not compared: they expect one thing on a cluster, another standalone
}

// NewChecker prepares a Checker for the case files of a run. A case file
// whose hash differs from its golden's is stale, but only its cases that
// changed (cases.Case.Hash against the case's recorded SHA256) or were
// added since are left uncompared; the others are compared as recorded.
// A golden recorded before cases had hashes is stale as a whole.
func NewChecker(d *Dir, files []*cases.File) *Checker {
	c := &Checker{Dir: d, files: map[*cases.File]*File{}, state: map[*cases.File]fileState{}, stale: map[*cases.Case]string{}}
	for _, f := range files {
		g := d.Files[baseOf(f.Path)]
		switch {
		case g == nil:
			c.state[f] = missingGolden
			continue
		case g.SHA256 == f.Hash:
			c.state[f] = current
			c.files[f] = g
			continue
		}
		c.state[f] = current
		c.files[f] = g
		for _, k := range f.Cases {
			if why := caseStale(g, k); why != "" {
				c.stale[k] = why
				c.state[f] = stale
			}
		}
	}
	return c
}

// caseStale says why case k cannot be compared with its recordings in g,
// or "" when it can.
func caseStale(g *File, k *cases.Case) string {
	n := 0
	for _, gc := range g.Cases {
		if gc.Name != k.Name {
			continue
		}
		n++
		switch gc.SHA256 {
		case "":
			return "the golden predates per-case hashes and its file changed"
		case k.Hash:
		default:
			return "changed since it was recorded"
		}
	}
	if n == 0 {
		return "not recorded"
	}
	return ""
}

// State returns the state of a case file's golden.
func (c *Checker) State(f *cases.File) fileState { return c.state[f] }

// StaleCases returns the cases of f that are not compared with its golden,
// each with why ("changed since it was recorded", "not recorded", ...).
func (c *Checker) StaleCases(f *cases.File) map[*cases.Case]string {
	out := map[*cases.Case]string{}
	for k, why := range c.stale {
		if k.File == f {
			out[k] = why
		}
	}
	return out
}

// maxStaleListed is how many stale cases of one file Problems names.
const maxStaleListed = 5

// Problems lists the stale and missing goldens, one line each, sorted (a
// stale golden with the cases that are not compared); the last line ends
// with the respcheck record command that records again every case file
// the directory holds goldens of, and the missing ones
// (Dir.RecordCommand).
func (c *Checker) Problems() []string {
	var out, missing, vars []string
	for f, s := range c.state {
		vars = append(vars, f.Vars...) // the command records every file again
		path := filepath.Join(c.Dir.Path, baseOf(f.Path)+Ext)
		switch s {
		case stale:
			g := c.Dir.Files[baseOf(f.Path)]
			out = append(out, fmt.Sprintf("stale golden %s: recorded from %s with sha256 %.12s…, the file is now %.12s…; not compared: %s",
				path, g.Path, g.SHA256, f.Hash, c.staleList(f)))
		case missingGolden:
			out = append(out, fmt.Sprintf("missing golden %s for %s", path, f.Path))
			missing = append(missing, f.Path)
		}
	}
	sort.Strings(out)
	if len(out) > 0 {
		what := "to record " + c.Dir.Path + " again"
		if len(missing) > 0 {
			what += ", with the missing ones"
		}
		cmd := c.Dir.RecordCommand(missing...)
		slices.Sort(vars)
		for _, v := range slices.Compact(vars) {
			// Each command of a joined pair needs the variables.
			cmd = strings.ReplaceAll(cmd, " --out ", " --var "+v+"=VALUE --out ")
		}
		out[len(out)-1] += "; " + what + ": " + cmd
	}
	return out
}

// staleList names the stale cases of f, in file order (maxStaleListed at
// most, then how many more), or says that all of them are.
func (c *Checker) staleList(f *cases.File) string {
	var names []string
	for _, k := range f.Cases {
		if why, ok := c.stale[k]; ok {
			names = append(names, fmt.Sprintf("%q (%s)", k.Name, why))
		}
	}
	if len(names) == len(f.Cases) {
		return fmt.Sprintf("all its cases (%s)", c.stale[f.Cases[0]])
	}
	if len(names) > maxStaleListed {
		names = append(names[:maxStaleListed], fmt.Sprintf("%d more", len(names)-maxStaleListed))
	}
	return fmt.Sprintf("%d of %d cases: %s", len(c.StaleCases(f)), len(f.Cases), strings.Join(names, ", "))
}

// Counts returns how many steps were compared byte for byte, how many were
// volatile (checked by their expectation only), and how many differed.
func (c *Checker) Counts() (compared, volatile, differ int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compared, c.volatile, c.differ
}

// ByTopology returns how many steps were not compared because the run and
// the recording are one a cluster and the other a standalone server, and
// the step expects one thing on a cluster and another standalone (see
// byTopology).
func (c *Checker) ByTopology() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.topology
}

// CheckStep implements runner.GoldenChecker: the live reply (and pushes),
// normalised as recorded bytes are (the case's key prefix replaced by
// Placeholder; on a cluster, the node ids, addresses, ports and the case's
// slot, see cluster.go), must equal the recorded bytes, unless the step is
// volatile (see Volatile; a step the recording marked volatile is too).
// Steps of stale or missing goldens, and steps the recording does not
// have, are not compared; nor, when one of the run and the recording is a
// cluster and the other a standalone server, the steps whose expectation
// differs between the two (byTopology).
func (c *Checker) CheckStep(s runner.GoldenStep) *runner.Failure {
	g := c.files[s.Case.File]
	if g == nil || c.stale[s.Case] != "" {
		return nil
	}
	gc := g.Find(s.Case.Name, s.Proto)
	if gc == nil {
		return nil
	}
	gs := gc.Step(s.Step.Index)
	if gs == nil || gs.Reply == nil {
		return nil
	}
	if gs.Volatile || Volatile(s.Step, s.Expect) {
		c.mu.Lock()
		c.volatile++
		c.mu.Unlock()
		return nil
	}
	if (s.Topology != nil) != g.Server.IsCluster() {
		info := target.Server{Family: g.Server.Family, Version: g.Server.Version, RedisVersion: g.Server.RedisVersion}.Info(s.Proto)
		if gs.ByTopology || byTopology(s.Step, info) {
			c.mu.Lock()
			c.topology++
			c.mu.Unlock()
			return nil
		}
	}
	where := fmt.Sprintf("%s:%d", filepath.Join(c.Dir.Path, g.Base()+Ext), gs.Line)
	f := c.compare(gs, s, where, g.Server.Name())
	c.mu.Lock()
	c.compared++
	if f != nil {
		c.differ++
	}
	c.mu.Unlock()
	return f
}

func (c *Checker) compare(gs *Step, s runner.GoldenStep, where, server string) *runner.Failure {
	z := newNorm(s.Topology, s.KeyPrefix)
	live := z.reply(s.Reply, s.Args)
	if f := diffBlob(*gs.Reply, live); f != nil {
		f.Message = fmt.Sprintf("golden %s (recorded on %s): %s", where, server, f.Message)
		return f
	}
	if len(gs.Pushes) != len(s.Pushes) {
		return &runner.Failure{Offset: -1, Actual: live,
			Expected: fmt.Sprintf("%d out-of-band push frames", len(gs.Pushes)),
			Message:  fmt.Sprintf("golden %s (recorded on %s): %d push frames arrived before the reply, the recording has %d", where, server, len(s.Pushes), len(gs.Pushes))}
	}
	for i, p := range s.Pushes {
		if f := diffBlob(gs.Pushes[i], z.reply(p, s.Args)); f != nil {
			f.Message = fmt.Sprintf("golden %s (recorded on %s): push %d: %s", where, server, i+1, f.Message)
			return f
		}
	}
	return nil
}

// diffBlob compares recorded bytes with live (normalised) bytes; nil if
// equal. The offset is exact when the recording holds every byte, and
// within the head or at the end otherwise.
func diffBlob(want Blob, live []byte) *runner.Failure {
	if want.Full() {
		if bytes.Equal(want.Data, live) {
			return nil
		}
		off := resp.FirstDiff(want.Data, live)
		return &runner.Failure{Expected: resp.Escape(want.Data), ExpectedBytes: want.Data, Actual: live, Offset: off,
			Message: fmt.Sprintf("reply differs from the golden at byte %d", off)}
	}
	sum := sha256.Sum256(live)
	if len(live) == want.Size && hex.EncodeToString(sum[:]) == want.SHA256 {
		return nil
	}
	f := &runner.Failure{Expected: blobText(want), Actual: live, Offset: -1}
	head := live[:min(len(live), len(want.Data))]
	switch {
	case !bytes.Equal(head, want.Data):
		f.Offset = resp.FirstDiff(want.Data, head)
		f.Message = fmt.Sprintf("reply differs from the golden at byte %d", f.Offset)
	case len(live) != want.Size:
		f.Offset = min(len(live), want.Size)
		f.Message = fmt.Sprintf("reply is %d bytes, the golden's is %d (differs at byte %d at the latest)", len(live), want.Size, f.Offset)
	default:
		f.Message = fmt.Sprintf("reply differs from the golden after byte %d (the golden keeps only the first %d bytes of this %d-byte reply, and its SHA-256)",
			len(want.Data)-1, len(want.Data), want.Size)
	}
	return f
}

// Merge returns the goldens to write after an update run: for each file of
// fresh, the fresh recording if it differs from old (by equivalent), else
// nil. Volatile marks and key prefixes of old carry over to fresh: a run
// with another run id (any run on a shared server) does not rewrite the
// prefix line of every case.
func Merge(old *File, fresh *File) *File {
	if old != nil {
		for _, c := range fresh.Cases {
			oc := old.Find(c.Name, c.Proto)
			if oc == nil {
				continue
			}
			if oc.Prefix != "" {
				c.Prefix = oc.Prefix
			}
			for _, s := range c.Steps {
				if os := oc.Step(s.Index); os != nil && os.Volatile {
					s.Volatile = true
				}
			}
		}
		if equivalent(old, fresh) {
			return nil
		}
	}
	return fresh
}

// equivalent reports whether two recordings agree on everything but the
// bytes of volatile steps and the cases' key prefixes.
func equivalent(a, b *File) bool {
	if a.Path != b.Path || a.SHA256 != b.SHA256 || a.Server.Name() != b.Server.Name() || a.Server.Source != b.Server.Source || len(a.Cases) != len(b.Cases) {
		return false
	}
	for i, ca := range a.Cases {
		cb := b.Cases[i]
		if ca.Name != cb.Name || ca.Proto != cb.Proto || ca.Status != cb.Status || ca.SHA256 != cb.SHA256 || len(ca.Steps) != len(cb.Steps) {
			return false
		}
		for j, sa := range ca.Steps {
			sb := cb.Steps[j]
			if sa.Index != sb.Index || sa.Action != sb.Action || sa.Volatile != sb.Volatile {
				return false
			}
			if !sa.Volatile && !sameReply(sa, sb) {
				return false
			}
		}
	}
	return true
}
