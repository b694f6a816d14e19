package cases

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// caseNode parses one case of f.
func (l *loader) caseNode(n *yaml.Node, f *File) *Case {
	m := l.mapping(n, "case", "name", "tags", "requires", "known", "exclusive", "literal_keys", "continue_on_failure", "steps", "cleanup", "scenario")
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
		c.Known = l.known(v, true)
		if slices.ContainsFunc(c.Known, func(k *Known) bool { return k.Crash }) {
			// Its crash would end the cases running beside it.
			c.Exclusive = true
		}
	}
	l.literalKeys(c, m)
	if v := m.get("continue_on_failure"); v != nil {
		c.ContinueOnFailure, _ = l.boolean(v, "continue_on_failure")
		switch {
		case m.has("scenario"):
			l.errf(m.key("continue_on_failure"), "continue_on_failure does not apply to a scenario: it has no steps")
		case c.ContinueOnFailure && m.has("known"):
			// One known difference would make every later failure known.
			l.errf(m.key("known"), "a case with continue_on_failure: true takes known differences on its steps, not on the case (one would hide every later failure)")
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
	l.caseSteps(c, m, n)
	return c
}

// literalKeys parses a case's literal_keys: a boolean, not on a scenario
// (whose keys are always {key}), and making the case exclusive (its literal
// names would collide with another case's, or with its own run in the
// other protocol): exclusive: false beside it is an error.
func (l *loader) literalKeys(c *Case, m *fields) {
	v := m.get("literal_keys")
	if v == nil {
		return
	}
	c.LiteralKeys, _ = l.boolean(v, "literal_keys")
	switch {
	case c.LiteralKeys && m.has("scenario"):
		l.errf(m.key("literal_keys"), "literal_keys does not apply to a scenario: its keys are always {key}")
	case c.LiteralKeys && m.has("exclusive") && !c.Exclusive:
		l.errf(m.key("exclusive"), "a case with literal_keys: true runs alone (its keys are not namespaced): remove exclusive: false")
	case c.LiteralKeys:
		c.Exclusive = true
	}
}

// known parses the known differences of a case (caseLevel) or a step; only
// a case's may say crash: true.
func (l *loader) known(v *yaml.Node, caseLevel bool) []*Known {
	var ks []*Known
	for _, item := range l.seq(v, "known") {
		km := l.mapping(item, "known difference", "server", "reason", "crash")
		if km == nil {
			continue
		}
		k := &Known{Pos: l.pos(item)}
		if cv := km.get("crash"); cv != nil {
			if k.Crash, _ = l.boolean(cv, "crash"); k.Crash && !caseLevel {
				l.errf(km.key("crash"), "crash: true is a case's known difference (the server dies on the case): move it to the case's known")
			}
		}
		if sv := km.need(l, item, "server"); sv != nil {
			k.Server, _ = l.selector(sv, "server selector")
		}
		if rv := km.need(l, item, "reason"); rv != nil {
			k.Reason = l.nonEmptyString(rv, "reason")
		}
		ks = append(ks, k)
	}
	return ks
}

// caseSteps parses the steps and cleanup steps of the case mapping m (at
// n), and checks that every async reply is read.
func (l *loader) caseSteps(c *Case, m *fields, n *yaml.Node) {
	v := m.need(l, n, "steps")
	if v == nil {
		return
	}
	items := l.seq(v, "steps")
	if items != nil && len(items) == 0 {
		l.errf(v, "case has no steps")
	}
	cs := &caseState{defined: map[string]bool{}, pending: map[string][]Pos{}, firstUse: map[string]Pos{}, c: c}
	for i, item := range items {
		if s := l.step(item, i, cs); s != nil {
			c.Steps = append(c.Steps, s)
		}
	}
	if v := m.get("cleanup"); v != nil {
		// Cleanup steps run after the steps whatever their outcome; they see
		// the captures of the steps, and start with no pending async reply.
		ccs := &caseState{defined: maps.Clone(cs.defined), pending: map[string][]Pos{}, firstUse: cs.firstUse, c: c, cleanup: true}
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
}

// caseState tracks what earlier steps of a case did, for static checks.
type caseState struct {
	defined map[string]bool  // captures set by earlier steps
	pending map[string][]Pos // unread async sends per connection
	// firstUse is where each connection is first used (steps, then
	// cleanup), the only step that may place it (Step.Node).
	firstUse map[string]Pos
	c        *Case // Case.Nodes is filled as connections are placed
	cleanup  bool  // the steps are cleanup steps
}

// placeConn checks that a connection's node is given where it is first
// used, and nowhere else.
func (l *loader) placeConn(s *Step, cs *caseState) {
	if s.Conn == "" {
		return
	}
	first, used := cs.firstUse[s.Conn]
	if !used {
		cs.firstUse[s.Conn] = s.Pos
		if s.Node != "" {
			if cs.c.Nodes == nil {
				cs.c.Nodes = map[string]string{}
			}
			cs.c.Nodes[s.Conn] = s.Node
		}
		return
	}
	if s.Node != "" {
		l.errAt(s.Pos, "connection %q is placed where it is first used (line %d): give node: there", s.Conn, first.Line)
	}
}

// Plural returns one when n is 1, else many: "1 case", "2 cases".
func Plural(n int, one, many string) string {
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
