package page

import (
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

// runOf is a run report of one case whose steps have the given replies,
// its keys under prefix; without indexes, as reports were before steps had
// them, when noIndex.
func runOf(version, prefix string, noIndex bool, replies ...string) Input {
	res := report.JSONResult{File: "suite/x.yaml", Case: "c", Proto: 2, Status: runner.Pass, KeyPrefix: prefix}
	for i, r := range replies {
		st := report.JSONStep{Index: 2 * i, Pos: "x.yaml:" + string(rune('3'+i)) + ":5", Action: "send",
			Sent: report.Bytes("GET " + prefix + "k\r\n"), Reply: report.Bytes(strings.ReplaceAll(r, "P:", prefix))}
		if noIndex {
			st.Index = 0
		}
		if r == "volatile" {
			st.Reply, st.Volatile = report.Bytes(":"+version+"\r\n"), true
		}
		res.Steps = append(res.Steps, st)
	}
	rep := &report.JSONReport{Server: target.Server{Family: "redis", Version: version}, Results: []report.JSONResult{res}}
	return Input{Path: version + ".json", Run: rep}
}

// TestRunDiffs compares two run reports: the key prefixes (different per
// run) are normalised in sent bytes and replies, a volatile step is not
// compared, and the differing step keeps its index (2 * position here; the
// position for a report without indexes).
func TestRunDiffs(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		a := runOf("1", "rc:{aaaaaaaa}:", noIndex, "$16\r\nP:k\r\n", "volatile", ":1\r\n")
		b := runOf("2", "rc:{bbbbbbbb}:", noIndex, "$16\r\nP:k\r\n", "volatile", ":2\r\n")
		p := Build([]Input{a, b})
		if len(p.Diffs) != 1 || len(p.Diffs[0].Steps) != 1 {
			t.Fatalf("noIndex %v: %d diffs: %+v", noIndex, len(p.Diffs), p.Diffs)
		}
		s := p.Diffs[0].Steps[0]
		want := 4
		if noIndex {
			want = 2
		}
		if s.Index != want || s.What != "reply" || s.Line != 5 || len(s.Rows) != 2 || s.Rows[1].Offset != 1 || s.Rows[1].CLI != "(integer) 2" {
			t.Errorf("noIndex %v: step %+v", noIndex, s)
		}
	}
}
