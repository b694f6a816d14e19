package page

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
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

// unblockRun is a run report of one case in each protocol whose step
// sends CLIENT UNBLOCK with a captured client ID (id) and reads reply.
func unblockRun(version, id, reply string) Input {
	rep := &report.JSONReport{Server: target.Server{Family: "redis", Version: version}}
	for _, proto := range []int{2, 3} {
		args := []report.Bytes{report.Bytes("CLIENT"), report.Bytes("UNBLOCK"), report.Bytes(id)}
		sent := "*3\r\n$6\r\nCLIENT\r\n$7\r\nUNBLOCK\r\n$" + strconv.Itoa(len(id)) + "\r\n" + id + "\r\n"
		st := report.JSONStep{Index: 1, Pos: "x.yaml:9:5", Action: "send", Args: args, Captured: []int{2},
			Sent: report.Bytes(sent), Reply: report.Bytes(reply)}
		rep.Results = append(rep.Results, report.JSONResult{File: "suite/x.yaml", Case: "unblock", Proto: proto,
			Status: runner.Pass, KeyPrefix: "rc:{aaaaaaaa}:", Steps: []report.JSONStep{st}})
	}
	return Input{Path: version + "-" + id + ".json", Run: rep}
}

// TestCapturedValuesNotDifferences: two runs whose commands differ only in
// a captured client ID are not a difference (the page says one case was
// left out); a reply that differs too is one, listed once for RESP2 and
// RESP3 (the same bytes); a run of the first build again is not compared
// (a note names it), and the two runs of one build are told apart by
// their files' names, the first renamed too.
func TestCapturedValuesNotDifferences(t *testing.T) {
	p := Build([]Input{unblockRun("7.0.15", "30", ":1\r\n"), unblockRun("8.6.3", "114", ":1\r\n")})
	if len(p.Diffs) != 0 || len(p.DiffNotes) != 1 || !strings.HasPrefix(p.DiffNotes[0], "2 cases whose commands differ only in what a run chooses") {
		t.Errorf("same replies, other client IDs: diffs %+v, notes %q", p.Diffs, p.DiffNotes)
	}
	p = Build([]Input{unblockRun("7.0.15", "30", ":1\r\n"), unblockRun("8.6.3", "114", ":0\r\n"), unblockRun("7.0.15", "31", ":0\r\n")})
	if len(p.Diffs) != 1 || fmt.Sprint(p.Diffs[0].Protos) != "[2 3]" || p.Diffs[0].Servers != "redis 8.6.3" {
		t.Fatalf("replies differ: %d diffs %+v", len(p.Diffs), p.Diffs)
	}
	if s := p.Diffs[0].Steps; len(s) != 1 || s[0].What != "reply" || len(s[0].Rows) != 2 {
		t.Errorf("the differing step: %+v", s)
	}
	for _, f := range p.Files {
		for _, c := range f.Cases {
			if c.Diff != p.Diffs[0].ID {
				t.Errorf("case row %s RESP%d links to %q, want %q", c.Name, c.Proto, c.Diff, p.Diffs[0].ID)
			}
		}
	}
	if len(p.DiffNotes) != 1 || !strings.Contains(p.DiffNotes[0], "is the same build as redis 7.0.15") {
		t.Errorf("notes %q", p.DiffNotes)
	}
	names := fmt.Sprint(p.Servers[0].Name, "|", p.Servers[1].Name, "|", p.Servers[2].Name)
	if names != "redis 7.0.15 run (7.0.15-30.json)|redis 8.6.3|redis 7.0.15 run (7.0.15-31.json)" {
		t.Errorf("column names %s", names)
	}
}

// unblockGolden is a golden directory of build version whose case sends
// CLIENT verb with client ID id (a golden file does not say the ID was
// captured) and reads reply, in each protocol.
func unblockGolden(version, verb, id, reply string) Input {
	srv := golden.Server{Family: "redis", Version: version}
	f := &golden.File{Path: "suite/x.yaml", Server: srv}
	for _, proto := range []int{2, 3} {
		sent := golden.NewBlob(resp.AppendCommand(nil, []byte("CLIENT"), []byte(verb), []byte(id)))
		rep := golden.NewBlob([]byte(reply))
		f.Cases = append(f.Cases, &golden.Case{Name: "unblock", Proto: proto, Status: "pass", Prefix: "rc:{cccccccc}:",
			Steps: []*golden.Step{{Index: 1, Action: "send", CaseLine: 9, Sent: &sent, Reply: &rep}}})
	}
	return Input{Path: "goldens/" + version, Golden: &golden.Dir{Path: "goldens/" + version, Server: srv, Files: map[string]*golden.File{"x": f}}}
}

// TestCapturedValuesAgainstAGolden: a golden directory does not record
// which arguments were captured; the run's word masks them on both sides,
// so a golden of one build and a run of another that send other client
// IDs are not a difference, while another command (or the captured
// argument's neighbour differing) still is.
func TestCapturedValuesAgainstAGolden(t *testing.T) {
	p := Build([]Input{unblockGolden("7.0.15", "UNBLOCK", "7", ":1\r\n"), unblockRun("8.6.3", "114", ":1\r\n")})
	if len(p.Diffs) != 0 || len(p.DiffNotes) != 1 || !strings.HasPrefix(p.DiffNotes[0], "2 cases whose commands differ only in what a run chooses") {
		t.Errorf("golden and run, other client IDs: diffs %+v, notes %q", p.Diffs, p.DiffNotes)
	}
	p = Build([]Input{unblockRun("8.6.3", "114", ":1\r\n"), unblockGolden("7.0.15", "UNBLOCK", "7", ":1\r\n")})
	if len(p.Diffs) != 0 {
		t.Errorf("run first: diffs %+v, notes %q", p.Diffs, p.DiffNotes)
	}
	p = Build([]Input{unblockGolden("7.0.15", "UNBLOKK", "7", ":1\r\n"), unblockRun("8.6.3", "114", ":1\r\n")})
	if len(p.Diffs) != 1 || len(p.Diffs[0].Steps) != 1 || p.Diffs[0].Steps[0].What != "sent" {
		t.Errorf("another verb is a difference: %+v, notes %q", p.Diffs, p.DiffNotes)
	}
}

// TestSingleRunFailuresFirst: a run's own page (no path) says respcheck
// run made it and lists its failed case with the command sent, the key
// prefix normalised.
func TestSingleRunFailuresFirst(t *testing.T) {
	in := runOf("7.0.15", "rc:{aaaaaaaa}:", false, ":1\r\n")
	in.Path = ""
	r := &in.Run.Results[0]
	r.Status = runner.Fail
	r.Steps[0].Args = []report.Bytes{report.Bytes("GET"), report.Bytes("rc:{aaaaaaaa}:k")}
	r.Failure = &report.JSONFailure{Pos: r.Steps[0].Pos, Message: "reply differs", Expected: `":2\r\n"`, Offset: 1}
	p := Build([]Input{in})
	if p.MadeBy != "respcheck run" || len(p.Failures) != 1 || len(p.Failures[0].Cases) != 1 {
		t.Fatalf("made by %q, failures %+v", p.MadeBy, p.Failures)
	}
	f := p.Failures[0].Cases[0].Failure
	if f == nil || f.Command != `"GET" "rc:{________}:k"` || f.Mark != "1" {
		t.Errorf("failure %+v", f)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<code class="esc">&#34;GET&#34; &#34;rc:{________}:k&#34;</code> — reply differs</summary>`) {
		t.Errorf("the page does not list the failure with its command:\n%s", b.String())
	}
}

// TestCutRowsNotMerged: RESP2 and RESP3 entries whose rows keep only the
// head of long replies are not one entry, however alike the heads (their
// tails may differ); a failure heading names its column as the matrix
// does once every input is in (a second run of a build was added later).
func TestCutRowsNotMerged(t *testing.T) {
	long := func(version, tail string) Input {
		in := unblockRun(version, "30", ":1\r\n")
		for i := range in.Run.Results {
			r := &in.Run.Results[i]
			r.Steps[0].Reply = report.Bytes(strings.Repeat("x", 100))
			r.Steps[0].ReplySize = 5000 + len(tail) + r.Proto
			r.Steps[0].ReplyTruncated = true
		}
		return in
	}
	p := Build([]Input{long("7.0.15", ""), long("8.6.3", "y")})
	if len(p.Diffs) != 2 {
		t.Errorf("cut replies: %d entries, want one per protocol", len(p.Diffs))
	}
	failed := unblockRun("7.0.15", "30", ":1\r\n")
	failed.Run.Results[0].Status = runner.Fail
	p = Build([]Input{failed, unblockRun("7.0.15", "31", ":1\r\n")})
	if len(p.Failures) != 1 || p.Failures[0].Server != p.Servers[0].Name || p.Servers[0].Name != "redis 7.0.15 run (7.0.15-30.json)" {
		t.Errorf("failures on %q, columns %+v", p.Failures[0].Server, p.Servers)
	}
}

// TestShardsOneColumn: the parts of a run split with --shard (1/2 and
// 2/2 of one build) are one column holding both parts' cases, compared
// as one recording with another build's run; a part given twice, or the
// parts of two selections (--run, --tags, files), are not merged.
func TestShardsOneColumn(t *testing.T) {
	part := func(version, shard, name, reply string) Input {
		in := runOf(version, "rc:{aaaaaaaa}:", false, reply)
		in.Run.Shard, in.Run.Selection = shard, "whole"
		in.Run.Results[0].Case = name
		in.Path = version + "-" + strings.ReplaceAll(shard, "/", "of") + ".json"
		return in
	}
	p := Build([]Input{part("7.0.15", "1/2", "c", ":1\r\n"), part("7.0.15", "2/2", "d", ":2\r\n"),
		part("8.6.3", "1/2", "c", ":1\r\n"), part("8.6.3", "2/2", "d", ":3\r\n")})
	if len(p.Servers) != 2 || p.Servers[0].Sub() != "run, shards 1/2, 2/2" || p.Servers[0].Name != "redis 7.0.15" {
		t.Fatalf("columns %+v", p.Servers)
	}
	if len(p.Files) != 1 || len(p.Files[0].Cases) != 2 {
		t.Fatalf("files %+v", p.Files)
	}
	if len(p.Diffs) != 1 || p.Diffs[0].Case != "d" || p.Diffs[0].Servers != "redis 8.6.3" {
		t.Errorf("diffs %+v", p.Diffs)
	}
	p = Build([]Input{part("7.0.15", "1/2", "c", ":1\r\n"), part("7.0.15", "1/2", "c", ":1\r\n")})
	if len(p.Servers) != 2 || p.Servers[0].Sub() != "shard 1/2" {
		t.Errorf("the same part twice: columns %+v", p.Servers)
	}
	other := part("7.0.15", "2/2", "d", ":2\r\n")
	other.Run.Selection = "another"
	p = Build([]Input{part("7.0.15", "1/2", "c", ":1\r\n"), other})
	if len(p.Servers) != 2 {
		t.Errorf("parts of two selections: columns %+v", p.Servers)
	}
}

// TestProtectionInColumn: a run against an existing server says under its
// column's name which protection it had (runner.Protection in its JSON
// report); a throwaway server's run says nothing of it.
func TestProtectionInColumn(t *testing.T) {
	user := runOf("8.6.3", "rc:{aaaaaaaa}:", false, ":1\r\n")
	user.Run.Protection = &runner.Protection{Guard: true, ACLUser: "respcheck-run-1-2", ACLRules: []string{"on"}}
	alone := runOf("7.0.15", "rc:{aaaaaaaa}:", false, ":1\r\n")
	alone.Run.Protection = &runner.Protection{Guard: true, ACLRefused: "NOPERM"}
	alone.Path = "alone.json"
	throwaway := runOf("8.0.6", "rc:{aaaaaaaa}:", false, ":1\r\n")
	throwaway.Path = "throwaway.json"
	p := Build([]Input{user, alone, throwaway})
	var subs []string
	for _, s := range p.Servers {
		subs = append(subs, s.Sub())
	}
	want := []string{"run, shared server: guard and ACL user", "run, shared server: guard alone", "run"}
	if !slices.Equal(subs, want) {
		t.Errorf("column lines %q, want %q", subs, want)
	}
}
