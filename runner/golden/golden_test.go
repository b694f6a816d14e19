package golden

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

func TestUnquoteReversesEscape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		got, err := unquote(resp.Escape(b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("unquote(Escape(%x)) = %x, %v", b, got, err)
		}
	}
}

func TestMarshalParseRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("x\r\n"), 3000)
	sent, reply, push := NewBlob([]byte("*1\r\n$4\r\nPING\r\n")), NewBlob(big), NewBlob([]byte(">2\r\n$1\r\na\r\n$1\r\nb\r\n"))
	f := &File{Path: "suite/x.yaml", SHA256: strings.Repeat("ab", 32), Server: Server{Family: "redis", Version: "7.0.15", Source: "recorded"},
		Cases: []*Case{{Name: `a "quoted" name`, Proto: 3, Status: "skip", Reason: "requires DIGEST", Prefix: "rc:{01234567}:",
			Steps: []*Step{{Index: 0, Action: "send", Conn: "sub", CaseLine: 7, Volatile: true, Sent: &sent, Pushes: []Blob{push}, Reply: &reply},
				{Index: 1, Action: "sleep"}, {Index: 2, Action: "send", Conn: "default", Async: true, Sent: &sent}}}}}
	text := f.Marshal()
	g, err := Parse("x.golden", text)
	if err != nil {
		t.Fatal(err)
	}
	if again := g.Marshal(); !bytes.Equal(again, text) {
		t.Fatalf("Marshal(Parse(text)) differs:\n%s\n---\n%s", text, again)
	}
	if !bytes.Contains(text, []byte("reply size=9000 sha256=")) {
		t.Errorf("a %d-byte reply is not stored as size and hash:\n%s", len(big), text)
	}
	if !equivalent(f, g) {
		t.Error("equivalent(f, Parse(Marshal(f))) = false")
	}
}

// bundledSubset is a fast part of the bundled suite.
func bundledSubset(t *testing.T) []*cases.File {
	t.Helper()
	all, err := cases.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	var files []*cases.File
	for _, f := range all {
		switch baseOf(f.Path) {
		case "strings", "nil", "errors", "transactions":
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no bundled files")
	}
	return files
}

func record(t *testing.T, addr string, files []*cases.File) *Dir {
	t.Helper()
	rep, err := runner.Run(context.Background(), files, runner.Options{Addr: addr, Shared: true, AllowDestructive: true})
	if err != nil {
		t.Fatal(err)
	}
	d := &Dir{Path: t.TempDir(), Files: map[string]*File{}}
	for _, g := range FromReport(rep, files, "recorded") {
		// Through the text format, as a golden on disk would be.
		p, err := Parse(g.Base(), g.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		d.Files[g.Base()] = p
		d.Server = g.Server
	}
	return d
}

func check(t *testing.T, addr string, files []*cases.File, d *Dir) (*runner.Report, *Checker) {
	t.Helper()
	c := NewChecker(d, files)
	// Another run id than the recording's: keys differ, goldens still match.
	rep, err := runner.Run(context.Background(), files, runner.Options{Addr: addr, RunID: "0badc0de", Shared: true,
		AllowDestructive: true, Golden: c})
	if err != nil {
		t.Fatal(err)
	}
	return rep, c
}

func TestRecordThenCompareChangedByteAndStale(t *testing.T) {
	srv := servers.ForTest(t, "redis-7.0.15")
	files := bundledSubset(t)
	d := record(t, srv.Addr(), files)

	rep, c := check(t, srv.Addr(), files, d)
	compared, _, differ := c.Counts()
	if rep.Summary.Failed != 0 || rep.Summary.Errors != 0 || differ != 0 || compared < 50 {
		for _, r := range rep.Results {
			if r.Status == runner.Fail || r.Status == runner.Error {
				t.Errorf("%s [RESP%d]: %s", r.Case.Name, r.Proto, r.Reason)
			}
		}
		t.Fatalf("same server: summary %+v, %d compared, %d differ", rep.Summary, compared, differ)
	}

	// Change byte 3 of the first non-volatile reply of at least 5 bytes
	// that is not its case's last.
	var changed *Step
	var inCase *Case
	for _, cs := range d.Files["strings"].Cases {
		for i, s := range cs.Steps {
			if changed == nil && i < len(cs.Steps)-1 && !s.Volatile && s.Reply != nil && s.Reply.Full() && s.Reply.Size >= 5 {
				changed, inCase = s, cs
			}
		}
	}
	if changed == nil {
		t.Fatal("no reply to change")
	}
	data := append([]byte(nil), changed.Reply.Data...)
	data[3] ^= 0x20
	*changed.Reply = NewBlob(data)
	rep, c = check(t, srv.Addr(), files, d)
	var fail *runner.Failure
	for _, r := range rep.Results {
		if r.Status == runner.Fail {
			if fail != nil || r.Case.Name != inCase.Name || r.Proto != inCase.Proto {
				t.Errorf("unexpected failure %s [RESP%d]: %s", r.Case.Name, r.Proto, r.Reason)
			}
			fail = r.Failure
			// A difference from the golden alone does not stop the
			// case: its later steps ran (and were compared).
			if len(r.Steps) < len(r.Case.Steps) {
				t.Errorf("%s: %d of %d steps ran after the golden difference", r.Case.Name, len(r.Steps), len(r.Case.Steps))
			}
		}
	}
	if fail == nil {
		t.Fatal("a changed golden byte was not reported")
	}
	if fail.Offset != 3 || !strings.Contains(fail.Message, "at byte 3") || !strings.Contains(fail.Message, "strings.golden:") {
		t.Errorf("failure = offset %d, %q; want offset 3 and the golden's file:line", fail.Offset, fail.Message)
	}
	if _, _, differ := c.Counts(); differ != 1 {
		t.Errorf("differ = %d, want 1", differ)
	}

	// A golden recorded from another version of the case file whose
	// cases say the same (a comment changed) is current...
	d.Files["nil"].SHA256 = strings.Repeat("0", 64)
	var nilFile *cases.File
	for _, f := range files {
		if baseOf(f.Path) == "nil" {
			nilFile = f
		}
	}
	if c = NewChecker(d, files); c.State(nilFile) != current || len(c.Problems()) != 0 {
		t.Errorf("only the file's hash changed: State = %v, problems %q", c.State(nilFile), c.Problems())
	}
	// ... and stale once its cases changed.
	for _, gc := range d.Files["nil"].Cases {
		gc.SHA256 = strings.Repeat("0", 64)
	}
	c = NewChecker(d, files)
	if c.State(nilFile) != stale {
		t.Errorf("State = %v, want stale", c.State(nilFile))
	}
	p := c.Problems()
	if len(p) != 1 || !strings.Contains(p[0], "stale golden") || !strings.Contains(p[0], "nil.golden") {
		t.Errorf("Problems = %q", p)
	}
	rep, err := runner.Run(context.Background(), []*cases.File{nilFile}, runner.Options{Addr: srv.Addr(), Golden: c})
	if err != nil {
		t.Fatal(err)
	}
	if compared, _, _ := c.Counts(); compared != 0 || rep.Summary.Failed != 0 {
		t.Errorf("stale golden: %d steps compared, %d failed; want 0, 0", compared, rep.Summary.Failed)
	}
}

const ifeqCase = `suite: IFEQ on two servers
cases:
  - name: SET IFEQ on a missing key
    steps:
      - send: [SET, "{key}", v, IFEQ, x]
        expect:
          - {when: "redis<8", error: "ERR syntax error"}
          - {reply: {resp2: "$-1\r\n", resp3: "_\r\n"}}
      - send: [PING]
        reply: "+PONG\r\n"
`

func TestDiffOfOwnCaseOnTwoServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ifeq.yaml")
	if err := os.WriteFile(path, []byte(ifeqCase), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := cases.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := record(t, servers.ForTest(t, "redis-7.0.15").Addr(), []*cases.File{f})
	b := record(t, servers.ForTest(t, "redis-8.6.3").Addr(), []*cases.File{f})
	ch := Diff(a, b, DiffOptions{})
	if len(ch) != 2 {
		t.Fatalf("Diff = %+v, want the IFEQ step in both protocols", ch)
	}
	for _, c := range ch {
		if c.File != "ifeq" || c.Step != 0 || c.What != "reply" || c.A != `"-ERR syntax error\r\n"` ||
			(c.B != `"$-1\r\n"` && c.B != `"_\r\n"`) || c.CLIA != "(error) ERR syntax error" || c.CLIB != "(nil)" {
			t.Errorf("change = %+v", c)
		}
	}
	var out bytes.Buffer
	writeDiff(&out, ch, "redis-7.0.15", "redis-8.6.3")
	if !strings.Contains(out.String(), `step 0 (line 5) reply: SET rc:{________}:key v IFEQ x`) {
		t.Errorf("writeDiff:\n%s", out.String())
	}
	if len(Diff(a, a, DiffOptions{})) != 0 {
		t.Error("Diff(a, a) is not empty")
	}
}

func TestDiffCommittedGoldens(t *testing.T) {
	root := "../../testdata/golden/"
	a, err := Load(root + "redis-7.0.15")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(root + "redis-8.6.3")
	if err != nil {
		t.Fatal(err)
	}
	ifeq := regexp.MustCompile(`\bIF(EQ|NE|DEQ|DNE)\b`)
	var digest, condSet int
	for _, c := range Diff(a, b, DiffOptions{}) {
		if c.Step < 0 {
			continue
		}
		switch {
		case c.File == "digest" && strings.Contains(c.Command, "DIGEST"):
			digest++
		case c.File == "conditional-set" && ifeq.MatchString(c.Command):
			condSet++
		}
	}
	if digest == 0 || condSet == 0 {
		t.Errorf("diff redis-7.0.15 redis-8.6.3: %d DIGEST steps, %d conditional SET steps; want both listed", digest, condSet)
	}
}
