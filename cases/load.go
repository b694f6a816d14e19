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
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Load parses and validates one case file. path is used in positions and
// case ids. On error it returns a nil *File and an ErrorList holding every
// problem found.
func Load(path string, data []byte) (*File, error) {
	l := &loader{path: path}
	f := l.file(data)
	if err := l.errs.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// LoadFile reads and loads one case file.
func LoadFile(path string) (*File, error) {
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
	return Load(path, data)
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
func LoadPaths(paths []string) ([]*File, error) {
	var files []*File
	var errs ErrorList
	add := func(path string) {
		f, err := LoadFile(path)
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
		l.yamlErr(err)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.errf(&extra, "a case file holds one YAML document; found another")
	} else if err != io.EOF {
		l.yamlErr(err)
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
		if prev, ok := names[c.Name]; ok {
			l.errAt(c.Pos, "duplicate case name %q (first at line %d)", c.Name, prev.Line)
			continue
		}
		names[c.Name] = item
		f.Cases = append(f.Cases, c)
	}
	return f
}

func (l *loader) yamlErr(err error) {
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
	l.errAt(Pos{File: l.path, Line: line, Col: 1}, "YAML syntax error: %s", msg)
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

// fields is a checked YAML mapping.
type fields struct {
	keys    []*yaml.Node
	vals    []*yaml.Node
	unknown int // number of unknown or duplicate keys reported
}

func (m *fields) get(name string) *yaml.Node {
	for i, k := range m.keys {
		if k.Value == name {
			return m.vals[i]
		}
	}
	return nil
}

func (m *fields) key(name string) *yaml.Node {
	for _, k := range m.keys {
		if k.Value == name {
			return k
		}
	}
	return nil
}

func (m *fields) has(name string) bool { return m.key(name) != nil }

// need returns the value of a required field, reporting its absence at n.
func (m *fields) need(l *loader, n *yaml.Node, name string) *yaml.Node {
	v := m.get(name)
	if v == nil {
		l.errf(n, "missing field %q", name)
	}
	return v
}

// present returns the keys among names that are present, in file order.
func (m *fields) present(names ...string) []*yaml.Node {
	var ks []*yaml.Node
	for _, k := range m.keys {
		if slices.Contains(names, k.Value) {
			ks = append(ks, k)
		}
	}
	return ks
}

// mapping checks that n is a mapping with scalar, unique keys among allowed
// (if allowed is empty, any key). It returns nil if n is not a mapping.
func (l *loader) mapping(n *yaml.Node, what string, allowed ...string) *fields {
	if n.Kind != yaml.MappingNode {
		l.errf(n, "%s must be a mapping, not %s", what, describe(n))
		return nil
	}
	m := &fields{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			l.errf(k, "%s key must be a scalar, not %s", what, describe(k))
			continue
		}
		if prev := m.key(k.Value); prev != nil {
			l.errf(k, "duplicate key %q (first at line %d)", k.Value, prev.Line)
			m.unknown++
			continue
		}
		if len(allowed) > 0 && !slices.Contains(allowed, k.Value) {
			l.errf(k, "unknown field %q in %s (want one of: %s)", k.Value, what, strings.Join(allowed, ", "))
			m.unknown++
			continue
		}
		m.keys = append(m.keys, k)
		m.vals = append(m.vals, v)
	}
	return m
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		if len(n.Value) > 60 {
			// A file that is not a case file is not echoed whole.
			return fmt.Sprintf("%q... (%d bytes)", n.Value[:60], len(n.Value))
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "a YAML node of kind " + strconv.Itoa(int(n.Kind))
}

// seq checks that n is a sequence and returns its items (nil if it is not).
func (l *loader) seq(n *yaml.Node, what string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		l.errf(n, "%s must be a sequence, not %s", what, describe(n))
		return nil
	}
	if n.Content == nil {
		return []*yaml.Node{}
	}
	return n.Content
}

// scalar checks that n is a non-null scalar and returns its text.
func (l *loader) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		l.errf(n, "%s must be a string, not %s", what, describe(n))
		return "", false
	}
	if n.Tag == "!!null" {
		l.errf(n, "%s is null (quote it if you mean the text %q)", what, n.Value)
		return "", false
	}
	return n.Value, true
}

func (l *loader) nonEmptyString(n *yaml.Node, what string) string {
	s, ok := l.scalar(n, what)
	if ok && strings.TrimSpace(s) == "" {
		l.errf(n, "%s must not be empty", what)
	}
	return s
}

func (l *loader) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		l.errf(n, "%s must be true or false, not %s", what, describe(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		l.errf(n, "%s: %v", what, err)
		return false, false
	}
	return b, true
}

// isTrue checks that n is the boolean true.
func (l *loader) isTrue(n *yaml.Node, what string) bool {
	b, ok := l.boolean(n, what)
	if ok && !b {
		l.errf(n, "%s must be true (omit it otherwise)", what)
		return false
	}
	return ok
}

func (l *loader) duration(n *yaml.Node, what string) (time.Duration, bool) {
	s, ok := l.scalar(n, what)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		l.errf(n, "bad %s %q: want a Go duration such as 50ms, 2s or 1m30s", what, s)
		return 0, false
	}
	if d < 0 {
		l.errf(n, "%s must not be negative", what)
		return 0, false
	}
	return d, true
}

func (l *loader) tags(n *yaml.Node) []string {
	var tags []string
	for _, item := range l.seq(n, "tags") {
		s, ok := l.scalar(item, "tag")
		if !ok {
			continue
		}
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' }) {
			l.errf(item, "bad tag %q: want a non-empty word without spaces", s)
			continue
		}
		tags = append(tags, s)
	}
	return tags
}

func (l *loader) template(n *yaml.Node, what string) *Template {
	s, ok := l.scalar(n, what)
	if !ok {
		return nil
	}
	t, err := ParseTemplate(l.pos(n), s)
	if err != nil {
		l.errf(n, "%v", err)
		return nil
	}
	return t
}

// args parses a command: a non-empty sequence of templates.
func (l *loader) args(n *yaml.Node, what string) ([]Template, bool) {
	items := l.seq(n, what)
	if items == nil {
		return nil, false
	}
	if len(items) == 0 {
		l.errf(n, "%s must not be empty", what)
		return nil, false
	}
	args := make([]Template, 0, len(items))
	ok := true
	for _, item := range items {
		if item.Kind == yaml.MappingNode {
			l.errf(item, "%s argument is a YAML mapping: quote arguments that start with a brace, as in \"{key}\"", what)
			ok = false
			continue
		}
		t := l.template(item, what+" argument")
		if t == nil {
			ok = false
			continue
		}
		args = append(args, *t)
	}
	return args, ok
}

func (l *loader) selector(n *yaml.Node, what string) (Selector, bool) {
	s, ok := l.scalar(n, what)
	if !ok {
		return Selector{}, false
	}
	sel, err := ParseSelector(s)
	if err != nil {
		l.errf(n, "%v", err)
		return Selector{}, false
	}
	sel.Pos = l.pos(n)
	return sel, true
}

var gateFields = []string{"server", "commands", "command", "absent", "debug", "proto", "probes"}

func (l *loader) gates(n *yaml.Node) *Gates {
	m := l.mapping(n, "requires", gateFields...)
	if m == nil {
		return nil
	}
	g := &Gates{Pos: l.pos(n)}
	if v := m.get("server"); v != nil {
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = l.seq(v, "server")
			if len(items) == 0 {
				l.errf(v, "server list must not be empty")
			}
		}
		for _, item := range items {
			if sel, ok := l.selector(item, "server selector"); ok {
				g.Servers = append(g.Servers, sel)
			}
		}
	}
	addCommand := func(item *yaml.Node, dst *[]string) {
		s, ok := l.scalar(item, "command")
		if !ok {
			return
		}
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' }) {
			l.errf(item, "bad command name %q", s)
			return
		}
		*dst = append(*dst, s)
	}
	if v := m.get("command"); v != nil {
		addCommand(v, &g.Commands)
	}
	if v := m.get("commands"); v != nil {
		for _, item := range l.seq(v, "commands") {
			addCommand(item, &g.Commands)
		}
	}
	if v := m.get("absent"); v != nil {
		for _, item := range l.seq(v, "absent") {
			addCommand(item, &g.Absent)
		}
	}
	if v := m.get("debug"); v != nil {
		g.Debug, _ = l.boolean(v, "debug")
	}
	if v := m.get("proto"); v != nil {
		if v.Kind != yaml.ScalarNode || (v.Value != "2" && v.Value != "3") {
			l.errf(v, "proto must be 2 or 3, not %s", describe(v))
		} else {
			g.Proto = int(v.Value[0] - '0')
		}
	}
	if v := m.get("probes"); v != nil {
		for _, item := range l.seq(v, "probes") {
			args, ok := l.args(item, "probe")
			if !ok {
				continue
			}
			for i := range args {
				for _, c := range args[i].caps {
					l.errAt(args[i].Pos, "capture %q used in a probe (probes run before any step)", c)
				}
			}
			g.Probes = append(g.Probes, &Probe{Pos: l.pos(item), Send: args})
		}
	}
	return g
}

func (l *loader) caseNode(n *yaml.Node, f *File) *Case {
	m := l.mapping(n, "case", "name", "tags", "requires", "known", "exclusive", "steps", "cleanup", "scenario")
	if m == nil {
		return nil
	}
	c := &Case{Pos: l.pos(n), File: f}
	if v := m.need(l, n, "name"); v != nil {
		c.Name = l.nonEmptyString(v, "name")
		c.Pos = l.pos(v)
	}
	if v := m.get("tags"); v != nil {
		c.Tags = l.tags(v)
	}
	if v := m.get("requires"); v != nil {
		c.Requires = l.gates(v)
	}
	if v := m.get("exclusive"); v != nil {
		c.Exclusive, _ = l.boolean(v, "exclusive")
	}
	if v := m.get("known"); v != nil {
		for _, item := range l.seq(v, "known") {
			km := l.mapping(item, "known difference", "server", "reason")
			if km == nil {
				continue
			}
			k := &Known{Pos: l.pos(item)}
			if sv := km.need(l, item, "server"); sv != nil {
				k.Server, _ = l.selector(sv, "server selector")
			}
			if rv := km.need(l, item, "reason"); rv != nil {
				k.Reason = l.nonEmptyString(rv, "reason")
			}
			c.Known = append(c.Known, k)
		}
	}
	if v := m.get("scenario"); v != nil {
		if k := m.key("steps"); k != nil {
			l.errf(k, "a case has steps or a scenario, not both")
		}
		c.Scenario = l.scenario(v, c)
		c.Exclusive = c.Exclusive || !m.has("exclusive") // scenarios run alone unless told otherwise
		return c
	}
	v := m.need(l, n, "steps")
	if v == nil {
		return c
	}
	items := l.seq(v, "steps")
	if items != nil && len(items) == 0 {
		l.errf(v, "case has no steps")
	}
	cs := &caseState{defined: map[string]bool{}, pending: map[string][]Pos{}}
	for i, item := range items {
		if s := l.step(item, i, cs); s != nil {
			c.Steps = append(c.Steps, s)
		}
	}
	if v := m.get("cleanup"); v != nil {
		// Cleanup steps run after the steps whatever their outcome; they see
		// the captures of the steps, and start with no pending async reply.
		ccs := &caseState{defined: maps.Clone(cs.defined), pending: map[string][]Pos{}}
		for i, item := range l.seq(v, "cleanup") {
			if s := l.step(item, len(c.Steps)+i, ccs); s != nil {
				c.Cleanup = append(c.Cleanup, s)
			}
		}
		for conn, ps := range ccs.pending {
			cs.pending["cleanup "+conn] = ps
		}
	}
	var conns []string
	for conn, ps := range cs.pending {
		if len(ps) > 0 {
			conns = append(conns, conn)
		}
	}
	slices.Sort(conns)
	for _, conn := range conns {
		for _, p := range cs.pending[conn] {
			l.errAt(p, "the reply of this async send on connection %q is never read (add a read step)", conn)
		}
	}
	return c
}

// caseState tracks what earlier steps of a case did, for static checks.
type caseState struct {
	defined map[string]bool  // captures set by earlier steps
	pending map[string][]Pos // unread async sends per connection
}

var (
	actionFields = []string{"send", "raw", "read", "push", "sleep"}
	expectFields = []string{"reply", "value", "error", "error_code", "error_match", "any", "expect"}
	stepFields   = slices.Concat(actionFields, []string{"conn", "async", "capture", "timeout", "volatile"}, expectFields)
)

func (l *loader) step(n *yaml.Node, index int, cs *caseState) *Step {
	m := l.mapping(n, "step", stepFields...)
	if m == nil {
		return nil
	}
	s := &Step{Pos: l.pos(n), Index: index, Conn: DefaultConn}
	acts := m.present(actionFields...)
	switch len(acts) {
	case 0:
		if m.unknown == 0 {
			l.errf(n, "step has no action (want one of: %s)", strings.Join(actionFields, ", "))
		}
		return nil
	case 1:
	default:
		l.errf(acts[1], "step has both %q and %q", acts[0].Value, acts[1].Value)
		return nil
	}
	act := acts[0].Value
	exps := m.present(expectFields...)
	if len(exps) > 1 {
		l.errf(exps[1], "step has both %q and %q", exps[0].Value, exps[1].Value)
		return nil
	}
	notAllowed := func(field, why string) bool {
		if k := m.key(field); k != nil {
			l.errf(k, "%q is not allowed in a %s step%s", field, act, why)
			return true
		}
		return false
	}
	bad := false
	if act == "sleep" {
		for _, k := range m.keys {
			if k.Value != "sleep" {
				l.errf(k, "%q is not allowed in a sleep step", k.Value)
				bad = true
			}
		}
		s.Action = ActSleep
		s.Conn = ""
		s.Sleep, _ = l.duration(m.get("sleep"), "sleep")
		return s
	}
	if v := m.get("conn"); v != nil {
		if c, ok := l.scalar(v, "conn"); ok {
			if !isConnName(c) {
				l.errf(v, "bad connection name %q: want letters, digits, '_' and '-', starting with a letter", c)
				bad = true
			}
			s.Conn = c
		}
	}
	if v := m.get("timeout"); v != nil {
		var ok bool
		if s.Timeout, ok = l.duration(v, "timeout"); ok && s.Timeout == 0 {
			l.errf(v, "timeout must be positive")
		}
	}
	if v := m.get("volatile"); v != nil {
		s.Volatile, _ = l.boolean(v, "volatile")
	}
	if v := m.get("async"); v != nil {
		if act != "send" && act != "raw" {
			notAllowed("async", " (only send and raw steps can be async)")
			bad = true
		} else {
			s.Async, _ = l.boolean(v, "async")
		}
	}
	if v := m.get("capture"); v != nil {
		switch {
		case act == "push":
			notAllowed("capture", " (capture on send, raw and read steps)")
			bad = true
		case s.Async:
			l.errf(m.key("capture"), "capture on an async send: put it on the read step that reads the reply")
			bad = true
		case v.Kind == yaml.MappingNode:
			cm := l.mapping(v, "capture", "name", "match")
			if cm == nil {
				bad = true
				break
			}
			if nv := cm.need(l, v, "name"); nv != nil {
				if c, ok := l.scalar(nv, "capture name"); ok {
					if !isIdent(c) {
						l.errf(nv, "bad capture name %q: want an identifier", c)
					}
					s.Capture = c
				}
			}
			if mv := cm.need(l, v, "match"); mv != nil {
				if s.CaptureMatch = l.regexp(mv); s.CaptureMatch != nil && s.CaptureMatch.NumSubexp() != 1 {
					l.errf(mv, "capture pattern %q must have exactly one group", s.CaptureMatch)
				}
			}
		default:
			if c, ok := l.scalar(v, "capture"); ok {
				if !isIdent(c) {
					l.errf(v, "bad capture name %q: want an identifier", c)
				}
				s.Capture = c
			}
		}
	}
	var templates []*Template
	av := m.get(act)
	switch act {
	case "send":
		s.Action = ActSend
		args, ok := l.args(av, "send")
		bad = bad || !ok
		s.Send = args
		for i := range s.Send {
			templates = append(templates, &s.Send[i])
		}
	case "raw":
		s.Action = ActRaw
		s.Raw = l.template(av, "raw")
		if s.Raw != nil {
			if s.Raw.src == "" {
				l.errf(av, "raw must not be empty")
			}
			templates = append(templates, s.Raw)
		}
	case "read":
		s.Action = ActRead
		if !l.isTrue(av, "read") {
			return nil
		}
	case "push":
		s.Action = ActPush
		if av.Kind == yaml.ScalarNode && av.Tag == "!!bool" {
			if l.isTrue(av, "push") && len(exps) == 0 {
				l.errf(av, "push: true needs an expectation (reply, value, any or expect); or give the typed value as push: {...}")
			}
			for _, k := range exps {
				if k.Value == "error" || k.Value == "error_code" || k.Value == "error_match" {
					l.errf(k, "%q is not allowed in a push step (push frames are not errors)", k.Value)
				}
			}
		} else {
			if len(exps) > 0 {
				l.errf(exps[0], "step has both \"push\" and %q (give the push frame either as push: {typed value}, or as push: true with %q)", exps[0].Value, exps[0].Value)
				return nil
			}
			s.Expect = l.valueVariants(av, Selector{})
		}
	}
	if s.Async && s.Volatile {
		l.errf(m.key("volatile"), "volatile on an async %s: put it on the read step that reads the reply", act)
		bad = true
	}
	if s.Async && len(exps) > 0 {
		l.errf(exps[0], "an async %s takes no expectation: put %q on the read step that reads the reply", act, exps[0].Value)
		bad = true
	}
	if !s.Async && s.Expect == nil {
		if len(exps) == 1 {
			k := exps[0]
			s.Expect = l.expectField(k, m.get(k.Value), Selector{})
		} else {
			s.Expect = Variants{{Expect: &Expect{Pos: s.Pos, Kind: ExpectNotError}}}
		}
	}
	l.checkReachable(s.Expect)
	for _, v := range s.Expect {
		templates = v.Expect.templates(templates)
	}
	for _, t := range templates {
		for _, c := range t.caps {
			if !cs.defined[c] {
				l.errAt(t.Pos, "capture %q is used before any step sets it", c)
			}
		}
	}
	switch s.Action {
	case ActSend, ActRaw:
		q := cs.pending[s.Conn]
		switch {
		case s.Async:
			cs.pending[s.Conn] = append(q, s.Pos)
		case len(q) > 0:
			l.errf(acts[0], "%s on connection %q while %d async repl%s pending: read %s first, or make this %s async too", act, s.Conn, len(q), plural(len(q), "y is", "ies are"), plural(len(q), "it", "them"), act)
		}
	case ActRead:
		if q := cs.pending[s.Conn]; len(q) == 0 {
			l.errf(acts[0], "read on connection %q with no pending async send", s.Conn)
		} else {
			cs.pending[s.Conn] = q[1:]
		}
	}
	if s.Capture != "" {
		cs.defined[s.Capture] = true
	}
	if bad {
		return nil
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func isConnName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// templates appends the templates of e to dst.
func (e *Expect) templates(dst []*Template) []*Template {
	if e == nil {
		return dst
	}
	if e.Bytes != nil {
		dst = append(dst, e.Bytes)
	}
	if e.Text != nil {
		dst = append(dst, e.Text)
	}
	return e.Value.templates(dst)
}

func (v *TypedValue) templates(dst []*Template) []*Template {
	if v == nil {
		return dst
	}
	if v.Text != nil {
		dst = append(dst, v.Text)
	}
	for _, e := range v.Elems {
		dst = e.templates(dst)
	}
	for _, e := range v.Attr {
		dst = e.templates(dst)
	}
	return dst
}

// checkReachable reports variants that follow one that always matches.
func (l *loader) checkReachable(vs Variants) {
	for i, v := range vs {
		if v.When.alwaysMatches() && i+1 < len(vs) {
			l.errAt(vs[i+1].Expect.Pos, "unreachable expectation: an earlier one (%s) matches every server", describeWhen(v.When))
			return
		}
	}
}

func describeWhen(s Selector) string {
	if s.IsZero() {
		return "without a selector"
	}
	return fmt.Sprintf("%q", s.Text)
}

// expectField parses one expectation field (key k, value v) of a step or
// of an expect item, under the selector base.
func (l *loader) expectField(k, v *yaml.Node, base Selector) Variants {
	switch k.Value {
	case "expect":
		return l.expectList(v, base)
	case "any":
		if !l.isTrue(v, "any") {
			return nil
		}
		return Variants{{When: base, Expect: &Expect{Pos: l.pos(k), Kind: ExpectAny}}}
	case "value":
		return l.valueVariants(v, base)
	}
	// reply, error, error_code, error_match: a scalar or a selector map.
	if v.Kind == yaml.MappingNode {
		return l.selectorMap(v, base, k.Value, func(val *yaml.Node) *Expect { return l.textExpect(k.Value, val) })
	}
	e := l.textExpect(k.Value, v)
	if e == nil {
		return nil
	}
	return Variants{{When: base, Expect: e}}
}

// selectorMap parses a mapping from selectors to expectations.
func (l *loader) selectorMap(n *yaml.Node, base Selector, what string, parse func(*yaml.Node) *Expect) Variants {
	m := l.mapping(n, what+" selector map")
	if m == nil {
		return nil
	}
	if len(m.keys) == 0 {
		l.errf(n, "empty %s selector map", what)
		return nil
	}
	var vs Variants
	for i, k := range m.keys {
		sel, err := ParseSelector(k.Value)
		if err != nil {
			if _, isTag := typedTagSet[k.Value]; isTag && what == "value" {
				l.errf(k, "%v (%q is a typed value tag: a mapping under value is either a selector map or a typed value, not both)", err, k.Value)
			} else {
				l.errf(k, "%v", err)
			}
			continue
		}
		sel.Pos = l.pos(k)
		e := parse(m.vals[i])
		if e == nil {
			continue
		}
		vs = append(vs, Variant{When: base.and(sel), Expect: e})
	}
	return vs
}

func (l *loader) textExpect(field string, v *yaml.Node) *Expect {
	e := &Expect{Pos: l.pos(v)}
	switch field {
	case "reply":
		e.Kind = ExpectBytes
		e.Bytes = l.template(v, "reply")
		if e.Bytes == nil {
			return nil
		}
		l.checkReplyBytes(v, e.Bytes)
	case "error", "error_code":
		e.Kind = ExpectError
		if field == "error_code" {
			e.Kind = ExpectErrorCode
		}
		e.Text = l.template(v, field)
		if e.Text == nil {
			return nil
		}
		if lit, ok := e.Text.Literal(); ok {
			switch {
			case lit == "":
				l.errf(v, "%s must not be empty", field)
			case strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "!"):
				l.errf(v, "%s %q starts with %q: give the error text without the RESP type byte", field, lit, lit[:1])
			case strings.ContainsAny(lit, "\r\n"):
				l.errf(v, "%s must not contain \"\\r\" or \"\\n\"", field)
			case field == "error_code" && strings.ContainsAny(lit, " \t"):
				l.errf(v, "error_code %q must be one word (the error code, such as WRONGTYPE); use error or error_match for the text", lit)
			}
		}
	case "error_match":
		e.Kind = ExpectErrorMatch
		s, ok := l.scalar(v, "error_match")
		if !ok {
			return nil
		}
		re, err := regexp.Compile(s)
		if err != nil {
			l.errf(v, "bad error_match regexp: %v", err)
			return nil
		}
		e.Pattern = re
	}
	return e
}

// checkReplyBytes checks that a reply template that can be expanded
// statically is exactly one RESP frame.
func (l *loader) checkReplyBytes(n *yaml.Node, t *Template) {
	if !t.usesOnly(opKey, opRandom, opRepeat, opLen, opXXH3) {
		return // captures: only known at run time
	}
	env := &Env{KeyPrefix: KeyPrefix("")}
	if size, err := t.size(env); err != nil || size > 1<<20 {
		return
	}
	b, err := t.appendTo(nil, env)
	if err != nil {
		return
	}
	if err := checkFrame(b); err != nil {
		hint := ""
		if strings.Contains(t.src, `\r`) || strings.Contains(t.src, `\n`) {
			hint = ` (the text holds a backslash sequence such as \r: write the reply as a double-quoted YAML string, "+OK\r\n")`
		}
		l.errf(n, "reply is not one complete RESP frame: %v%s", err, hint)
	}
}

// expectList parses an expect list.
func (l *loader) expectList(n *yaml.Node, base Selector) Variants {
	items := l.seq(n, "expect")
	if items == nil {
		return nil
	}
	if len(items) == 0 {
		l.errf(n, "expect list must not be empty")
		return nil
	}
	var vs Variants
	for _, item := range items {
		m := l.mapping(item, "expect item", "when", "reply", "value", "error", "error_code", "error_match", "any")
		if m == nil {
			continue
		}
		when := base
		if v := m.get("when"); v != nil {
			sel, ok := l.selector(v, "when")
			if !ok {
				continue
			}
			when = base.and(sel)
		}
		exps := m.present("reply", "value", "error", "error_code", "error_match", "any")
		switch len(exps) {
		case 0:
			vs = append(vs, Variant{When: when, Expect: &Expect{Pos: l.pos(item), Kind: ExpectNotError}})
		case 1:
			vs = append(vs, l.expectField(exps[0], m.get(exps[0].Value), when)...)
		default:
			l.errf(exps[1], "expect item has both %q and %q", exps[0].Value, exps[1].Value)
		}
	}
	return vs
}

// valueVariants parses the value of "value:" (or "push:"): a selector map
// of typed values, or a typed value.
func (l *loader) valueVariants(n *yaml.Node, base Selector) Variants {
	if n.Kind == yaml.MappingNode && isSelectorMap(n) {
		return l.selectorMap(n, base, "value", func(val *yaml.Node) *Expect {
			tv := l.typed(val)
			if tv == nil {
				return nil
			}
			return &Expect{Pos: l.pos(val), Kind: ExpectValue, Value: tv}
		})
	}
	tv := l.typed(n)
	if tv == nil {
		return nil
	}
	return Variants{{When: base, Expect: &Expect{Pos: l.pos(n), Kind: ExpectValue, Value: tv}}}
}

// isSelectorMap reports whether a mapping under value: is a selector map:
// at least one key parses as a selector. (Typed value tags and selector
// words are disjoint, so a typed value never qualifies.)
func isSelectorMap(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if _, err := ParseSelector(n.Content[i].Value); err == nil {
			return true
		}
	}
	return false
}
