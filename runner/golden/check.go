package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
)

// FileState says how a case file relates to its golden.
type FileState int

// The file states.
const (
	Current FileState = iota // the golden was recorded from this case file
	Stale                    // the case file changed since (its SHA-256 differs)
	Missing                  // there is no golden for this case file
)

// Checker compares a run with a golden directory; it implements
// runner.GoldenChecker (set it as runner.Options.Golden).
type Checker struct {
	Dir   *Dir
	files map[*cases.File]*File
	state map[*cases.File]FileState

	mu       sync.Mutex
	compared int // steps compared byte for byte
	volatile int // steps compared by their expectation only
	differ   int // steps whose bytes differed
	topology int // steps not compared: they expect one thing on a cluster, another standalone
}

// NewChecker prepares a Checker for the case files of a run.
func NewChecker(d *Dir, files []*cases.File) *Checker {
	c := &Checker{Dir: d, files: map[*cases.File]*File{}, state: map[*cases.File]FileState{}}
	for _, f := range files {
		g := d.Files[baseOf(f.Path)]
		switch {
		case g == nil:
			c.state[f] = Missing
		case g.SHA256 != f.Hash:
			c.state[f] = Stale
		default:
			c.state[f] = Current
			c.files[f] = g
		}
	}
	return c
}

// State returns the state of a case file's golden.
func (c *Checker) State(f *cases.File) FileState { return c.state[f] }

// Problems lists the stale and missing goldens, one line each, sorted; the
// last line ends with the respcheck record command that records again every
// case file the directory holds goldens of, and the missing ones
// (Dir.RecordCommand).
func (c *Checker) Problems() []string {
	var out, missing []string
	for f, s := range c.state {
		path := filepath.Join(c.Dir.Path, baseOf(f.Path)+Ext)
		switch s {
		case Stale:
			g := c.Dir.Files[baseOf(f.Path)]
			out = append(out, fmt.Sprintf("stale golden %s: recorded from %s with sha256 %.12s…, the file is now %.12s…",
				path, g.Path, g.SHA256, f.Hash))
		case Missing:
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
		out[len(out)-1] += "; " + what + ": " + c.Dir.RecordCommand(missing...)
	}
	return out
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
// ByTopology).
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
// differs between the two (ByTopology).
func (c *Checker) CheckStep(s runner.GoldenStep) *runner.Failure {
	g := c.files[s.Case.File]
	if g == nil {
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
		info := cases.ServerInfo{Family: g.Server.Family, Proto: s.Proto}
		info.Version, _ = cases.ParseVersion(g.Server.Version)
		if gs.ByTopology || ByTopology(s.Step, info) {
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
// fresh, the fresh recording if it differs from old (by Equivalent), else
// nil. Volatile marks of old carry over to fresh.
func Merge(old *File, fresh *File) *File {
	if old != nil {
		for _, c := range fresh.Cases {
			oc := old.Find(c.Name, c.Proto)
			if oc == nil {
				continue
			}
			for _, s := range c.Steps {
				if os := oc.Step(s.Index); os != nil && os.Volatile {
					s.Volatile = true
				}
			}
		}
		if Equivalent(old, fresh) {
			return nil
		}
	}
	return fresh
}

// Equivalent reports whether two recordings agree on everything but the
// bytes of volatile steps.
func Equivalent(a, b *File) bool {
	if a.Path != b.Path || a.SHA256 != b.SHA256 || a.Server.Name() != b.Server.Name() || a.Server.Source != b.Server.Source || len(a.Cases) != len(b.Cases) {
		return false
	}
	for i, ca := range a.Cases {
		cb := b.Cases[i]
		if ca.Name != cb.Name || ca.Proto != cb.Proto || ca.Status != cb.Status || len(ca.Steps) != len(cb.Steps) {
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
