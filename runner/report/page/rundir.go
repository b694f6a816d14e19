package page

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/report"
)

// runDir is the recording a run report holds, as a golden directory, so
// that the differences between runs (and between a run and a golden
// directory) come from golden.Diff as those between golden directories
// do: one File per case file (keyed by base name), its cases in report
// order, each step at its index (report.JSONStep.Index; a report written
// before steps had one gets the steps' positions instead), volatile as
// the run marked it, every byte string with the case's key prefix
// (report.JSONResult.KeyPrefix) replaced by golden.Placeholder. A cluster
// run's node addresses and ports are not normalised: two cluster runs'
// replies naming nodes differ.
//
// The returned map says, by step, which arguments of a step's command
// carry a value captured from an earlier reply (report.JSONStep.Captured:
// a client ID), for sameMasked: two runs that send different client IDs
// send the same command.
func runDir(in Input) (*golden.Dir, map[stepRef][]int) {
	r := in.Run
	srv := golden.Server{Family: r.Server.Family, Version: r.Server.Version, RedisVersion: r.Server.RedisVersion, Source: "run report"}
	if r.Server.Mode == "cluster" {
		srv.Topology = "cluster"
	}
	d := &golden.Dir{Path: in.Path, Server: srv, Files: map[string]*golden.File{}}
	captured := map[stepRef][]int{}
	for _, res := range r.Results {
		base := strings.TrimSuffix(filepath.Base(res.File), filepath.Ext(res.File))
		f := d.Files[base]
		if f == nil {
			f = &golden.File{Path: res.File, Server: srv}
			d.Files[base] = f
		}
		c := &golden.Case{Name: res.Case, Proto: res.Proto, Status: res.Status.String(), Prefix: res.KeyPrefix,
			Reason: string(golden.Normalize([]byte(res.Reason), res.KeyPrefix))}
		indexed := stepsIndexed(res.Steps)
		for i, s := range res.Steps {
			gs := &golden.Step{Index: i, Action: s.Action, Conn: s.Conn, Volatile: s.Volatile, CaseLine: lineOf(s.Pos)}
			if indexed {
				gs.Index = s.Index
			}
			gs.Sent = runBlob(s.Sent, s.SentSize, res.KeyPrefix)
			if len(s.Captured) > 0 {
				captured[stepRef{diffKey{base, res.Case, res.Proto}, gs.Index}] = s.Captured
			}
			gs.Reply = runBlob(s.Reply, s.ReplySize, res.KeyPrefix)
			for _, p := range s.Pushes {
				gs.Pushes = append(gs.Pushes, *runBlob(p, 0, res.KeyPrefix))
			}
			c.Steps = append(c.Steps, gs)
		}
		f.Cases = append(f.Cases, c)
	}
	return d, captured
}

// capturedMask stands for an argument made from a captured value.
const capturedMask = "{captured}"

// stepsIndexed reports whether steps carry their indexes: strictly
// increasing (a report without them has every index 0).
func stepsIndexed(steps []report.JSONStep) bool {
	for i := 1; i < len(steps); i++ {
		if steps[i].Index <= steps[i-1].Index {
			return false
		}
	}
	return true
}

// runBlob is the Blob of bytes a run report kept (nil for none), the key
// prefix normalised; size is their whole size when the report kept only
// their head (0: b is whole). The SHA-256 of a head is the head's: two
// runs' replies of the same size whose first 64 KiB (report's cut) agree
// compare equal.
func runBlob(b report.Bytes, size int, prefix string) *golden.Blob {
	if b == nil {
		return nil
	}
	bl := golden.NewBlob(golden.Normalize(b, prefix))
	if size > bl.Size {
		bl.Size = size // a head: Full() says so, and it differs from a whole
	}
	return &bl
}

// lineOf is the line of a "file:line:col" position, or 0.
func lineOf(pos string) int {
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return 0
	}
	n, _ := strconv.Atoi(parts[len(parts)-2])
	return n
}
