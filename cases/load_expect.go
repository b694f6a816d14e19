package cases

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/respcheck/respcheck/resp"
)

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
	for _, m := range e.OneOf {
		dst = m.templates(dst)
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
	if k.Value == "expect" {
		if v.Kind == yaml.ScalarNode {
			return l.silentExpect(v)
		}
		return l.expectList(v, base)
	}
	return l.variants(expectKindByField(k.Value), k, v, base)
}

// variants parses the value v of the field k of the kind ek under the
// selector base: a selector map of expectations, or one expectation.
func (l *loader) variants(ek *expectKind, k, v *yaml.Node, base Selector) Variants {
	if ek.selectorMap != nil && v.Kind == yaml.MappingNode && ek.selectorMap(v) {
		return l.selectorMap(v, base, ek.field, func(val *yaml.Node) *Expect { return ek.parse(l, k, val) })
	}
	e := ek.parse(l, k, v)
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

// replyExpect parses reply: a template that must expand to one RESP frame.
func (l *loader) replyExpect(k, v *yaml.Node) *Expect {
	t := l.template(v, k.Value)
	if t == nil {
		return nil
	}
	l.checkReplyBytes(v, t)
	return &Expect{Pos: l.pos(v), Kind: ExpectBytes, Bytes: t}
}

// valueExpect parses value: a typed value.
func (l *loader) valueExpect(_, v *yaml.Node) *Expect {
	tv := l.typed(v)
	if tv == nil {
		return nil
	}
	return &Expect{Pos: l.pos(v), Kind: ExpectValue, Value: tv}
}

func (l *loader) errorTextExpect(k, v *yaml.Node) *Expect {
	return l.errorExpect(ExpectError, k.Value, v)
}

func (l *loader) errorCodeExpect(k, v *yaml.Node) *Expect {
	return l.errorExpect(ExpectErrorCode, k.Value, v)
}

// errorExpect parses the template of error or error_code (field): an error
// text without its RESP framing; for error_code, one word.
func (l *loader) errorExpect(kind ExpectKind, field string, v *yaml.Node) *Expect {
	t := l.template(v, field)
	if t == nil {
		return nil
	}
	if lit, ok := t.Literal(); ok {
		switch {
		case lit == "":
			l.errf(v, "%s must not be empty", field)
		case strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "!"):
			l.errf(v, "%s %q starts with %q: give the error text without the RESP type byte", field, lit, lit[:1])
		case strings.ContainsAny(lit, "\r\n"):
			l.errf(v, "%s must not contain \"\\r\" or \"\\n\"", field)
		case kind == ExpectErrorCode && strings.ContainsAny(lit, " \t"):
			l.errf(v, "%s %q must be one word (the error code, such as WRONGTYPE); use error or error_match for the text", field, lit)
		}
	}
	return &Expect{Pos: l.pos(v), Kind: kind, Text: t}
}

// errorMatchExpect parses error_match: a Go regular expression.
func (l *loader) errorMatchExpect(k, v *yaml.Node) *Expect {
	s, ok := l.scalar(v, k.Value)
	if !ok {
		return nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		l.errf(v, "bad %s regexp: %v", k.Value, err)
		return nil
	}
	return &Expect{Pos: l.pos(v), Kind: ExpectErrorMatch, Pattern: re}
}

// anyExpect parses any: true.
func (l *loader) anyExpect(k, v *yaml.Node) *Expect {
	if !l.isTrue(v, k.Value) {
		return nil
	}
	return &Expect{Pos: l.pos(k), Kind: ExpectAny}
}

// oneOfExpect parses one_of: a list of at least two mappings, each of one
// expectation field (no selector maps: one_of goes inside them).
func (l *loader) oneOfExpect(k, v *yaml.Node) *Expect {
	items := l.seq(v, k.Value)
	if items == nil {
		return nil
	}
	if len(items) < 2 {
		l.errf(v, "%s needs at least two expectations", k.Value)
		return nil
	}
	e := &Expect{Pos: l.pos(v), Kind: ExpectOneOf}
	kinds := expectKindFields(false)
	ok := true
	for _, item := range items {
		m := l.mapping(item, k.Value+" item", kinds...)
		if m == nil || m.unknown > 0 {
			ok = false
			continue
		}
		if len(m.keys) != 1 {
			l.errf(item, "%s item must hold exactly one expectation field (want one of: %s)", k.Value, strings.Join(kinds, ", "))
			ok = false
			continue
		}
		f, fv := m.keys[0], m.vals[0]
		ek := expectKindByField(f.Value)
		if ek.selectorMap != nil && fv.Kind == yaml.MappingNode && ek.selectorMap(fv) {
			l.errf(fv, "a selector map inside %s: put %s inside the selector map instead, or use expect with when", k.Value, k.Value)
			ok = false
			continue
		}
		if sub := ek.parse(l, f, fv); sub != nil {
			e.OneOf = append(e.OneOf, sub)
		} else {
			ok = false
		}
	}
	if !ok {
		return nil
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
	if _, err := resp.ParseExactLimits(b, resp.AnyDepth(b)); err != nil {
		hint := ""
		if strings.Contains(t.src, `\r`) || strings.Contains(t.src, `\n`) {
			hint = ` (the text holds a backslash sequence such as \r: write the reply as a double-quoted YAML string, "+OK\r\n")`
		}
		l.errf(n, "reply is not one complete RESP frame: %s%s", frameProblem(b, err), hint)
	}
}

// frameProblem says what resp.ParseExact found wrong with b, err.
func frameProblem(b []byte, err error) string {
	var se *resp.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	msg := strings.TrimPrefix(se.Error(), "resp: ")
	switch {
	case errors.Is(err, resp.ErrWrongLength):
		return msg
	case errors.Is(err, resp.ErrTrailing):
		return fmt.Sprintf("%d unexpected bytes after the end of the frame: %s", len(b)-int(se.Offset), se.Excerpt)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return `incomplete frame (missing "\r\n"?): ` + msg
	case errors.Is(err, resp.ErrBadLineEnd):
		return msg + ` (want "\r\n" there: a bare "\n" or "\r", or a wrong length?)`
	}
	return msg
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
	kinds := expectKindFields(false)
	var vs Variants
	for _, item := range items {
		m := l.mapping(item, "expect item", slices.Concat([]string{"when"}, kinds, []string{"expect"})...)
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
		exps := m.present(append(kinds, "expect")...)
		switch len(exps) {
		case 0:
			vs = append(vs, Variant{When: when, Expect: &Expect{Pos: l.pos(item), Kind: ExpectNotError}})
		case 1:
			if v := m.get("expect"); v != nil {
				// Only the silent forms: a list inside a list is one list.
				if v.Kind != yaml.ScalarNode {
					l.errf(v, "expect inside an expect item takes closed or no reply within DURATION, not %s", describe(v))
					continue
				}
				for _, s := range l.silentExpect(v) {
					vs = append(vs, Variant{When: when, Expect: s.Expect})
				}
				continue
			}
			vs = append(vs, l.expectField(exps[0], m.get(exps[0].Value), when)...)
		default:
			l.errf(exps[1], "expect item has both %q and %q", exps[0].Value, exps[1].Value)
		}
	}
	return vs
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
