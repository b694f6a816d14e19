package cases

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// File is one loaded case file: one suite.
type File struct {
	Path     string
	Suite    string
	Tags     []string
	Requires *Gates // nil if the file has no requires
	Cases    []*Case
	Hash     string // hex SHA-256 of the file bytes
	// Vars names the variables the file's templates use ({var:NAME}, set
	// by --var NAME=VALUE), sorted: a command that loads the file again
	// must give them.
	Vars []string
}

// Case is one test case.
type Case struct {
	Pos      Pos
	File     *File
	Name     string
	Tags     []string
	Requires *Gates // nil if the case has no requires
	// Exclusive cases run alone: no other case runs on the server at the
	// same time (server-wide counters, DEBUG SLEEP, slow scripts).
	Exclusive bool
	// LiteralKeys (literal_keys: true) keeps the key names the case writes
	// literally (SET foo bar) as they are; otherwise the runner moves them
	// into the case's namespace (see the package documentation, Literal
	// keys). Such a case is also Exclusive.
	LiteralKeys bool
	// ContinueOnFailure (continue_on_failure: true) runs every step of
	// the case after one fails, each a failure of its own (a captured
	// application's traffic: each reply compared, the commands sent all
	// the same). Otherwise the case ends at its first failing step.
	ContinueOnFailure bool
	Known             []*Known
	Steps             []*Step
	// Cleanup steps run after Steps whatever their outcome (a failure, an
	// error): restoring a CONFIG SET, deleting a function library. A cleanup
	// step that does not get its expected reply makes the case an error.
	Cleanup []*Step
	// Scenario, when not nil, is what the case runs instead of Steps
	// (which is then empty).
	Scenario *Scenario
	// Nodes places connections on a cluster: the node (Step.Node) given
	// where each connection is first used, by connection name; nil when no
	// step places one.
	Nodes map[string]string
	// Hash is the hex SHA-256 of what the case says: its YAML, and the
	// file's suite-level tags and requires, without comments, quoting or
	// layout (a golden compares a case only with a recording of the same
	// Hash; editing one case leaves the others current).
	Hash string
}

// ConnNode returns where connection name goes on a cluster (see Step.Node).
func (c *Case) ConnNode(name string) string { return c.Nodes[name] }

// ID returns the stable id of the case: the file path, "/", and the name.
func (c *Case) ID() string { return c.File.Path + "/" + c.Name }

// AllTags returns the file's tags followed by the case's.
func (c *Case) AllTags() []string {
	var tags []string
	if c.File != nil {
		tags = append(tags, c.File.Tags...)
	}
	return append(tags, c.Tags...)
}

// Gates returns the gates that apply to the case: the file's, then the
// case's, skipping absent ones. A case runs only if all of them pass.
func (c *Case) Gates() []*Gates {
	var gs []*Gates
	if c.File != nil && c.File.Requires != nil {
		gs = append(gs, c.File.Requires)
	}
	if c.Requires != nil {
		gs = append(gs, c.Requires)
	}
	return gs
}

// KnownFor returns the case's first known difference matching info (its
// server and protocol), or nil.
func (c *Case) KnownFor(info ServerInfo) *Known { return knownFor(c.Known, info) }

// KnownFor returns the step's first known difference matching info, or nil.
func (s *Step) KnownFor(info ServerInfo) *Known { return knownFor(s.Known, info) }

// knownFor returns the first of ks whose selector matches info, or nil.
func knownFor(ks []*Known, info ServerInfo) *Known {
	for _, k := range ks {
		if k.Server.Match(info) {
			return k
		}
	}
	return nil
}

// Gates are the conditions under which a file or case runs. All present
// conditions must hold.
type Gates struct {
	Pos      Pos
	Servers  []Selector // any of them must match; empty means any server
	Commands []string   // each must exist on the server (COMMAND INFO)
	Absent   []string   // each must be unknown to the server (COMMAND INFO)
	Debug    bool       // the DEBUG command must be enabled
	Proto    int        // 0 (both), 2 or 3: run only in this protocol
	Probes   []*Probe   // each probe's reply must not be an error
	// Cluster requires a cluster target; Replicas, a cluster whose every
	// shard has a replica.
	Cluster, Replicas bool
	// Standalone, when not empty, requires a standalone server and says why
	// the case cannot run on a cluster (shown as the skip reason there).
	Standalone string
	// Since, when not nil, is the selector "redis_version>=V" of since: V:
	// the server must claim the Redis API of V or later (Redis ≥ V; Valkey
	// 8.0.1 and 9.1.2 claim 7.2.4).
	Since *Selector
}

// MatchServer reports whether info passes the Servers, Since, Proto and
// topology gates (the static ones; Commands, Debug and Probes need the live server).
func (g *Gates) MatchServer(info ServerInfo) bool {
	if g.Proto != 0 && info.Proto != g.Proto {
		return false
	}
	if g.Cluster && !info.Cluster || g.Standalone != "" && info.Cluster || g.Since != nil && !g.Since.Match(info) {
		return false
	}
	if len(g.Servers) == 0 {
		return true
	}
	for _, s := range g.Servers {
		if s.Match(info) {
			return true
		}
	}
	return false
}

// Probe is a command whose success tells that a feature is present.
type Probe struct {
	Pos  Pos
	Send []Template
}

// Known is a known difference: on matching servers (and protocols: the
// selector's resp2 or resp3 term) the case, or the step that declares it
// (Step.Known), is expected to fail.
type Known struct {
	Pos    Pos
	Server Selector
	Reason string
	// Crash (case-level only) says that the server dies on this case: a
	// throwaway server is started again and the case is known; on a target
	// the run cannot restart, the case is skipped, not run.
	Crash bool
}

// DefaultConn is the name of the connection of steps without "conn".
const DefaultConn = "default"

// Node placements of a connection on a cluster (Step.Node).
const (
	// NodeOwner is the primary that owns the case's slot, where an
	// unplaced connection goes too; a connection placed there explicitly
	// is a placed connection all the same (client views send its steps on
	// respcheck's own connection to that node, not through the library).
	NodeOwner   = "owner"
	NodeOther   = "other"
	NodeReplica = "replica"
)

// Step is one step of a case.
type Step struct {
	Pos    Pos
	Index  int // 0-based index in Case.Steps
	Action Action
	Conn   string // never empty: DefaultConn if not given (empty for sleep)
	// Node places the connection on a cluster (conn: {name: b, node: ...}),
	// given where it is first used: "" (the primary that owns the case's
	// slot), NodeOwner (the same node, placed explicitly), NodeOther (a primary of another shard) or NodeReplica (a
	// replica of the owner). A standalone server ignores it.
	Node    string
	Send    []Template
	Raw     *Template
	Async   bool
	Sleep   time.Duration
	Timeout time.Duration // 0: the runner's default
	Capture string
	// CaptureMatch, if set, captures the first group of this pattern's
	// match in the reply's payload text instead of the whole text; no match
	// fails the step.
	CaptureMatch *regexp.Regexp
	// Expect is the expectation of the step's reply: one variant with a
	// zero When for a plain expectation, several for a selector map or an
	// "expect" list. It is nil for async sends and sleeps; it is never nil
	// for other steps (a send/raw/read without an expectation gets
	// ExpectNotError).
	Expect Variants
	// Replies, when not nil, are the expectations of the several replies
	// the step reads, in order (replies: [...]; a raw write of several
	// commands); Expect is then Replies[0]. The last may be ExpectClosed.
	Replies []Variants
	// Known are the step's known differences: on a matching server its
	// failure makes the case known (if no other step fails), its pass is
	// a failure (the difference no longer reproduces). Not on async sends,
	// sleeps and cleanup steps.
	Known []*Known
	// NoPush asserts that no push frame arrives while the step reads its
	// reply (or replies, or silence): a push before the reply is a failure.
	NoPush bool
	// Volatile marks a reply that changes from run to run (ids, TTLs,
	// timestamps): goldens (runner/golden) compare it by the expectation
	// only, never byte for byte.
	Volatile bool
}

// CapturedArgs returns the indexes in Send of the arguments whose
// template uses a value captured from an earlier reply ({cap:NAME}, a
// client ID for example): their bytes change from run to run as the
// captured value does. Nil for a step that sends no such argument (and
// for raw steps, whose bytes are one template).
func (s *Step) CapturedArgs() []int {
	var idx []int
	for i := range s.Send {
		if len(s.Send[i].caps) > 0 {
			idx = append(idx, i)
		}
	}
	return idx
}

// Variants is an ordered list of expectations for different servers.
type Variants []Variant

// Variant is an expectation for the servers its selector matches.
type Variant struct {
	When   Selector // zero value: always
	Expect *Expect
}

// Resolve returns the expectation of the first variant whose selector
// matches info. ok is false if none matches (the case has no expectation
// for that server), or if v is empty.
func (v Variants) Resolve(info ServerInfo) (*Expect, bool) {
	for _, x := range v {
		if x.When.Match(info) {
			return x.Expect, true
		}
	}
	return nil, false
}

// Expect is one expectation of a reply.
type Expect struct {
	Pos     Pos
	Kind    ExpectKind
	Bytes   *Template      // ExpectBytes
	Value   *TypedValue    // ExpectValue
	Text    *Template      // ExpectError, ExpectErrorCode
	Pattern *regexp.Regexp // ExpectErrorMatch
	OneOf   []*Expect      // ExpectOneOf: at least two
	// Within is the deadline of ExpectClosed (0: the step's timeout) and
	// the silence of ExpectNoReply.
	Within time.Duration
}

// TypedValue is an expected RESP value.
//
// Exactly one of these shapes:
//   - Any: any value at all.
//   - KindOnly: any value of Kind (and, if Match is set, whose payload
//     text matches it).
//   - Match (Kind 0, KindOnly false): any textual value (simple string,
//     simple error, blob string, blob error, verbatim string, integer,
//     double, big number, boolean) whose payload text matches.
//   - otherwise a value of Kind: Text for SimpleString, SimpleError,
//     BlobString, BlobError, VerbatimString (the text after "fmt:"), Double
//     and BigNumber (compared as the server's text); Format for
//     VerbatimString; Int for Integer; Bool for Boolean; Elems for Array,
//     Set, Push (elements) and Map (k0, v0, k1, v1, ...); nothing for
//     NilBlobString, NilArray and Null. Unordered (Map and Set): the
//     elements (pairs for a map) may come in any order.
//
// Family, when not 0, widens Kind to several kinds (see Family).
//
// Attr, if not nil, is an attribute the value must carry, as k0, v0, ...
type TypedValue struct {
	Pos      Pos
	Kind     resp.Kind
	Any      bool
	KindOnly bool
	Match    *regexp.Regexp
	// MatchTemplate, when set, is a pattern with templates: the runner
	// expands it, compiles it and uses it instead of Match (which is then an
	// empty pattern, so code that only tests Match != nil still sees a
	// pattern shape).
	MatchTemplate *Template
	Text          *Template
	Int           int64
	Bool          bool
	Format        string
	Elems         []*TypedValue
	Unordered     bool
	Attr          []*TypedValue
	Family        Family
	// Within is the tolerance of FamilyNumber: absolute, or with Relative
	// a fraction of the expected number's magnitude.
	Within   float64
	Relative bool
}

// Family is a set of RESP kinds that a loose typed value accepts, as a
// peer's oracle that decodes values rather than bytes does.
type Family uint8

// The families.
const (
	// FamilyString: a simple string, blob string or verbatim string (the
	// text after "fmt:") with the text Text ({string: TEXT}).
	FamilyString Family = iota + 1
	// FamilyNil: a nil blob string ($-1), a nil array (*-1) or a RESP3
	// null (_) ({nil: any}).
	FamilyNil
	// FamilyNumber: a number within Within of the number in Text, whatever
	// its kind: an integer, a double, a big number, or a simple, blob or
	// verbatim string holding a decimal number (RESP2 sends doubles as
	// blob strings) ({double: "0.3", within: 1e-9}).
	FamilyNumber
)

// FullName is the name --run matches: the file's base name without its
// extension, a slash, and the case name ("strings/SET then GET").
func (c *Case) FullName() string {
	base := ""
	if c.File != nil {
		base = strings.TrimSuffix(path.Base(c.File.Path), path.Ext(c.File.Path))
	}
	return base + "/" + c.Name
}

// Selected reports whether a run with these --run and --tags filters runs
// c: its FullName matches run (when run is not nil), and it or its file has
// one of tags (when there are any).
func (c *Case) Selected(run *regexp.Regexp, tags []string) bool {
	if run != nil && !run.MatchString(c.FullName()) {
		return false
	}
	if len(tags) == 0 {
		return true
	}
	for _, t := range tags {
		if slices.Contains(c.Tags, t) || (c.File != nil && slices.Contains(c.File.Tags, t)) {
			return true
		}
	}
	return false
}

// Shard is one part of a selection of cases, to split a run across
// machines: Index (1 to Count) takes every Count-th selected case from the
// Index-th, in file order, both protocols of a case together. The zero
// value is the whole selection.
type Shard struct {
	Index, Count int
}

// Has reports whether the case at pos (0-based) in the selection is in
// the shard.
func (s Shard) Has(pos int) bool { return s.Count <= 1 || pos%s.Count == s.Index-1 }

// String is "i/n", or "" for the whole selection.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard reads "i/n" (1 <= i <= n); "" is the whole selection.
func ParseShard(v string) (Shard, error) {
	if v == "" {
		return Shard{}, nil
	}
	var s Shard
	if _, err := fmt.Sscanf(v, "%d/%d", &s.Index, &s.Count); err != nil || s.Count < 1 || s.Index < 1 || s.Index > s.Count || s.String() != v && s.Count > 1 {
		return Shard{}, fmt.Errorf("bad shard %q: want i/n with 1 <= i <= n", v)
	}
	return s, nil
}

// Select returns the cases of files that a run with these --run and --tags
// filters would run (see Case.Selected), in order, without contacting a
// server.
func Select(files []*File, run *regexp.Regexp, tags []string) []*Case {
	var out []*Case
	for _, f := range files {
		for _, c := range f.Cases {
			if c.Selected(run, tags) {
				out = append(out, c)
			}
		}
	}
	return out
}
