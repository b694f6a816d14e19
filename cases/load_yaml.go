package cases

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

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
			l.errf(k, "unknown field %q in %s%s (want one of: %s)", k.Value, what, didYouMean(k.Value, allowed), strings.Join(allowed, ", "))
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

// word parses n as a non-empty word without spaces or control characters
// (a tag, a command name); bad is the message for one that is not, with a
// %q for the text.
func (l *loader) word(n *yaml.Node, what, bad string) (string, bool) {
	s, ok := l.scalar(n, what)
	if !ok {
		return "", false
	}
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' }) {
		l.errf(n, bad, s)
		return "", false
	}
	return s, true
}

func (l *loader) tags(n *yaml.Node) []string {
	var tags []string
	for _, item := range l.seq(n, "tags") {
		if s, ok := l.word(item, "tag", "bad tag %q: want a non-empty word without spaces"); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

func (l *loader) template(n *yaml.Node, what string) *Template {
	s, ok := l.scalar(n, what)
	if !ok {
		return nil
	}
	t, err := parseTemplate(l.pos(n), s, &l.opts)
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

// didYouMean returns `: did you mean "send"?` for the known name nearest
// to word (edit distance with transpositions, letter case ignored) when
// it is near enough to be a typo: at most 2 edits, and fewer than half
// of word's letters. "" otherwise, and when two names are as near.
func didYouMean(word string, known []string) string {
	best, bestD, tie := "", 3, false
	w := strings.ToLower(word)
	for _, k := range known {
		d := editDistance(w, strings.ToLower(k))
		switch {
		case d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if best == "" || tie || 2*bestD >= len(w) {
		return ""
	}
	return fmt.Sprintf(": did you mean %q?", best)
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and swaps of two neighbours, each
// one edit), over bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
