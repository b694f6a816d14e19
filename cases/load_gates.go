package cases

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

var gateFields = []string{"server", "since", "commands", "command", "absent", "debug", "proto", "probes", "cluster", "standalone"}

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
	if v := m.get("since"); v != nil {
		g.Since = l.since(v)
	}
	addCommand := func(item *yaml.Node, dst *[]string) {
		if s, ok := l.word(item, "command", "bad command name %q"); ok {
			*dst = append(*dst, s)
		}
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
	if v := m.get("cluster"); v != nil {
		switch {
		case v.Kind == yaml.ScalarNode && v.Value == "replicas":
			g.Cluster, g.Replicas = true, true
		case v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && v.Value == "true":
			g.Cluster = true
		case v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
			l.errf(v, "cluster: false is not a gate: write standalone: REASON (why the case cannot run on a cluster)")
		default:
			l.errf(v, "cluster must be true or replicas, not %s", describe(v))
		}
	}
	if v := m.get("standalone"); v != nil {
		if s, ok := l.scalar(v, "standalone"); ok {
			if strings.TrimSpace(s) == "" || s == "true" {
				l.errf(v, "standalone takes the reason the case cannot run on a cluster, not %q", s)
			}
			g.Standalone = s
		}
	}
	if g.Cluster && g.Standalone != "" {
		l.errf(n, "requires both cluster and standalone: the case could never run")
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

// since parses since: V (a version, quoted or not) into the selector
// redis_version>=V.
func (l *loader) since(v *yaml.Node) *Selector {
	s, ok := l.scalar(v, "since")
	if !ok {
		return nil
	}
	if _, err := ParseVersion(s); err != nil {
		l.errf(v, "bad since: %v (such as since: \"6.2\")", err)
		return nil
	}
	sel, err := ParseSelector("redis_version>=" + s)
	if err != nil {
		l.errf(v, "bad since: %v", err)
		return nil
	}
	sel.Pos = l.pos(v)
	return &sel
}
