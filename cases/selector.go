package cases

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a server version, major.minor.patch. Missing parts are zero:
// "8" is 8.0.0 and "8.4" is 8.4.0.
type Version [3]int

// ParseVersion parses 1 to 3 dot-separated non-negative decimal numbers,
// such as "8", "8.4" or "7.0.15", ignoring a pre-release or build suffix
// ("9.2.0-rc1" is 9.2.0). Nothing else is accepted (no "v" prefix).
func ParseVersion(s string) (Version, error) {
	var v Version
	// A pre-release or build suffix ("9.2.0-rc1", "7.2.4+build") does not
	// take part in comparisons: 9.2.0-rc1 is 9.2.0.
	if i := strings.IndexAny(s, "-+"); i > 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 3 {
		return v, fmt.Errorf("bad version %q: want 1 to 3 dot-separated numbers", s)
	}
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 9 {
			return Version{}, fmt.Errorf("bad version %q: want 1 to 3 dot-separated numbers", s)
		}
		v[i], _ = strconv.Atoi(p)
	}
	return v, nil
}

// String returns the version as "major.minor.patch".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than o.
func (v Version) Compare(o Version) int {
	return cmp.Or(cmp.Compare(v[0], o[0]), cmp.Compare(v[1], o[1]), cmp.Compare(v[2], o[2]))
}

// ServerInfo describes the server and connection a selector is matched
// against.
type ServerInfo struct {
	Family  string // "redis" or "valkey"
	Version Version
	// RedisVersion is the version of the Redis API the server claims:
	// INFO server's redis_version (Redis: its own version; Valkey 8.0.1 and
	// 9.1.2 answer redis_version:7.2.4, the Redis it forked from).
	RedisVersion Version
	Proto        int // 2 or 3
	// Cluster is true for a cluster node (INFO's redis_mode:cluster).
	Cluster bool
}

// Selector is a parsed selector string: space-separated terms that must
// all match. The zero Selector (no terms) matches everything. See the
// package documentation for the grammar.
type Selector struct {
	Pos   Pos
	Text  string
	terms []selTerm
}

type selTermKind uint8

const (
	selProto selTermKind = iota + 1
	selFamily
	selDefault
	selTopology
	selRedisVersion
)

type selTerm struct {
	kind    selTermKind
	proto   int
	family  string
	op      string // "", ">=", "<=", ">", "<", "==", "!="
	version Version
	cluster bool // selTopology: the cluster term (else standalone)
}

// selectorWords are the words a selector term starts with. They are
// disjoint from the typed value tags (see typedTags), which lets a mapping
// under "value:" be told apart as a selector map or a typed value.
var selectorWords = []string{"resp2", "resp3", "redis", "valkey", "miniredis", "default", "cluster", "standalone", "redis_version"}

// families are the server families a selector can name: "miniredis" is
// the embedded emulator of --server miniredis (github.com/alicebob/miniredis,
// which HELLO 3 identifies as server miniredis).
var families = []string{"redis", "valkey", "miniredis"}

// ParseSelector parses a selector string. The returned Selector has no Pos;
// the loader sets it.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{Text: s}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return Selector{}, fmt.Errorf("bad selector %q: empty", s)
	}
	for _, f := range fields {
		t, err := parseSelTerm(f)
		if err != nil {
			return Selector{}, fmt.Errorf("bad selector %q: %v", s, err)
		}
		sel.terms = append(sel.terms, t)
	}
	return sel, nil
}

func parseSelTerm(f string) (selTerm, error) {
	i := 0
	for i < len(f) && (f[i] >= 'a' && f[i] <= 'z' || f[i] >= 'A' && f[i] <= 'Z' || f[i] >= '0' && f[i] <= '9' || f[i] == '_' || f[i] == '-') {
		i++
	}
	word, rest := f[:i], f[i:]
	switch word {
	case "resp2", "resp3", "default", "cluster", "standalone":
		if rest != "" {
			return selTerm{}, fmt.Errorf("term %q takes no version constraint", word)
		}
		switch word {
		case "default":
			return selTerm{kind: selDefault}, nil
		case "cluster", "standalone":
			return selTerm{kind: selTopology, cluster: word == "cluster"}, nil
		}
		return selTerm{kind: selProto, proto: int(word[4] - '0')}, nil
	case "redis", "valkey", "miniredis", "redis_version":
		t := selTerm{kind: selFamily, family: word}
		if word == "redis_version" {
			t = selTerm{kind: selRedisVersion}
			if rest == "" {
				return selTerm{}, fmt.Errorf("redis_version needs a version constraint, such as redis_version>=6.2")
			}
		}
		if rest == "" {
			return t, nil
		}
		for _, op := range []string{">=", "<=", "==", "!=", ">", "<"} {
			if strings.HasPrefix(rest, op) {
				t.op = op
				break
			}
		}
		if t.op == "" {
			return selTerm{}, fmt.Errorf("bad version constraint %q (want one of >=, <=, ==, !=, >, < and a version)", rest)
		}
		v, err := ParseVersion(rest[len(t.op):])
		if err != nil {
			return selTerm{}, err
		}
		t.version = v
		return t, nil
	case "":
		return selTerm{}, fmt.Errorf("unknown term %q (want resp2, resp3, cluster, standalone, default, redis/valkey with an optional version constraint, or redis_version with one)", f)
	default:
		return selTerm{}, fmt.Errorf("unknown term %q", word)
	}
}

// IsZero reports whether s is the zero Selector, which matches everything.
func (s Selector) IsZero() bool { return len(s.terms) == 0 }

// String returns the selector text.
func (s Selector) String() string { return s.Text }

// Match reports whether every term of s matches info. The zero Selector
// matches everything.
func (s Selector) Match(info ServerInfo) bool {
	for _, t := range s.terms {
		if !t.match(info) {
			return false
		}
	}
	return true
}

// alwaysMatches reports whether s matches every server (zero, or only
// "default" terms).
func (s Selector) alwaysMatches() bool {
	for _, t := range s.terms {
		if t.kind != selDefault {
			return false
		}
	}
	return true
}

// and returns a selector matching where both s and o match.
func (s Selector) and(o Selector) Selector {
	switch {
	case s.IsZero():
		return o
	case o.IsZero():
		return s
	}
	return Selector{
		Pos:   o.Pos,
		Text:  s.Text + " " + o.Text,
		terms: append(append([]selTerm(nil), s.terms...), o.terms...),
	}
}

func (t selTerm) match(info ServerInfo) bool {
	switch t.kind {
	case selDefault:
		return true
	case selProto:
		return info.Proto == t.proto
	case selTopology:
		return info.Cluster == t.cluster
	case selRedisVersion:
		return t.compare(info.RedisVersion)
	case selFamily:
		if !strings.EqualFold(info.Family, t.family) {
			return false
		}
		return t.compare(info.Version)
	}
	return false
}

// compare reports whether v passes the term's version constraint (none:
// every version).
func (t selTerm) compare(v Version) bool {
	c := v.Compare(t.version)
	switch t.op {
	case "":
		return true
	case ">=":
		return c >= 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case "<":
		return c < 0
	case "==":
		return c == 0
	case "!=":
		return c != 0
	}
	return false
}
