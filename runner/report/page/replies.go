package page

import (
	"github.com/respcheck/respcheck/runner/replies"
)

// repliesSection is one report of respcheck clients --generate --format json as
// the page shows it: per client, the frames judged and its findings.
type repliesSection struct {
	Path    string
	Report  *replies.JSONReport
	Clients []repliesClient
	// Findings counts the findings of every client.
	Findings int
}

// repliesClient is one client's row: its label, the frames it was served
// and judged, and its findings (the shrunk frame, escaped, first).
type repliesClient struct {
	Name, Label    string
	Judged, Served int
	Findings       []replies.JSONFinding
}

// newRepliesSection is in's clients in the report's order, each with its
// findings.
func newRepliesSection(in Input) *repliesSection {
	r := in.Replies
	x := &repliesSection{Path: in.Path, Report: r, Findings: len(r.Findings)}
	for _, c := range r.Clients {
		rc := repliesClient{Name: c.Name, Label: c.Label(), Judged: r.Judged[c.Name], Served: r.Served[c.Name]}
		for _, f := range r.Findings {
			if f.Client == c.Name {
				rc.Findings = append(rc.Findings, f)
			}
		}
		x.Clients = append(x.Clients, rc)
	}
	return x
}
