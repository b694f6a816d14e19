package cases

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/respcheck/respcheck/resp"
)

// ExpectKind is the kind of an expectation.
type ExpectKind int

// The expectation kinds. The zero ExpectKind is invalid. Each is described
// by its entry in expectKinds.
const (
	ExpectBytes      ExpectKind = iota + 1 // Bytes: the reply's bytes, exactly
	ExpectValue                            // Value: a typed value
	ExpectError                            // Text: the error text, exactly
	ExpectErrorCode                        // Text: the first word of the error text
	ExpectErrorMatch                       // Pattern: matches the error text
	ExpectAny                              // any reply, errors included
	ExpectNotError                         // any reply but an error
	ExpectOneOf                            // OneOf: any of these expectations
	// ExpectClosed: no reply; the server closes the connection within
	// Within (0: the step's timeout).
	ExpectClosed
	// ExpectNoReply: nothing arrives for Within, and the connection stays
	// open.
	ExpectNoReply
)

// expectKind is one kind of expectation: everything the loader, the
// matcher (Expect.Match, which the runner calls), the golden writer
// (Expect.Loose) and the manual (manual.md) know of it. Adding a kind is adding
// its ExpectKind constant and its entry here, with their tests.
//
// The matcher lives in the entry, in this package, rather than in a table
// of the runner keyed by the kind: matching needs only resp and cases types,
// cases cannot import runner, and a second table would be a second place to
// edit (and to forget). The runner turns a Mismatch into its Failure.
type expectKind struct {
	kind ExpectKind
	// field is the YAML field of the kind in a step and in an expect item;
	// empty for ExpectNotError, which a step without an expectation gets.
	field string
	// name is the kind's name in messages (ExpectKind.String).
	name string
	// example and doc are the kind's entry in the manual's list of
	// expectations (manual.md, "## Expectations"): an example of the field, and
	// what it checks, "\n" separating the manual's lines. TestDocTables
	// checks that manual.md holds them.
	example, doc string
	// selectorMap reports whether a mapping under the field is a selector
	// map (see Selectors) rather than the expectation itself; nil: never.
	selectorMap func(n *yaml.Node) bool
	// parse parses the value v of the field (whose key is k) into one
	// expectation, or reports why it cannot and returns nil.
	parse func(l *loader, k, v *yaml.Node) *Expect
	// notOnPush says why the kind cannot check a push frame (push: true);
	// empty if it can.
	notOnPush string
	// match checks a reply; it returns nil when the reply matches.
	match func(e *Expect, v resp.Value, env *Env) (*Mismatch, error)
	// loose says whether goldens check a reply by the expectation alone,
	// never byte for byte (Expect.Loose); nil: never.
	loose func(e *Expect) bool
	// acceptsPush says whether a push frame is the awaited reply itself,
	// rather than an out-of-band frame to set aside (Expect.AcceptsPush);
	// nil: never.
	acceptsPush func(e *Expect) bool
	// excludesErrors says whether no error reply meets e
	// (Expect.ExcludesErrors); nil: one may.
	excludesErrors func(e *Expect) bool
}

func anyMapping(*yaml.Node) bool { return true }

const errorsNotPushes = "push frames are not errors"

// expectKinds are the expectation kinds, in the order of the manual and of
// the "want one of" lists in messages.
var expectKinds = []*expectKind{
	{
		kind: ExpectBytes, field: "reply", name: "reply",
		example: `reply: "+OK\r\n"`, doc: "the reply's bytes, exactly (a template)",
		selectorMap: anyMapping, parse: (*loader).replyExpect,
		match: matchBytes, acceptsPush: bytesAcceptPush,
		excludesErrors: func(e *Expect) bool {
			src := e.Bytes.Source()
			return src != "" && !strings.ContainsRune("-!{", rune(src[0]))
		},
	},
	{
		kind: ExpectValue, field: "value", name: "value",
		example: "value: {...}", doc: "a typed value (see Typed values)",
		selectorMap: isSelectorMap, parse: (*loader).valueExpect,
		match:       matchTypedValue,
		loose:       func(e *Expect) bool { return e.Value.Loose() },
		acceptsPush: func(e *Expect) bool { return e.Value.Kind == resp.Push },
		excludesErrors: func(e *Expect) bool {
			v := e.Value
			return !v.Any && (v.Family != 0 || v.Kind != 0 && v.Kind != resp.SimpleError && v.Kind != resp.BlobError)
		},
	},
	{
		kind: ExpectError, field: "error", name: "error",
		example: `error: "ERR syntax error"`,
		doc: "the reply is an error with exactly this text: the\n" +
			"text after '-' of a simple error, or the payload\n" +
			`of a blob error; without "\r\n" (a template)`,
		selectorMap: anyMapping, parse: (*loader).errorTextExpect, match: matchErrorText,
		notOnPush: errorsNotPushes,
	},
	{
		kind: ExpectErrorCode, field: "error_code", name: "error_code",
		example: "error_code: WRONGTYPE", doc: "the reply is an error whose first word is this",
		selectorMap: anyMapping, parse: (*loader).errorCodeExpect, match: matchErrorCode,
		notOnPush: errorsNotPushes,
	},
	{
		kind: ExpectErrorMatch, field: "error_match", name: "error_match",
		example: `error_match: "^ERR unknown"`,
		doc: "the reply is an error whose text matches this Go\n" +
			"regular expression (not a template)",
		selectorMap: anyMapping, parse: (*loader).errorMatchExpect, match: matchErrorPattern,
		notOnPush: errorsNotPushes,
	},
	{
		kind: ExpectAny, field: "any", name: "any",
		example: "any: true", doc: "any reply at all, errors included",
		parse: (*loader).anyExpect,
		match: func(*Expect, resp.Value, *Env) (*Mismatch, error) { return nil, nil },
		loose: func(*Expect) bool { return true },
	},
	{
		kind: ExpectOneOf, field: "one_of", name: "one_of",
		example: "one_of: [{...}, ...]",
		doc: "the reply meets one of these expectations, each a\n" +
			"mapping of one field above: one_of: [{value: 1},\n" +
			"{error_code: WRONGTYPE}]",
		// parse, match, loose, acceptsPush: init
	},
	{
		kind: ExpectNotError, name: "not error",
		match: matchNotError, excludesErrors: func(*Expect) bool { return true },
	},
	// The silent kinds are written as expect: closed and expect: no reply
	// within D; match sees only a reply that arrived, which is wrong.
	{
		kind: ExpectClosed, name: "closed",
		match: func(e *Expect, v resp.Value, _ *Env) (*Mismatch, error) {
			return &Mismatch{Offset: -1, Expected: "the connection closed by the server",
				Message: "want the server to close the connection, got a reply: " + v.Kind.String()}, nil
		},
	},
	{
		kind: ExpectNoReply, name: "no reply",
		match: func(e *Expect, v resp.Value, _ *Env) (*Mismatch, error) {
			return &Mismatch{Offset: -1, Expected: "no reply within " + e.Within.String(),
				Message: "want no reply within " + e.Within.String() + ", got " + v.Kind.String()}, nil
		},
	},
}

// Silent reports whether e expects no reply at all: the connection
// closed (ExpectClosed) or nothing for a while (ExpectNoReply).
func (e *Expect) Silent() bool { return e.Kind == ExpectClosed || e.Kind == ExpectNoReply }

// init completes the entry of one_of, whose functions call back into the
// table through its members (an initialization cycle if written there).
func init() {
	ek := ExpectOneOf.info()
	ek.parse = (*loader).oneOfExpect
	ek.match = matchOneOf
	ek.loose = func(e *Expect) bool { return slices.ContainsFunc(e.OneOf, (*Expect).Loose) }
	ek.acceptsPush = func(e *Expect) bool { return slices.ContainsFunc(e.OneOf, (*Expect).AcceptsPush) }
	ek.excludesErrors = func(e *Expect) bool {
		return !slices.ContainsFunc(e.OneOf, func(m *Expect) bool { return !m.ExcludesErrors() })
	}
}

// matchOneOf: the first member that matches wins; the mismatch of the
// last says why none did.
func matchOneOf(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	var names []string
	var last *Mismatch
	for _, m := range e.OneOf {
		mm, err := m.Match(v, env)
		if err != nil || mm == nil {
			return nil, err
		}
		names = append(names, mm.Expected)
		last = mm
	}
	return &Mismatch{Offset: -1, Expected: "one of: " + strings.Join(names, "; "),
		Message: fmt.Sprintf("none of %d expectations matches (the last: %s)", len(e.OneOf), last.Message)}, nil
}

// info returns the entry of k, or nil.
func (k ExpectKind) info() *expectKind {
	for _, ek := range expectKinds {
		if ek.kind == k {
			return ek
		}
	}
	return nil
}

// expectKindByField returns the entry of the kind whose YAML field is
// field, or nil.
func expectKindByField(field string) *expectKind {
	for _, ek := range expectKinds {
		if ek.field != "" && ek.field == field {
			return ek
		}
	}
	return nil
}

// expectKindFields returns the YAML fields of the kinds, in table order;
// if pushOnly, only those of the kinds that can check a push frame.
func expectKindFields(pushOnly bool) []string {
	var fs []string
	for _, ek := range expectKinds {
		if ek.field != "" && (ek.notOnPush == "" || !pushOnly) {
			fs = append(fs, ek.field)
		}
	}
	return fs
}

// String returns the name of the expectation kind, for messages: its YAML
// field ("reply", "value", "error", "error_code", "error_match", "any"), or
// "not error".
func (k ExpectKind) String() string {
	if ek := k.info(); ek != nil {
		return ek.name
	}
	return "invalid"
}

// Mismatch says how a reply differs from an expectation (Expect.Match).
type Mismatch struct {
	// Expected is a human description of the expectation: escaped bytes
	// for a byte-exact reply, the error text, pattern or typed value
	// otherwise.
	Expected string
	// ExpectedBytes is the expanded expectation of a byte-exact reply, else
	// nil.
	ExpectedBytes []byte
	// Offset is the first byte at which the reply differs from
	// ExpectedBytes (byte-exact only), or -1.
	Offset int
	// Message says what differs, e.g. "reply differs at byte 1" or "want an
	// error, got blob string".
	Message string
}

// Match checks the reply v against e, expanding templates in env. It
// returns nil when v matches, else how it differs; an error is a problem of
// the case at run time (an unknown capture, a pattern that does not compile
// after expansion, an invalid kind).
func (e *Expect) Match(v resp.Value, env *Env) (*Mismatch, error) {
	ek := e.Kind.info()
	if ek == nil {
		return nil, fmt.Errorf("%s: unsupported expectation kind %d", e.Pos, e.Kind)
	}
	return ek.match(e, v, env.forReply(v))
}

// Loose reports whether a reply that matches e is checked by e alone, never
// compared byte for byte with a golden: e is any: true, a typed value
// holding {any}, a bare {type}, a {match} pattern, an unordered collection
// or a number within a tolerance anywhere (TypedValue.Loose), or a one_of
// with a loose member.
func (e *Expect) Loose() bool {
	ek := e.Kind.info()
	return ek != nil && ek.loose != nil && ek.loose(e)
}

// AcceptsPush reports whether e expects a push frame as the reply itself
// (bytes starting with '>' or '|', or a typed push), so that a runner waiting
// for the reply does not set such a frame aside as out-of-band.
func (e *Expect) AcceptsPush() bool {
	ek := e.Kind.info()
	return ek != nil && ek.acceptsPush != nil && ek.acceptsPush(e)
}

// ExcludesErrors reports whether no error reply meets e: a reply's bytes
// that do not start with '-' or '!', a typed value of a kind (or family)
// that is not an error, "not error", or a one_of of such. A reply e may
// accept an error for (error kinds, any, a bare {match} pattern, bytes
// from a template) gives false.
func (e *Expect) ExcludesErrors() bool {
	ek := e.Kind.info()
	return ek != nil && ek.excludesErrors != nil && ek.excludesErrors(e)
}

func isError(v resp.Value) bool { return v.Kind == resp.SimpleError || v.Kind == resp.BlobError }

func matchNotError(_ *Expect, v resp.Value, _ *Env) (*Mismatch, error) {
	if !isError(v) {
		return nil, nil
	}
	return &Mismatch{Offset: -1, Expected: "any reply but an error",
		Message: "want a reply that is not an error, got " + v.Kind.String()}, nil
}

func matchBytes(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	if len(env.Renamed) > 0 {
		return matchRenamedBytes(e, v, env)
	}
	// Compared without expanding generated parts: a 64 MiB expectation
	// costs no 64 MiB buffer unless it fails.
	if ok, err := e.Bytes.Equal(env, v.Raw); err != nil || ok {
		return nil, err
	}
	want, err := e.Bytes.Expand(env)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(want, v.Raw) {
		return nil, nil
	}
	off := resp.FirstDiff(want, v.Raw)
	return &Mismatch{ExpectedBytes: want, Expected: resp.Escape(want), Offset: off,
		Message: fmt.Sprintf("reply differs at byte %d", off)}, nil
}

// bytesAcceptPush: the first byte of the source says it (a template
// function cannot start a RESP frame in practice), without expanding the
// template.
func bytesAcceptPush(e *Expect) bool {
	src := e.Bytes.Source()
	return src != "" && (src[0] == '>' || src[0] == '|')
}

// matchError checks that v is an error whose text passes ok, which returns
// the message of a failure or "".
func matchError(v resp.Value, expected string, ok func(text string) string) *Mismatch {
	if !isError(v) {
		return &Mismatch{Offset: -1, Expected: expected, Message: "want an error, got " + v.Kind.String()}
	}
	if msg := ok(string(v.Str)); msg != "" {
		return &Mismatch{Offset: -1, Expected: expected, Message: msg}
	}
	return nil
}

func matchErrorText(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	b, err := e.Text.Expand(env)
	if err != nil {
		return nil, err
	}
	want := string(b)
	return matchError(v, "error "+quote(want), func(text string) string {
		if text == want {
			return ""
		}
		return "error text differs"
	}), nil
}

func matchErrorCode(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	b, err := e.Text.Expand(env)
	if err != nil {
		return nil, err
	}
	want := string(b)
	return matchError(v, "an error with code "+want, func(text string) string {
		if code, _, _ := strings.Cut(text, " "); code != want {
			return fmt.Sprintf("error code is %s", code)
		}
		return ""
	}), nil
}

func matchErrorPattern(e *Expect, v resp.Value, _ *Env) (*Mismatch, error) {
	return matchError(v, "an error matching /"+e.Pattern.String()+"/", func(text string) string {
		if e.Pattern.MatchString(text) {
			return ""
		}
		return "error text does not match"
	}), nil
}

func matchTypedValue(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	path, msg, err := matchValue(e.Value, v, env, "")
	if err != nil || msg == "" {
		return nil, err
	}
	if path != "" {
		msg = path + ": " + msg
	}
	return &Mismatch{Offset: -1, Expected: describeTyped(e.Value), Message: msg}, nil
}

func quote(s string) string { return resp.Escape([]byte(s)) }
