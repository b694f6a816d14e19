package cases

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load parses and validates one case file. path is used in positions and
// case ids. On error it returns a nil *File and an ErrorList holding every
// problem found.
func Load(path string, data []byte) (*File, error) {
	return LoadWith(path, data, Options{})
}

// Options are what loading depends on besides the files: the values of the
// template variables.
type Options struct {
	// Vars are the values of {var:NAME} (respcheck's --var NAME=VALUE).
	Vars map[string]string
	// LookupEnv gives the values of {env:NAME}; nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// used collects the names of the {var:NAME} the file uses (File.Vars).
	used map[string]bool
}

// LoadWith is Load with the template variables of opts.
func LoadWith(path string, data []byte, opts Options) (*File, error) {
	opts.used = map[string]bool{}
	l := &loader{path: path, opts: opts}
	f := l.file(data)
	if err := l.errs.err(); err != nil {
		return nil, err
	}
	f.Vars = slices.Sorted(maps.Keys(l.opts.used))
	return f, nil
}

// LoadFile reads and loads one case file.
func LoadFile(path string) (*File, error) { return loadFile(path, Options{}) }

func loadFile(path string, opts Options) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ErrorList{{Pos: Pos{File: path}, Msg: ioMsg(err)}}
	}
	defer f.Close()
	// A case file is text a person writes: /dev/zero or a stray multi-GB
	// file is refused at MaxFileSize rather than read into memory.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, ErrorList{{Pos: Pos{File: path}, Msg: ioMsg(err)}}
	}
	if len(data) > MaxFileSize {
		return nil, ErrorList{{Pos: Pos{File: path}, Msg: fmt.Sprintf("larger than %d bytes: not a case file", MaxFileSize)}}
	}
	return LoadWith(path, data, opts)
}

// MaxFileSize is the largest case file LoadFile reads (16 MiB).
const MaxFileSize = 16 << 20

func ioMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// LoadPaths loads files and directories. A directory is walked recursively
// for *.yaml and *.yml files in lexical order, skipping subdirectories whose
// name starts with "." or "_" and directories named "testdata"; a file named
// explicitly is loaded whatever its extension. It returns every file that
// loaded without error, and an ErrorList of the problems of all the others
// (nil if there were none).
func LoadPaths(paths []string) ([]*File, error) { return loadPaths(paths, Options{}) }

func loadPaths(paths []string, opts Options) ([]*File, error) {
	var files []*File
	var errs ErrorList
	add := func(path string) {
		f, err := loadFile(path, opts)
		if err != nil {
			var el ErrorList
			if errors.As(err, &el) {
				errs = append(errs, el...)
			} else {
				errs = append(errs, &Error{Pos: Pos{File: path}, Msg: err.Error()})
			}
			return
		}
		files = append(files, f)
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			errs = append(errs, &Error{Pos: Pos{File: root}, Msg: ioMsg(err)})
			continue
		}
		if !info.IsDir() {
			add(root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &Error{Pos: Pos{File: path}, Msg: ioMsg(err)})
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
				add(path)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, &Error{Pos: Pos{File: root}, Msg: err.Error()})
		}
	}
	return files, errs.err()
}

// loader holds the state of loading one file.
type loader struct {
	path  string
	opts  Options
	errs  ErrorList
	nodes int // YAML nodes visited, aliases expanded
}

// maxNodes bounds the size of a document with its aliases expanded, against
// alias bombs.
const maxNodes = 1_000_000

func (l *loader) pos(n *yaml.Node) Pos { return Pos{File: l.path, Line: n.Line, Col: n.Column} }

func (l *loader) errf(n *yaml.Node, format string, args ...any) {
	l.errAt(l.pos(n), format, args...)
}

func (l *loader) errAt(p Pos, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser errors, whose line
// numbers are 0-based (scanner errors have 1-based lines).
var yamlParserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"found undefined tag handle",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

func (l *loader) file(data []byte) *File {
	sum := sha256.Sum256(data)
	f := &File{Path: l.path, Hash: hex.EncodeToString(sum[:])}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			l.errAt(Pos{File: l.path, Line: 1, Col: 1}, "empty file (want a mapping with suite and cases)")
			return nil
		}
		l.yamlErr(err, data)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.errf(&extra, "a case file holds one YAML document; found another")
	} else if err != io.EOF {
		l.yamlErr(err, data)
	}
	if !l.resolveAliases(&doc, nil) {
		return nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			l.errAt(Pos{File: l.path, Line: 1, Col: 1}, "empty file (want a mapping with suite and cases)")
			return nil
		}
		root = root.Content[0]
	}
	m := l.mapping(root, "file", "suite", "tags", "requires", "cases")
	if m == nil {
		return nil
	}
	if n := m.need(l, root, "suite"); n != nil {
		f.Suite = l.nonEmptyString(n, "suite")
	}
	if n := m.get("tags"); n != nil {
		f.Tags = l.tags(n)
	}
	if n := m.get("requires"); n != nil {
		f.Requires = l.gates(n)
	}
	n := m.need(l, root, "cases")
	if n == nil {
		return f
	}
	items := l.seq(n, "cases")
	if items != nil && len(items) == 0 {
		l.errf(n, "no cases")
	}
	names := map[string]*yaml.Node{}
	for _, item := range items {
		c := l.caseNode(item, f)
		if c == nil {
			continue
		}
		c.Hash = caseHash(item, m.get("tags"), m.get("requires"))
		if prev, ok := names[c.Name]; ok {
			l.errAt(c.Pos, "duplicate case name %q (first at line %d)", c.Name, prev.Line)
			continue
		}
		names[c.Name] = item
		f.Cases = append(f.Cases, c)
	}
	return f
}

// yamlErr reports a YAML syntax error of data at its line; a tab in the
// indentation of the first line of data holding one, at or before that
// line, is said to be the cause (yaml.v3 says "found character that cannot
// start any token" for most of them).
func (l *loader) yamlErr(err error, data []byte) {
	msg := err.Error()
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if slices.Contains(yamlParserProblems, msg) {
			// yaml.v3 reports parser (not scanner) errors with the 0-based
			// line of the construct being parsed.
			line++
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	pos := Pos{File: l.path, Line: line, Col: 1}
	if pl, col := yamlProblemAt(data, msg); pl > 0 {
		pos.Line, pos.Col = pl, col
	}
	if tl, col := indentTab(data, max(line, pos.Line)); tl > 0 {
		l.errAt(Pos{File: l.path, Line: tl, Col: col}, "YAML syntax error: a tab in the indentation: YAML indents with spaces only (%s)", msg)
		return
	}
	l.errAt(pos, "YAML syntax error: %s", msg)
}

// yamlProblemAt returns the line and column (1-based) of the token where
// data stops being YAML with the problem msg, which yaml.v3's errors do not
// say (they name the line of the construct around it, without a column):
// the end of the shortest prefix of data that fails to decode with the
// same problem, found line by line (a binary search), then byte by byte in
// that line. 0, 0 when no prefix does.
func yamlProblemAt(data []byte, msg string) (int, int) {
	var ends []int // ends[i]: the offset just past line i+1's newline
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	fails := func(n int, closed bool) bool {
		p := append(data[:n:n], '\n')
		if closed {
			p = append(data[:n:n], closeFlow(data[:n])...)
		}
		return yamlProblem(p) == msg
	}
	k, ok := sort.Find(len(ends), func(i int) int {
		if fails(ends[i], false) {
			return 0
		}
		return 1
	})
	if !ok && (k == len(ends) || !fails(ends[k], false)) {
		return 0, 0
	}
	start := 0
	if k > 0 {
		start = ends[k-1]
	}
	line := data[start:ends[k]]
	first := len(line) - len(bytes.TrimLeft(line, " "))
	// A prefix cut inside a flow collection or a quoted string fails
	// because it is cut, with the same problem ("did not find expected
	// ',' or '}'") from its first token on: in the line, the prefixes are
	// closed first (closeFlow), so that only the token that breaks the
	// line fails them ({send: [PING], reply: "+PONG\r\n" x}: the x); a
	// line that breaks nothing when closed (an unclosed bracket) is shown
	// at the first token that fails unclosed, inside the bracket.
	for _, closed := range []bool{true, false} {
		for c := first + 1; c <= len(line) && c <= first+400; c++ {
			if fails(start+c, closed) {
				return k + 1, c
			}
		}
	}
	return k + 1, first + 1
}

// closeFlow returns what ends prefix's open quoted string and flow
// collections ("\"]}" for `{a: ["b`), then a newline; a prefix cut inside
// a comment gets the newline first. It reads YAML roughly (a bracket in a
// block plain scalar counts as one), which only makes a prefix fail or
// pass for another reason than the cut.
func closeFlow(prefix []byte) []byte {
	var stack []byte
	var quote byte
	escaped, comment := false, false
	for i, c := range prefix {
		switch {
		case comment:
			comment = c != '\n'
		case quote == '"':
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				quote = 0
			}
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '#' && (i == 0 || prefix[i-1] == ' ' || prefix[i-1] == '\t' || prefix[i-1] == '\n'):
			comment = true
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			stack = append(stack, ']')
		case c == '{':
			stack = append(stack, '}')
		case (c == ']' || c == '}') && len(stack) > 0 && stack[len(stack)-1] == c:
			stack = stack[:len(stack)-1]
		}
	}
	var out []byte
	if comment {
		out = append(out, '\n')
	}
	if escaped {
		out = append(out, '\\')
	}
	if quote != 0 {
		out = append(out, quote)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		out = append(out, stack[i])
	}
	return append(out, '\n')
}

// yamlProblem is the problem yaml.v3 finds in data's documents (its
// message without the "yaml: line N: " part), or "".
func yamlProblem(data []byte) string {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			return ""
		}
		if err != nil {
			msg := err.Error()
			if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
				return m[2]
			}
			return strings.TrimPrefix(msg, "yaml: ")
		}
	}
}

// indentTab returns the first line (1-based) up to line whose leading
// whitespace holds a tab, and the tab's column; 0 when none does.
func indentTab(data []byte, line int) (int, int) {
	for i, l := range bytes.SplitN(data, []byte("\n"), line+1) {
		if i >= line {
			break
		}
		for j, c := range l {
			if c == '\t' {
				return i + 1, j + 1
			}
			if c != ' ' {
				break
			}
		}
	}
	return 0, 0
}

// resolveAliases replaces alias nodes by the nodes they refer to, in place.
func (l *loader) resolveAliases(n *yaml.Node, stack []*yaml.Node) bool {
	if l.nodes++; l.nodes > maxNodes {
		l.errf(n, "document too large: more than %d nodes after expanding aliases", maxNodes)
		return false
	}
	if slices.Contains(stack, n) {
		l.errf(n, "recursive YAML alias")
		return false
	}
	stack = append(stack, n)
	for i, c := range n.Content {
		for c.Kind == yaml.AliasNode && c.Alias != nil {
			if slices.Contains(stack, c.Alias) {
				l.errf(c, "recursive YAML alias")
				return false
			}
			c = c.Alias
		}
		n.Content[i] = c
		if !l.resolveAliases(c, stack) {
			return false
		}
	}
	return true
}
