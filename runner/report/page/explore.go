package page

import (
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/explore"
)

// exploreSection is one report of respcheck explore --format json as the page
// shows it: its findings in groups, each with its shrunk sequence and the
// two replies, B's first byte that departs from A's marked.
type exploreSection struct {
	Path   string
	Report *explore.JSONReport
	Groups []exploreGroup
}

// exploreGroup is one kind of finding: new differences, differences the
// bundled suite declares, faults of a server, replies their schema
// rejects.
type exploreGroup struct {
	Title, Note string
	Findings    []exploreFinding
}

// exploreFinding is one finding: Lines are its sequence, a command line
// each, every word whole and quoted (resp.Escape: redis-cli reads it
// back); Rows the reply to the last
// command on A, then on B (a fault: the target's own).
type exploreFinding struct {
	explore.JSONFinding
	Lines []string
	Rows  []diffRow
}

// newExploreSection is in's findings in their groups (empty groups left
// out).
func newExploreSection(in Input) *exploreSection {
	r := in.Explore
	var known, unknown []explore.JSONFinding
	for _, f := range r.Differences {
		if f.Known {
			known = append(known, f)
		} else {
			unknown = append(unknown, f)
		}
	}
	x := &exploreSection{Path: in.Path, Report: r}
	for _, g := range []struct {
		title, note string
		fs          []explore.JSONFinding
	}{
		{"Differences the bundled suite does not have", "Replies of " + r.B + " that differ from " + r.A + "'s where two servers of A's build agree.", unknown},
		{"Differences the bundled suite declares", "Commands for which the bundled suite already expects other replies from the two servers.", known},
		{"Faults of a server", "A server that crashed, froze, sent bytes that are not RESP, or answered one command with another number of replies.", r.Faults},
		{"Replies their schema rejects", "Replies of " + r.A + " that its build's reply schemas reject (--check-schema).", r.Schema},
	} {
		if len(g.fs) == 0 {
			continue
		}
		grp := exploreGroup{Title: g.title, Note: g.note}
		for _, f := range g.fs {
			grp.Findings = append(grp.Findings, newExploreFinding(f, r))
		}
		x.Groups = append(x.Groups, grp)
	}
	return x
}

// newExploreFinding is f with its command lines and reply rows.
func newExploreFinding(f explore.JSONFinding, r *explore.JSONReport) exploreFinding {
	ef := exploreFinding{JSONFinding: f}
	for _, words := range f.Sequence {
		quoted := make([]string, len(words))
		for i, w := range words {
			b, ok := unescape(w)
			quoted[i] = resp.Escape(b)
			if !ok {
				quoted[i] += "(not an escaped word in the report)"
			}
		}
		ef.Lines = append(ef.Lines, strings.Join(quoted, " "))
	}
	a, aok := unescape(f.A)
	b, bok := unescape(f.B)
	if f.A != "" {
		ef.Rows = append(ef.Rows, replyRow(r.A, a, aok))
	}
	if f.B != "" {
		row := replyRow(r.B, b, bok)
		if f.A != "" && aok && bok && string(a) != string(b) {
			row.Offset = resp.FirstDiff(a, b)
			row.Pre, row.Mark, row.Post = marked(b, row.Offset)
		}
		ef.Rows = append(ef.Rows, row)
	}
	return ef
}

// replyRow is one server's reply, its bytes escaped again (ok false: the
// report's text was not an escaped reply, shown as it is, said so).
func replyRow(server string, b []byte, ok bool) diffRow {
	row := diffRow{Servers: server, Pre: resp.Escape(b), Offset: -1, Size: len(b)}
	if !ok {
		row.Reason = "not an escaped reply in the report: shown as it is"
	}
	return row
}

// unescape reads back a word or a reply the JSON report holds escaped
// (resp.Escape, whose escapes are Go's: \" \\ \r \n \t \xNN); ok false
// (and s's own bytes) when s is not such a string.
func unescape(s string) ([]byte, bool) {
	u, err := strconv.Unquote(s)
	if err != nil || len(s) == 0 || s[0] != '"' {
		return []byte(s), false
	}
	return []byte(u), true
}
