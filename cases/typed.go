package cases

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/respcheck/respcheck/resp"
)

// typedTags are the keys of a typed value mapping. They are disjoint from
// the selector words (see selectorWords).
var typedTags = []string{
	"simple", "error", "int", "blob", "double", "bool", "bloberror", "verbatim", "big",
	"array", "array_unordered", "set", "set_unordered", "push", "map", "map_unordered",
	"nil", "null", "any", "type", "match", "attr", "value", "string", "within",
}

var typedTagSet = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, t := range typedTags {
		m[t] = struct{}{}
	}
	return m
}()

const nullHint = "write {nil: blob} for $-1, {nil: array} for *-1 or {null: true} for _ (or quote it for a blob string)"

// typed parses a typed value.
func (l *loader) typed(n *yaml.Node) *TypedValue {
	switch n.Kind {
	case yaml.ScalarNode:
		return l.typedScalar(n)
	case yaml.SequenceNode:
		l.errf(n, "a sequence is not a typed value: write {array: [...]}, {set: [...]} or {push: [...]}")
		return nil
	}
	m := l.mapping(n, "typed value", typedTags...)
	if m == nil {
		return nil
	}
	if len(m.keys) == 0 {
		if len(n.Content) > 0 {
			return nil // the keys were reported
		}
		l.errf(n, "empty typed value (want one of: %s)", strings.Join(typedTags, ", "))
		return nil
	}
	tv := &TypedValue{Pos: l.pos(n)}
	first := m.keys[0].Value
	switch {
	case m.has("attr") || m.has("value"):
		if !m.has("attr") || !m.has("value") || len(m.keys) != 2 {
			l.errf(n, "an attribute is written {attr: [[k, v], ...], value: VALUE} with exactly these two keys")
			return nil
		}
		inner := l.typed(m.get("value"))
		attr := l.pairs(m.get("attr"), "attr")
		if inner == nil || attr == nil {
			return nil
		}
		if inner.Attr != nil {
			l.errf(m.get("value"), "a value carries at most one attribute")
			return nil
		}
		inner.Attr = attr
		return inner
	case m.has("type") && m.has("match") && len(m.keys) == 2:
		tv.KindOnly = true
		if !l.kindTag(m.get("type"), tv) {
			return nil
		}
		if !l.matchPattern(m.get("match"), tv) {
			return nil
		}
		return tv
	case m.has("within"):
		if !m.has("double") || len(m.keys) != 2 {
			l.errf(m.key("within"), "within is the tolerance of a double: write {double: \"0.3\", within: 1e-9} (or within: 1%%) with exactly these two keys")
			return nil
		}
		if !l.typedTag("double", m.get("double"), tv) || !l.tolerance(m.get("within"), tv) {
			return nil
		}
		return tv
	case len(m.keys) > 1:
		l.errf(m.keys[1], "typed value has both %q and %q", first, m.keys[1].Value)
		return nil
	}
	if !l.typedTag(first, m.vals[0], tv) {
		return nil
	}
	return tv
}

// typedScalar parses a typed value written as a YAML scalar: an integer, or
// a blob string.
func (l *loader) typedScalar(n *yaml.Node) *TypedValue {
	tv := &TypedValue{Pos: l.pos(n)}
	switch n.Tag {
	case "!!null":
		l.errf(n, "bare null is not a value: %s", nullHint)
		return nil
	case "!!int":
		tv.Kind = resp.Integer
		if err := n.Decode(&tv.Int); err != nil {
			l.errf(n, "integer %s out of range (use {big: %q} for a big number)", n.Value, n.Value)
			return nil
		}
	case "!!bool":
		l.errf(n, "bare %s: write {bool: %s} for a RESP3 boolean, or quote it for a blob string", n.Value, n.Value)
		return nil
	case "!!float":
		l.errf(n, "bare %s: write {double: %q} for a double, or quote it for a blob string", n.Value, n.Value)
		return nil
	default:
		tv.Kind = resp.BlobString
		if tv.Text = l.template(n, "blob string"); tv.Text == nil {
			return nil
		}
	}
	return tv
}

// typedTag parses the value v of the one tag (first) of a typed value
// mapping into tv. It returns false if it cannot.
func (l *loader) typedTag(first string, v *yaml.Node, tv *TypedValue) bool {
	ok := true
	textOf := func(kind resp.Kind, what string) {
		tv.Kind = kind
		tv.Text = l.template(v, what)
		ok = tv.Text != nil
	}
	switch first {
	case "simple":
		textOf(resp.SimpleString, "simple string")
		if ok && strings.ContainsAny(tv.Text.src, "\r\n") {
			l.errf(v, "a simple string cannot contain \"\\r\" or \"\\n\"")
		}
	case "error":
		textOf(resp.SimpleError, "simple error")
		if ok && strings.HasPrefix(tv.Text.src, "-") {
			l.errf(v, "error %q starts with \"-\": give the text without the RESP type byte", tv.Text.src)
		}
	case "blob":
		textOf(resp.BlobString, "blob string")
	case "bloberror":
		textOf(resp.BlobError, "blob error")
	case "string":
		textOf(resp.BlobString, "string")
		tv.Family = FamilyString
	case "double":
		textOf(resp.Double, "double")
		if ok && tv.Text.src == "" {
			l.errf(v, "empty double")
		}
	case "big":
		textOf(resp.BigNumber, "big number")
		if lit, isLit := tv.Text.Literal(); ok && isLit && !isBigNumber(lit) {
			l.errf(v, "bad big number %q: want an optional sign and decimal digits", lit)
		}
	case "verbatim":
		ok = l.verbatim(v, tv)
	case "int":
		ok = l.typedInt(v, tv)
	case "bool":
		tv.Kind = resp.Boolean
		tv.Bool, ok = l.boolean(v, "bool")
	case "array", "array_unordered", "set", "set_unordered", "push":
		tv.Kind = map[string]resp.Kind{"array": resp.Array, "array_unordered": resp.Array, "set": resp.Set, "set_unordered": resp.Set, "push": resp.Push}[first]
		tv.Unordered = strings.HasSuffix(first, "_unordered")
		items := l.seq(v, first)
		if items == nil {
			return false
		}
		tv.Elems = []*TypedValue{}
		for _, item := range items {
			e := l.typed(item)
			if e == nil {
				ok = false
				continue
			}
			tv.Elems = append(tv.Elems, e)
		}
	case "map", "map_unordered":
		tv.Kind = resp.Map
		tv.Unordered = first == "map_unordered"
		tv.Elems = l.pairs(v, first)
		ok = tv.Elems != nil
	case "nil":
		s, isStr := l.scalar(v, "nil")
		switch {
		case !isStr:
			return false
		case s == "blob":
			tv.Kind = resp.NilBlobString
		case s == "array":
			tv.Kind = resp.NilArray
		case s == "any":
			tv.Kind, tv.Family = resp.Null, FamilyNil
		default:
			l.errf(v, "bad nil %q: want blob ($-1), array (*-1) or any ($-1, *-1 or RESP3's _); RESP3's null alone is {null: true}", s)
			return false
		}
	case "null":
		tv.Kind = resp.Null
		ok = l.isTrue(v, "null")
	case "any":
		tv.Any = true
		ok = l.isTrue(v, "any")
	case "type":
		tv.KindOnly = true
		ok = l.kindTag(v, tv)
	case "match":
		ok = l.matchPattern(v, tv)
	}
	return ok
}

func (l *loader) kindTag(v *yaml.Node, tv *TypedValue) bool {
	s, ok := l.scalar(v, "type")
	if !ok {
		return false
	}
	k, ok := kindByName(s)
	if !ok {
		l.errf(v, "unknown type %q (want one of: %s)", s, strings.Join(canonicalKindNames(), ", "))
		return false
	}
	tv.Kind = k
	return true
}

// matchPattern sets tv.Match, or tv.MatchTemplate when the pattern uses
// templates (a captured counter, {add:1:{cap:n}}): that one is compiled by
// the runner after expansion.
func (l *loader) matchPattern(v *yaml.Node, tv *TypedValue) bool {
	t := l.template(v, "match")
	if t == nil {
		return false
	}
	if !t.IsLiteral() {
		tv.MatchTemplate = t
		tv.Match = regexp.MustCompile("")
		return true
	}
	tv.Match = l.regexp(v)
	return tv.Match != nil
}

func (l *loader) regexp(v *yaml.Node) *regexp.Regexp {
	s, ok := l.scalar(v, "match")
	if !ok {
		return nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		l.errf(v, "bad match regexp: %v", err)
		return nil
	}
	return re
}

// pairs parses [[k, v], ...] into k0, v0, k1, v1, ... (never nil on success).
func (l *loader) pairs(n *yaml.Node, what string) []*TypedValue {
	if n.Kind == yaml.MappingNode {
		// Pairs keep their order and may have keys of any type, which a
		// YAML mapping cannot say.
		l.errf(n, "%s must be a sequence of [key, value] pairs, such as {%s: [[field, value], [other, 2]]}, not a mapping", what, what)
		return nil
	}
	items := l.seq(n, what)
	if items == nil {
		return nil
	}
	elems := []*TypedValue{}
	ok := true
	for _, item := range items {
		if item.Kind != yaml.SequenceNode || len(item.Content) != 2 {
			l.errf(item, "%s entry must be a [key, value] pair, not %s", what, describePair(item))
			ok = false
			continue
		}
		k, v := l.typed(item.Content[0]), l.typed(item.Content[1])
		if k == nil || v == nil {
			ok = false
			continue
		}
		elems = append(elems, k, v)
	}
	if !ok {
		return nil
	}
	return elems
}

func describePair(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return fmt.Sprintf("a sequence of %d", len(n.Content))
	}
	return describe(n)
}

// isBigNumber reports whether s is the text of a RESP3 big number, as resp
// decodes it: an optional sign and decimal digits.
func isBigNumber(s string) bool {
	_, err := resp.ParseExact([]byte("(" + s + "\r\n"))
	return err == nil
}

// verbatim parses {verbatim: "fmt:text"} or {verbatim: {format: F, text:
// T}} (format, text or match, each optional, text and match not both) into
// tv.
func (l *loader) verbatim(v *yaml.Node, tv *TypedValue) bool {
	if v.Kind == yaml.MappingNode {
		return l.verbatimFields(v, tv)
	}
	s, isStr := l.scalar(v, "verbatim string")
	if !isStr {
		return false
	}
	if len(s) < 4 || s[3] != ':' || strings.ContainsAny(s[:3], "{}:\r\n") {
		l.errf(v, "verbatim string %q must start with a 3-character format and ':', such as \"txt:\"", s)
		return false
	}
	tv.Kind = resp.VerbatimString
	tv.Format = s[:3]
	t, err := parseTemplate(l.pos(v), s[4:], &l.opts)
	if err != nil {
		l.errf(v, "%v", err)
		return false
	}
	tv.Text = t
	return true
}

// typedInt parses {int: N} into tv.
func (l *loader) typedInt(v *yaml.Node, tv *TypedValue) bool {
	tv.Kind = resp.Integer
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		l.errf(v, "int must be an integer, not %s", describe(v))
		return false
	}
	i, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		if err2 := v.Decode(&i); v.Tag != "!!int" || err2 != nil {
			l.errf(v, "bad int %q: want a 64-bit integer (use big for larger numbers)", v.Value)
			return false
		}
	}
	tv.Int = i
	return true
}

// verbatimFields parses the mapping form of a verbatim string: format (the
// 3 bytes before ':'), and text (a template, exact) or match (a pattern of
// the text); a missing part matches anything.
func (l *loader) verbatimFields(v *yaml.Node, tv *TypedValue) bool {
	m := l.mapping(v, "verbatim string", "format", "text", "match")
	if m == nil || m.unknown > 0 {
		return false
	}
	if len(m.keys) == 0 {
		l.errf(v, "empty verbatim string (want format, text or match)")
		return false
	}
	if m.has("text") && m.has("match") {
		l.errf(m.key("match"), "verbatim string has both \"text\" and \"match\"")
		return false
	}
	tv.Kind = resp.VerbatimString
	if f := m.get("format"); f != nil {
		s, ok := l.scalar(f, "format")
		if !ok {
			return false
		}
		if len(s) != 3 || strings.ContainsAny(s, ":\r\n") {
			l.errf(f, "verbatim format %q must be 3 bytes without ':', such as txt or mkd", s)
			return false
		}
		tv.Format = s
	}
	switch {
	case m.has("text"):
		tv.Text = l.template(m.get("text"), "verbatim text")
		return tv.Text != nil
	case m.has("match"):
		tv.KindOnly = true
		return l.matchPattern(m.get("match"), tv)
	}
	tv.KindOnly = true // the format alone
	return true
}

// tolerance parses the within of {double: X, within: T} into tv: a
// non-negative number (absolute), or a percentage such as "1%" (relative to
// |X|). A literal X must then be a decimal number.
func (l *loader) tolerance(v *yaml.Node, tv *TypedValue) bool {
	s, ok := l.scalar(v, "within")
	if !ok {
		return false
	}
	text, rel := strings.CutSuffix(s, "%")
	w, err := strconv.ParseFloat(text, 64)
	if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
		l.errf(v, "bad within %q: want a non-negative number (absolute) or a percentage such as 1%% (relative)", s)
		return false
	}
	if rel {
		w /= 100
	}
	if lit, isLit := tv.Text.Literal(); isLit {
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			l.errf(v, "within needs a number: double %q is not a decimal number", lit)
			return false
		}
	}
	tv.Family, tv.Within, tv.Relative = FamilyNumber, w, rel
	return true
}
