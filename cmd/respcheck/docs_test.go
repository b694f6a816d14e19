package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/spf13/cobra"
)

// docFiles are the pages a user reads: the README and docs/*.md (paths
// from the repository's root), the generated matrices included.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	generated, _ := filepath.Glob("docs/generated/*.md")
	pages = append(pages, generated...)
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	return append([]string{"README.md"}, pages...)
}

// docCommand is one command line of a page: where it is, and its text
// with the shell's comment cut.
type docCommand struct {
	pos    string // file:line
	line   string
	inline bool // a code span in a sentence: a mention, whose last flag may go without its value
}

// The forms of the pages TestDocs reads: a command in a code span, a
// command line in a code block (after VAR=value words), a link, and a
// heading.
var (
	inlineCommand = regexp.MustCompile("`((?:bin/)?respcheck [^`]+|go test [^`]+|scripts/[a-z-]+(?:\\.sh)?(?: [^`]*)?)`")
	blockCommand  = regexp.MustCompile(`^(?:[A-Z_]+=\S+\s+)*((?:bin/|\./)?respcheck\s|go test\s|scripts/[a-z-]+(?:\.sh)?(?:\s|$))`)
	markdownLink  = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	headingLine   = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
)

// docCommands lists the command lines of page: the lines of its code
// blocks (fenced or indented) that run respcheck, go test or a script, a
// trailing backslash joining the next line, and the inline code spans
// that do.
func docCommands(t *testing.T, page string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	fenced := false
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		pos := fmt.Sprintf("%s:%d", page, i+1)
		if fenced || strings.HasPrefix(l, "    ") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
			text := strings.TrimSpace(l)
			for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i])
			}
			if m := blockCommand.FindStringSubmatchIndex(text); m != nil {
				out = append(out, docCommand{pos: pos, line: text[m[2]:]})
			}
			continue
		}
		for _, m := range inlineCommand.FindAllStringSubmatch(l, -1) {
			out = append(out, docCommand{pos: pos, line: m[1], inline: true})
		}
	}
	return out
}

// shellWords splits a command line as sh would for the words this test
// checks: quotes ('…', "…") group, a # outside them starts a comment,
// and the first |, >, <, ;, && or & outside them ends the command.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	flush := func() {
		if in {
			words = append(words, w.String())
			w.Reset()
			in = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !in, strings.ContainsRune("|<>;&", rune(c)):
			flush()
			return words
		default:
			w.WriteByte(c)
			in = true
		}
	}
	flush()
	return words
}

// placeholder reports whether a word stands for something the reader
// supplies: CASES..., FILE, NAME, <addr>, A, B, my-server:6379, …
func placeholder(w string) bool {
	w = strings.TrimPrefix(w, "--")
	if strings.ContainsAny(w, "<>…") || strings.Contains(w, "...") || strings.HasPrefix(w, "my-") || strings.Contains(w, "My") {
		return true
	}
	return strings.ToUpper(w) == w && strings.ToLower(w) != w
}

// repoPath reports whether a word names a file of the repository that
// must exist (not one the reader makes, such as report.html).
func repoPath(w string) bool {
	for _, dir := range []string{"cases/", "testdata/", "docs/", "adapters/", "scripts/", "cmd/", "runner/", "resp/"} {
		if strings.HasPrefix(w, dir) {
			return true
		}
	}
	return false
}

// checkRespcheck checks a respcheck command line against the command
// tree: the subcommand exists, every flag is one of its flags with a
// value of its type and, for a flag with a list of values, one of them,
// and every repository path it names exists. A mention (inline) may end
// with a flag without its value.
func checkRespcheck(root *cobra.Command, args []string, inline bool) error {
	root.InitDefaultHelpCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if c == root && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		return fmt.Errorf("unknown command %q", rest[0])
	}
	if c.Name() == "help" && len(rest) > 0 && !placeholder(rest[0]) {
		if topic, _, err := root.Find(rest); err != nil || topic == root {
			return fmt.Errorf("help %s: no such command or topic", rest[0])
		}
	}
	c.InitDefaultHelpFlag()
	fs := c.Flags()
	fs.AddFlagSet(c.InheritedFlags())
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if repoPath(a) && !placeholder(a) {
				if m, _ := filepath.Glob(a); len(m) == 0 {
					return fmt.Errorf("%s: no such file in the repository", a)
				}
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "--") && len(name) == 1 {
			f = fs.ShorthandLookup(name)
		}
		if f == nil {
			return fmt.Errorf("%s %s: unknown flag %s", root.Name(), c.Name(), a)
		}
		if f.NoOptDefVal != "" && !hasValue {
			continue // a boolean
		}
		if !hasValue {
			if i+1 >= len(rest) {
				if inline {
					return nil
				}
				return fmt.Errorf("flag %s wants a value", a)
			}
			i++
			value = rest[i]
		}
		vals, listed := f.Annotations[choicesKey]
		if f.Name == "server" {
			vals, listed = append(slices.Clone(servers.Pinned), "miniredis"), true
		}
		switch {
		case placeholder(value) && !(listed && slices.Contains(vals, strings.ToLower(value))):
			continue // FORMAT is one, JSON is a wrong json
		case listed && !slices.Contains(vals, value):
			return fmt.Errorf("flag %s: %q is not one of %v", a, value, vals)
		}
		if err := fs.Set(f.Name, value); err != nil {
			return fmt.Errorf("flag %s: %v", a, err)
		}
	}
	return nil
}

// testFuncs finds the names of pkg's test, benchmark and fuzz functions
// and the flag names its test files define ("update-report").
func testFuncs(t *testing.T, pkg string) (funcs []string, flags string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(pkg, "*_test.go"))
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			funcs = append(funcs, m[1])
		}
	}
	return funcs, src.String()
}

// checkGoTest checks a go test command line: its packages exist (./...
// is every package under the folder; none is every package of the
// repository), and each -run or -bench pattern's top-level alternatives
// name a function of them, matched as go test matches them (anchors
// kept), and each -update... flag is one a test of theirs defines.
func checkGoTest(t *testing.T, args []string) error {
	var pkgs, runs, benches, own []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case name == "-run" || name == "-bench":
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			if name == "-run" {
				runs = append(runs, value)
			} else {
				benches = append(benches, value)
			}
		case strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, a)
		case strings.HasPrefix(a, "-update"):
			own = append(own, strings.TrimPrefix(name, "-"))
		}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	var dirs []string
	for _, p := range pkgs {
		root, all := strings.CutSuffix(p, "/...")
		if p == "./..." {
			root, all = ".", true
		}
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return fmt.Errorf("%s: no such package", p)
		}
		if !all {
			dirs = append(dirs, root)
			continue
		}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
					return filepath.SkipDir
				}
				dirs = append(dirs, path)
			}
			return nil
		})
	}
	var funcs []string
	var src strings.Builder
	for _, d := range dirs {
		fs, s := testFuncs(t, d)
		funcs = append(funcs, fs...)
		src.WriteString(s)
	}
	for _, f := range own {
		if !strings.Contains(src.String(), `"`+f+`"`) {
			return fmt.Errorf("flag -%s: no test of %v defines it", f, pkgs)
		}
	}
	check := func(pattern, prefix string) error {
		top, _, _ := strings.Cut(pattern, "/")
		top = strings.Trim(top, "'")
		if inner, ok := strings.CutPrefix(top, "^("); ok {
			if inner, ok = strings.CutSuffix(inner, ")$"); ok {
				top = "^(?:" + inner + ")$"
			}
		}
		re, err := regexp.Compile(top)
		if err != nil {
			return fmt.Errorf("pattern %q: %v", pattern, err)
		}
		for _, alt := range strings.Split(strings.Trim(top, "^$()?:"), "|") {
			if alt == "" || alt == "." || placeholder(alt) {
				return nil
			}
		}
		for _, alt := range strings.Split(top, "|") {
			one := alt
			if strings.HasPrefix(top, "^(?:") {
				one = "^" + strings.Trim(alt, "^$()?:") + "$"
			}
			altRe, err := regexp.Compile(one)
			if err != nil {
				altRe = re
			}
			if !slices.ContainsFunc(funcs, func(f string) bool { return strings.HasPrefix(f, prefix) && altRe.MatchString(f) }) {
				what := "test"
				if prefix != "" {
					what = "benchmark"
				}
				return fmt.Errorf("pattern %q: no %s function of %v matches %q", pattern, what, pkgs, one)
			}
		}
		return nil
	}
	for _, r := range runs {
		if err := check(r, ""); err != nil {
			return err
		}
	}
	for _, b := range benches {
		if err := check(b, "Benchmark"); err != nil {
			return err
		}
	}
	return nil
}

// TestDocs keeps the README and docs/*.md true: every relative link
// resolves (to a file, and to a heading for a #fragment), every respcheck
// command line names a subcommand and flags that exist with values they
// take and repository files that exist, every go test line names packages,
// tests and flags that exist, every script it names is executable, and
// the command lines in code blocks that need no server (help, and diff,
// report and schema of committed goldens) run without a usage error, and
// no --help text sends the reader to a Go source. Commands that need a server or a client install
// are checked but not run: the tests that run each subcommand cover them.
func TestDocs(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	pages := docFiles(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := map[string]bool{}
		b, _ := os.ReadFile(page)
		fenced := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fenced = !fenced
			}
			if m := headingLine.FindStringSubmatch(l); m != nil && !fenced {
				a[slug(m[1])] = true
			}
		}
		anchors[page] = a
		return a
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range strings.Split(string(b), "\n") {
			for _, m := range markdownLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %s: no such file", page, n+1, target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
					t.Errorf("%s:%d: link %s: no heading of %s makes #%s", page, n+1, target, path, frag)
				}
				checked++
			}
		}
	}
	root := newRootCmd()
	commands, ran := 0, 0
	for _, page := range pages {
		for _, dc := range docCommands(t, page) {
			words := shellWords(dc.line)
			for len(words) > 0 && strings.Contains(words[0], "=") {
				words = words[1:] // VAR=value before the command
			}
			if len(words) == 0 {
				continue
			}
			commands++
			var err error
			switch w := words[0]; {
			case strings.HasSuffix(w, "respcheck"):
				err = checkRespcheck(root, words[1:], dc.inline)
				if err == nil && runnable(dc, words) {
					ran++
					expanded := []string{}
					for _, w := range inTempDir(words[1:], t.TempDir()) {
						if m, _ := filepath.Glob(w); strings.Contains(w, "*") && len(m) > 0 {
							expanded = append(expanded, m...)
						} else {
							expanded = append(expanded, w)
						}
					}
					code, _, errs := respcheck(t, expanded...)
					if code == exitUsage || code == exitServer {
						err = fmt.Errorf("exit %d: %s", code, firstLine(errs))
					}
				}
				root = newRootCmd() // flags set by the check start afresh
			case w == "go":
				err = checkGoTest(t, words)
			default:
				if st, e := os.Stat(w); e != nil || st.Mode()&0o111 == 0 {
					err = fmt.Errorf("%s: not an executable script of the repository", w)
				}
			}
			if err != nil {
				t.Errorf("%s: %s: %v", dc.pos, dc.line, err)
			}
		}
	}
	goSource := regexp.MustCompile(`\b[\w/]+\.go\b`)
	for _, c := range append(root.Commands(), root) {
		text := c.Long + c.Short + c.Flags().FlagUsages()
		if m := goSource.FindString(text); m != "" {
			t.Errorf("respcheck %s --help names the Go source %s: point to a page under docs/ instead", c.Name(), m)
		}
	}
	t.Logf("%d links and %d command lines checked, %d of them run", checked, commands, ran)
	if checked < 20 || commands < 50 {
		t.Errorf("only %d links and %d commands found: the page parsing is broken", checked, commands)
	}
}

// runnable reports whether TestDocs runs a command line: a help, or a
// diff, report or schema of committed goldens only, written in a code
// block (not a mention).
func runnable(dc docCommand, words []string) bool {
	if dc.inline || len(words) < 2 || slices.ContainsFunc(words, placeholder) {
		return false
	}
	switch words[1] {
	case "help":
		return true
	case "diff", "report", "schema":
		files := 0
		for i := 2; i < len(words); i++ {
			switch w := words[i]; {
			case w == "-o":
				i++
			case strings.HasPrefix(w, "-"):
			case !repoPath(w):
				return false
			default:
				files++
			}
		}
		return files > 0
	}
	return false
}

// inTempDir returns words with the value of -o moved into dir.
func inTempDir(words []string, dir string) []string {
	out := slices.Clone(words)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "-o" {
			out[i+1] = filepath.Join(dir, filepath.Base(out[i+1]))
		}
	}
	return out
}

// slug is the #fragment GitHub makes of a heading: lower case, spaces as
// dashes, letters, digits, - and _ kept, everything else (punctuation,
// in any script) dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
