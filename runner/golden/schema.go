package golden

import (
	"fmt"

	"github.com/respcheck/respcheck/runner/schema"
)

// Build names the directory's build as --server and the schema cache
// do ("redis-8.6.3", "miniredis"); "" when no file names its server.
func (d *Dir) Build() string {
	if d.Server.Family == "" {
		return ""
	}
	return buildName(d.Server)
}

// CheckSchemas checks every RESP3 reply d's cases recorded with set (the
// build's reply schemas) and returns the counts, the findings (Pos is
// "DIR/<file>.golden:LINE") and the schema branches the replies took.
// Out-of-band pushes answer no command and are not checked. The branches
// are recomputed from the recorded bytes each time: a golden stores no
// schema facts, so it cannot go stale when the schemas or the checker
// change.
func (d *Dir) CheckSchemas(set *schema.Set) *schema.Report {
	rep := schema.NewReport(set.Build, set, nil)
	for _, f := range d.Sorted() {
		path := d.FilePath(f)
		for _, c := range f.Cases {
			rep.StartCase(c.Proto)
			for _, s := range c.Steps {
				if s.Action == "push" {
					continue // an out-of-band push: no command's reply
				}
				io := schema.StepIO{Conn: s.Conn, Async: s.Async}
				if s.Sent != nil {
					io.Sent, io.SentCut = s.Sent.Data, !s.Sent.Full()
				}
				if s.Reply != nil {
					io.Reply, io.ReplyCut = s.Reply.Data, !s.Reply.Full()
				}
				at := schema.Located{Pos: fmt.Sprintf("%s:%d", path, s.Line), Case: c.Name, Step: s.Index}
				rep.Step(set, io, at)
			}
		}
	}
	return rep
}
