package golden

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestReportOfCommittedGoldens: the default report of redis-7.0.15 against
// redis-8.6.3 leads with the counts, shows the steps whose bytes differ in
// full, and lists the feature-gated cases (status, steps in 8.6.3 only) one
// line each, without their INFO dumps; -v shows everything.
func TestReportOfCommittedGoldens(t *testing.T) {
	a, err := Load("../../testdata/golden/redis-7.0.15")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("../../testdata/golden/redis-8.6.3")
	if err != nil {
		t.Fatal(err)
	}
	ch := Diff(a, b, DiffOptions{})
	files, total := Summarize(ch)
	if total.Total() != len(ch) || total.Changed == 0 || total.OnlyB < 100 || total.Status == 0 {
		t.Fatalf("Summarize: %+v of %d changes", total, len(ch))
	}
	sum := DiffCounts{}
	for _, f := range files {
		sum.Changed, sum.Status, sum.OnlyA, sum.OnlyB = sum.Changed+f.Changed, sum.Status+f.Status, sum.OnlyA+f.OnlyA, sum.OnlyB+f.OnlyB
	}
	if sum.Total() != total.Total() {
		t.Errorf("per file %+v, total %+v", sum, total)
	}
	var out bytes.Buffer
	opt := ReportOptions{NameA: "redis-7.0.15", NameB: "redis-8.6.3"}
	WriteReport(&out, ch, opt)
	text := out.String()
	lines := strings.Split(text, "\n")
	if len(lines) > 600 || strings.Contains(text, "cmdstat_") {
		t.Errorf("report of %d lines (INFO dumps: %v):\n%s", len(lines), strings.Contains(text, "cmdstat_"), text)
	}
	// The counts first, per file and in total.
	if !regexp.MustCompile(`^\n +changed +status +only in A +only in B\n  [a-z0-9-]+ +\d+`).MatchString(text) ||
		!regexp.MustCompile(fmt.Sprintf(`\n  total +%d +%d +%d +%d\n`, total.Changed, total.Status, total.OnlyA, total.OnlyB)).MatchString(text) {
		t.Errorf("summary:\n%s", strings.Join(lines[:min(len(lines), 14)], "\n"))
	}
	// Every step whose bytes differ, in full, with both sides.
	if !strings.Contains(text, fmt.Sprintf("\n%d steps whose bytes differ:\n", total.Changed)) {
		t.Errorf("no changed-steps section:\n%s", text)
	}
	// A long one from its first differing byte, on both sides.
	windows := 0
	for _, c := range ch {
		if !c.Changed() {
			continue
		}
		want := []string{shortEscaped(c.A), shortEscaped(c.B)}
		if wa, wb, off, ok := around(c.A, c.B); ok && (len(c.A) > shortBytes || len(c.B) > shortBytes) {
			want = []string{fmt.Sprintf("first differing byte: %d\n", off), wa.text, wb.text}
			windows++
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("changed step %s %q step %d: %q not shown", c.File, c.Case, c.Step, w)
			}
		}
	}
	help := regexp.MustCompile(`step 1 \(line \d+\) reply: CLIENT HELP\n +first differing byte: 1\n +redis-7\.0\.15: "\*48\\r\\n[^\n]*" …\(1818 more bytes\)\n {22}\^\n(?: .*\n)*? +redis-8\.6\.3:  "\*58\\r\\n[^\n]*" …\(2183 more bytes\)\n {22}\^\n`)
	if windows == 0 || !help.MatchString(text) {
		t.Errorf("%d long changes shown around their first differing byte; CLIENT HELP's not so:\n%s", windows, text)
	}
	if !strings.Contains(text, `redis-8.6.3:  "-ERR unknown command 'FOO'\r\n"`) || !strings.Contains(text, "(error) ERR unknown command 'FOO'") {
		t.Errorf("the unknown-command change is not shown escaped and as redis-cli prints it:\n%s", text)
	}
	// Then the cases one line each: DIGEST and conditional SET among them.
	digest := regexp.MustCompile(`(?m)^  digest "DIGEST is 16 lowercase hex characters, the XXH3-64 of the value" \[RESP2 RESP3\]: skip → pass \(redis-7\.0\.15: requires command DIGEST[^)]*\)\); steps 0-2 only in redis-8\.6\.3$`)
	condSet := regexp.MustCompile(`(?m)^  conditional-set "IFEQ with the current value writes and answers OK" \[RESP2 RESP3\]: skip → pass \(.*\); steps 0-2 only in redis-8\.6\.3$`)
	if !digest.MatchString(text) || !condSet.MatchString(text) {
		t.Errorf("the DIGEST and conditional SET cases are not listed one line each:\n%s", text)
	}

	out.Reset()
	opt.Verbose = true
	WriteReport(&out, ch, opt)
	if v := out.String(); !strings.Contains(v, "cmdstat_") || strings.Count(v, "\n") < 1000 ||
		!strings.Contains(v, "    step 1 (line 42) only in B: INFO commandstats\n") {
		t.Errorf("verbose report: %d lines", strings.Count(v, "\n"))
	}
}

func TestReportShortensLongReplies(t *testing.T) {
	long := `"$504\r\n# Commandstats\r\n` + strings.Repeat(`cmdstat_set:calls=1\r\n`, 30) + `"`
	raw, err := unquote(long)
	if err != nil {
		t.Fatal(err)
	}
	s, end := shortEscaped(long), fmt.Sprintf(`"… (%d bytes)`, len(raw))
	if !strings.HasSuffix(s, end) || len(s) > shortBytes+20 || strings.HasSuffix(strings.TrimSuffix(s, end), `\`) {
		t.Errorf("shortEscaped = %s", s)
	}
	// Never cut inside an escape: every cut of a run of \\ and \xNN escapes
	// unquotes.
	for pad := 0; pad < 8; pad++ {
		esc := `"` + strings.Repeat("a", pad) + strings.Repeat(`\\\xff`, 60) + `"`
		cut := strings.TrimSuffix(shortEscaped(esc), "… (")
		cut = cut[:strings.LastIndex(cut, `"`)+1]
		if _, err := unquote(cut); err != nil {
			t.Errorf("shortEscaped cuts inside an escape: %s: %v", cut, err)
		}
	}
	if s := shortEscaped(`"+OK\r\n"`); s != `"+OK\r\n"` {
		t.Errorf("short reply changed: %s", s)
	}
	cli := strings.TrimSuffix(strings.Repeat("line\n", 10), "\n")
	if got := shortCLI(cli); got != "line\nline\nline\nline\nline\nline\n… (4 more lines)" {
		t.Errorf("shortCLI = %q", got)
	}
	for in, want := range map[string]string{"0": "step 0", "0 1 2 5 7 8": "steps 0-2, 5, 7-8", "3 4": "steps 3-4"} {
		var st []int
		for _, f := range strings.Fields(in) {
			var n int
			fmt.Sscan(f, &n)
			st = append(st, n)
		}
		if got := stepList(st); got != want {
			t.Errorf("stepList(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestReportOfOneChangedStep: a difference in one step of one case shows
// that step, and a case only in one recording is one line.
func TestReportOfOneChangedStep(t *testing.T) {
	ok, changed := NewBlob([]byte("+OK\r\n")), NewBlob([]byte("-ERR no\r\n"))
	sent := NewBlob([]byte("*1\r\n$4\r\nPING\r\n"))
	mk := func(reply Blob, extra bool) *Dir {
		f := &File{Path: "suite/x.yaml", SHA256: "s", Cases: []*Case{{Name: "c", Proto: 2, Status: "pass",
			Steps: []*Step{{Index: 0, Action: "send", Sent: &sent, Reply: &ok}, {Index: 1, Action: "send", CaseLine: 9, Sent: &sent, Reply: &reply}}}}}
		if extra {
			f.Cases = append(f.Cases, &Case{Name: "new", Proto: 3, Status: "skip", Reason: "requires DIGEST"})
		}
		return &Dir{Files: map[string]*File{"x": f}}
	}
	ch := Diff(mk(ok, false), mk(changed, true), DiffOptions{})
	var out bytes.Buffer
	WriteReport(&out, ch, ReportOptions{NameA: "a", NameB: "b"})
	want := `
         changed  status  only in A  only in B
  x            1       0          0          1
  total        1       0          0          1

1 step whose bytes differ:

== x
  case "c" [RESP2]
    step 1 (line 9) reply: PING
      a: "+OK\r\n"
         OK
      b: "-ERR no\r\n"
         (error) ERR no

1 case recorded differently (status, steps in one recording only; -v shows every step):
  x "new" [RESP3]: whole case only in b (skip: requires DIGEST (0 steps))
`
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestCaretUnderMultibyteName: the caret under a long change's first
// differing byte stays under it when a side's name has multi-byte
// characters (labels are padded in characters, not bytes).
func TestCaretUnderMultibyteName(t *testing.T) {
	a := quote([]byte(strings.Repeat("x", 200) + "A"))
	b := quote([]byte(strings.Repeat("x", 200) + "B"))
	var out bytes.Buffer
	writeChanges(&out, []Change{{File: "f", Case: "c", Proto: 2, Step: 0, What: "reply", A: a, B: b}}, "données-7.0", "b", true)
	lines := strings.Split(out.String(), "\n")
	checked := 0
	for i, l := range lines {
		col := strings.Index(l, "^")
		if col < 0 || i == 0 {
			continue
		}
		text, at := []rune(lines[i-1]), len([]rune(l[:col]))
		if at >= len(text) || text[at] != 'A' && text[at] != 'B' {
			t.Errorf("caret at column %d is not under the differing byte:\n%s\n%s", at, lines[i-1], l)
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("%d carets:\n%s", checked, out.String())
	}
}
