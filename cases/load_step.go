package cases

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// stepOptions are the fields of a step besides its action (see actions)
// and its expectation (see expectFields).
var stepOptions = []string{"conn", "async", "capture", "timeout", "volatile", "known", "no_push"}

var (
	// expectFields are the expectation fields of a step: the kinds' (see
	// expectKinds), then the expect list.
	expectFields = append(expectKindFields(false), "expect", "replies")
	stepFields   = slices.Concat(actionFields(nil), stepOptions, expectFields)
)

// step parses the step n, the index-th of its case, and checks it against
// what the earlier steps did (cs), which it updates.
func (l *loader) step(n *yaml.Node, index int, cs *caseState) *Step {
	m := l.mapping(n, "step", stepFields...)
	if m == nil {
		return nil
	}
	act, ak := l.stepAction(n, m)
	if act == nil {
		return nil
	}
	exps := m.present(expectFields...)
	if len(exps) > 1 {
		l.errf(exps[1], "step has both %q and %q", exps[0].Value, exps[1].Value)
		return nil
	}
	s := &Step{Pos: l.pos(n), Index: index, Action: act.action, Conn: DefaultConn}
	av := m.get(act.field)
	if act.alone {
		for _, k := range m.keys {
			if k != ak {
				l.errf(k, "%q is not allowed in a %s step", k.Value, act.field)
			}
		}
		s.Conn = ""
		act.parse(l, s, ak, av, exps)
		return s
	}
	bad := !l.stepOptions(s, m, act)
	bad = !l.stepKnown(s, m, act, cs) || bad
	l.placeConn(s, cs)
	switch act.parse(l, s, ak, av, exps) {
	case dropStep:
		return nil
	case badStep:
		bad = true
	}
	if !l.stepExpect(s, m, act, exps) {
		bad = true
	}
	for _, t := range s.templates() {
		for _, c := range t.caps {
			if !cs.defined[c] {
				l.errAt(t.Pos, "capture %q is used before any step sets it", c)
			}
		}
	}
	l.pairAsync(s, act, ak, cs)
	if s.Capture != "" {
		cs.defined[s.Capture] = true
	}
	if bad {
		return nil
	}
	return s
}

// stepAction returns the action of the step mapping m (at n) and its key,
// or reports that it has none or two and returns nil.
func (l *loader) stepAction(n *yaml.Node, m *fields) (*action, *yaml.Node) {
	fields := actionFields(nil)
	acts := m.present(fields...)
	switch len(acts) {
	case 0:
		if m.unknown == 0 {
			l.errf(n, "step has no action (want one of: %s)", strings.Join(fields, ", "))
		}
		return nil, nil
	case 1:
	default:
		l.errf(acts[1], "step has both %q and %q", acts[0].Value, acts[1].Value)
		return nil, nil
	}
	for _, x := range actions {
		if x.field == acts[0].Value {
			return x, acts[0]
		}
	}
	panic("cases: action field without an entry: " + acts[0].Value)
}

// stepOptions parses the options of a step (conn, timeout, volatile, async,
// capture) into s. It returns false if one is not allowed or invalid in a
// way that makes the step unusable.
func (l *loader) stepOptions(s *Step, m *fields, act *action) bool {
	ok := true
	if v := m.get("conn"); v != nil {
		ok = l.connOption(s, v) && ok
	}
	if v := m.get("timeout"); v != nil {
		var tok bool
		if s.Timeout, tok = l.duration(v, "timeout"); tok && s.Timeout == 0 {
			l.errf(v, "timeout must be positive")
		}
	}
	if v := m.get("volatile"); v != nil {
		s.Volatile, _ = l.boolean(v, "volatile")
	}
	if v := m.get("async"); v != nil {
		if !act.sends {
			l.notAllowed(m, act, "async", fmt.Sprintf(" (only %s steps can be async)", orList(actionFields(func(x *action) bool { return x.sends }), "and")))
			ok = false
		} else {
			s.Async, _ = l.boolean(v, "async")
		}
	}
	if v := m.get("capture"); v != nil && !l.stepCapture(s, m, act, v) {
		ok = false
	}
	return ok
}

// stepKnown parses the known and no_push fields of a step into s. It
// returns false if one is not allowed there.
func (l *loader) stepKnown(s *Step, m *fields, act *action, cs *caseState) bool {
	ok := true
	if v := m.get("known"); v != nil {
		switch {
		case cs.cleanup:
			l.errf(m.key("known"), "known on a cleanup step: a cleanup step must succeed (give the case or a step of steps the known difference)")
			ok = false
		case s.Async:
			l.errf(m.key("known"), "known on an async %s: put it on the read step that reads the reply", act.field)
			ok = false
		default:
			s.Known = l.known(v, false)
		}
	}
	if v := m.get("no_push"); v != nil {
		switch {
		case act.action == ActPush:
			l.notAllowed(m, act, "no_push", " (no_push is for send, raw and read steps: a push step reads a push)")
			ok = false
		case s.Async:
			l.errf(m.key("no_push"), "no_push on an async %s: put it on the read step that reads the reply", act.field)
			ok = false
		default:
			s.NoPush, _ = l.boolean(v, "no_push")
		}
	}
	return ok
}

// notAllowed reports the field of m as not allowed in a step of act, why
// saying why.
func (l *loader) notAllowed(m *fields, act *action, field, why string) {
	l.errf(m.key(field), "%q is not allowed in a %s step%s", field, act.field, why)
}

// stepCapture parses the capture field v of a step into s.
func (l *loader) stepCapture(s *Step, m *fields, act *action, v *yaml.Node) bool {
	switch {
	case !act.capture:
		l.notAllowed(m, act, "capture", fmt.Sprintf(" (capture on %s steps)", orList(actionFields(func(x *action) bool { return x.capture }), "and")))
		return false
	case s.Async:
		l.errf(m.key("capture"), "capture on an async send: put it on the read step that reads the reply")
		return false
	case v.Kind == yaml.MappingNode:
		cm := l.mapping(v, "capture", "name", "match")
		if cm == nil {
			return false
		}
		if nv := cm.need(l, v, "name"); nv != nil {
			s.Capture = l.captureName(nv, "capture name")
		}
		if mv := cm.need(l, v, "match"); mv != nil {
			if s.CaptureMatch = l.regexp(mv); s.CaptureMatch != nil && s.CaptureMatch.NumSubexp() != 1 {
				l.errf(mv, "capture pattern %q must have exactly one group", s.CaptureMatch)
			}
		}
	default:
		s.Capture = l.captureName(v, "capture")
	}
	return true
}

// captureName parses the name of a capture.
func (l *loader) captureName(n *yaml.Node, what string) string {
	c, ok := l.scalar(n, what)
	if ok && !isIdent(c) {
		l.errf(n, "bad capture name %q: want an identifier", c)
	}
	return c
}

// stepExpect checks the expectation fields exps of a step against its
// action and sets s.Expect (ExpectNotError when a step that reads a reply
// has none). It returns false if the step is unusable.
func (l *loader) stepExpect(s *Step, m *fields, act *action, exps []*yaml.Node) bool {
	ok := true
	if s.Async && s.Volatile {
		l.errf(m.key("volatile"), "volatile on an async %s: put it on the read step that reads the reply", act.field)
		ok = false
	}
	if s.Async && len(exps) > 0 {
		l.errf(exps[0], "an async %s takes no expectation: put %q on the read step that reads the reply", act.field, exps[0].Value)
		ok = false
	}
	if len(exps) == 1 && exps[0].Value == "replies" {
		return l.repliesField(s, m, act, exps[0]) && ok
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
	if act.action == ActPush && slices.ContainsFunc(s.Expect, func(v Variant) bool { return v.Expect.Silent() }) {
		l.errf(exps[0], "a push step reads a frame: closed and no reply are for send, raw and read steps")
		ok = false
	}
	return ok
}

// pairAsync pairs the async sends and the reads of a connection (cs), in
// order; ak is the key of the step's action, where problems are reported.
func (l *loader) pairAsync(s *Step, act *action, ak *yaml.Node, cs *caseState) {
	q := cs.pending[s.Conn]
	switch {
	case act.sends && s.Async:
		cs.pending[s.Conn] = append(q, s.Pos)
	case act.sends && len(q) > 0:
		l.errf(ak, "%s on connection %q while %d async repl%s pending: read %s first, or make this %s async too",
			act.field, s.Conn, len(q), Plural(len(q), "y is", "ies are"), Plural(len(q), "it", "them"), act.field)
	case act.readsAsync && len(q) == 0:
		l.errf(ak, "%s on connection %q with no pending async send", act.field, s.Conn)
	case act.readsAsync:
		cs.pending[s.Conn] = q[1:]
	}
}

// templates returns the templates of s: its command's, its raw bytes', and
// its expectations'.
func (s *Step) templates() []*Template {
	var ts []*Template
	for i := range s.Send {
		ts = append(ts, &s.Send[i])
	}
	if s.Raw != nil {
		ts = append(ts, s.Raw)
	}
	replies := s.Replies
	if replies == nil {
		replies = []Variants{s.Expect}
	}
	for _, vs := range replies {
		for _, v := range vs {
			ts = v.Expect.templates(ts)
		}
	}
	return ts
}

func (l *loader) sendAction(s *Step, k, v *yaml.Node, _ []*yaml.Node) verdict {
	args, ok := l.args(v, k.Value)
	s.Send = args
	if !ok {
		return badStep
	}
	return keepStep
}

func (l *loader) rawAction(s *Step, k, v *yaml.Node, _ []*yaml.Node) verdict {
	s.Raw = l.template(v, k.Value)
	if s.Raw != nil && s.Raw.src == "" {
		l.errf(v, "%s must not be empty", k.Value)
	}
	return keepStep
}

func (l *loader) readAction(_ *Step, k, v *yaml.Node, _ []*yaml.Node) verdict {
	if !l.isTrue(v, k.Value) {
		return dropStep
	}
	return keepStep
}

// pushAction parses push: true (the frame is checked by the step's
// expectation field) or push: V (a typed value or a selector map of them).
func (l *loader) pushAction(s *Step, k, v *yaml.Node, exps []*yaml.Node) verdict {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		if l.isTrue(v, k.Value) && len(exps) == 0 {
			l.errf(v, "%s: true needs an expectation (%s); or give the typed value as %s: {...}",
				k.Value, orList(append(expectKindFields(true), "expect"), "or"), k.Value)
		}
		for _, e := range exps {
			if ek := expectKindByField(e.Value); ek != nil && ek.notOnPush != "" {
				l.errf(e, "%q is not allowed in a %s step (%s)", e.Value, k.Value, ek.notOnPush)
			}
		}
		return keepStep
	}
	if len(exps) > 0 {
		l.errf(exps[0], "step has both %q and %q (give the push frame either as %s: {typed value}, or as %s: true with %q)",
			k.Value, exps[0].Value, k.Value, k.Value, exps[0].Value)
		return dropStep
	}
	s.Expect = l.variants(ExpectValue.info(), k, v, Selector{})
	return keepStep
}

func (l *loader) sleepAction(s *Step, k, v *yaml.Node, _ []*yaml.Node) verdict {
	s.Sleep, _ = l.duration(v, k.Value)
	return keepStep
}

// connOption parses conn: NAME or conn: {name: NAME, node: owner|other|replica}.
func (l *loader) connOption(s *Step, v *yaml.Node) bool {
	nameNode := v
	if v.Kind == yaml.MappingNode {
		m := l.mapping(v, "conn", "name", "node")
		if m == nil {
			return false
		}
		if nameNode = m.get("name"); nameNode == nil {
			l.errf(v, "conn: {...} needs a name")
			return false
		}
		if nv := m.get("node"); nv != nil {
			node, nok := l.scalar(nv, "node")
			switch {
			case !nok:
				return false
			case node == NodeOwner || node == NodeOther || node == NodeReplica:
				s.Node = node
			default:
				l.errf(nv, "unknown node %q: want owner (the primary of the case's slot), other (a primary of another shard) or replica (a replica of the owner)", node)
				return false
			}
		}
	}
	c, ok := l.scalar(nameNode, "conn")
	if !ok {
		return false
	}
	if !isConnName(c) {
		l.errf(nameNode, "bad connection name %q: want letters, digits, '_' and '-', starting with a letter", c)
		return false
	}
	s.Conn = c
	return true
}

// repliesField parses replies: [...] (at k) into s.Replies: at least two
// items, each a mapping of one expectation field (as a step's) or a silent
// expectation (closed, only last; no reply within D).
func (l *loader) repliesField(s *Step, m *fields, act *action, k *yaml.Node) bool {
	switch {
	case !act.sends && !act.readsAsync:
		l.notAllowed(m, act, "replies", " (replies on send, raw and read steps)")
		return false
	case s.Capture != "":
		l.errf(m.key("capture"), "capture on a step with replies: capture one reply per step")
		return false
	}
	items := l.seq(m.get("replies"), "replies")
	if items == nil {
		return false
	}
	if len(items) < 2 {
		l.errf(m.get("replies"), "replies needs at least two expectations (one reply: use the expectation field itself)")
		return false
	}
	fields := expectFields[:len(expectFields)-1] // not replies itself
	ok := true
	for i, item := range items {
		var vs Variants
		if item.Kind == yaml.ScalarNode {
			vs = l.silentExpect(item)
		} else if im := l.mapping(item, "replies item", fields...); im != nil && im.unknown == 0 {
			if len(im.keys) != 1 {
				l.errf(item, "replies item must hold exactly one expectation field (want one of: %s)", strings.Join(fields, ", "))
			} else {
				vs = l.expectField(im.keys[0], im.vals[0], Selector{})
				l.checkReachable(vs)
			}
		}
		if vs == nil {
			ok = false
			continue
		}
		if i < len(items)-1 && slices.ContainsFunc(vs, func(v Variant) bool { return v.Expect.Kind == ExpectClosed }) {
			l.errf(item, "closed must be the last of the replies: nothing can be read after the server closed the connection")
			ok = false
		}
		s.Replies = append(s.Replies, vs)
	}
	if !ok {
		return false
	}
	s.Expect = s.Replies[0]
	return true
}

// silentExpect parses the scalar forms of expect: closed, closed within D,
// and no reply within D (D a positive Go duration).
func (l *loader) silentExpect(n *yaml.Node) Variants {
	text, _ := l.scalar(n, "expect")
	e := &Expect{Pos: l.pos(n)}
	rest, ok := "", false
	switch {
	case text == "closed":
		e.Kind, ok = ExpectClosed, true
	case strings.HasPrefix(text, "closed within "):
		e.Kind, rest, ok = ExpectClosed, strings.TrimPrefix(text, "closed within "), true
	case strings.HasPrefix(text, "no reply within "):
		e.Kind, rest, ok = ExpectNoReply, strings.TrimPrefix(text, "no reply within "), true
	}
	if !ok {
		l.errf(n, "bad expectation %q: want closed, closed within DURATION, no reply within DURATION, or a list of variants", text)
		return nil
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 {
			l.errf(n, "bad duration %q in %q: want a positive Go duration such as 100ms", rest, text)
			return nil
		}
		e.Within = d
	}
	return Variants{{Expect: e}}
}
