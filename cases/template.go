package cases

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/zeebo/xxh3"
)

// Template is a text with {...} functions, expanded at run time against an
// Env. See the package documentation for the syntax.
type Template struct {
	Pos   Pos
	src   string
	parts []part
	caps  []string // capture names referenced anywhere (for static checks)
}

type opKind uint8

const (
	opLit    opKind = iota // lit
	opKey                  // name
	opCap                  // name
	opRandom               // n bytes, seed
	opRepeat               // arg repeated n times
	opLen                  // decimal length of arg
	opXXH3                 // xxh3-64 of arg, 16 lowercase hex chars
	opAdd                  // decimal of n + the integer arg
	opID                   // the 8 hex digits of the key prefix
)

type part struct {
	op   opKind
	lit  []byte
	name string
	n    int64
	seed uint64
	arg  *Template
}

// MaxExpand is the largest expansion a template may produce (1 GiB).
const MaxExpand = 1 << 30

// DefaultRandomSeed is the seed of {gen:random:SIZE} without an explicit seed.
const DefaultRandomSeed = 0

// templateFuncs are the template function names, in documentation order.
var templateFuncs = []string{"key", "id", "cap", "var", "env", "gen", "hex", "len", "xxh3", "add"}

// ParseTemplate parses a template. The returned error is a plain message
// without position; the Template gets pos. {env:NAME} is read from the
// process environment; no {var:NAME} is set.
func ParseTemplate(pos Pos, s string) (*Template, error) {
	return parseTemplate(pos, s, nil)
}

// parseTemplate is ParseTemplate with the variables of opts (nil: none set,
// the process environment).
func parseTemplate(pos Pos, s string, opts *Options) (*Template, error) {
	p := &tparser{s: s, opts: opts}
	parts, err := p.seq(false)
	if err != nil {
		return nil, err
	}
	t := &Template{Pos: pos, src: s, parts: parts}
	t.caps = t.collectCaps(nil)
	return t, nil
}

// literalTemplate returns a template whose expansion is exactly s.
func literalTemplate(pos Pos, s string) *Template {
	t := &Template{Pos: pos, src: strings.ReplaceAll(s, "{", "{{")}
	if s != "" {
		t.parts = []part{{op: opLit, lit: []byte(s)}}
	}
	return t
}

func (t *Template) collectCaps(dst []string) []string {
	for _, p := range t.parts {
		if p.op == opCap && !slices.Contains(dst, p.name) {
			dst = append(dst, p.name)
		}
		if p.arg != nil {
			dst = p.arg.collectCaps(dst)
		}
	}
	return dst
}

// Source returns the original text of the template.
func (t *Template) Source() string { return t.src }

// String returns the original text of the template.
func (t *Template) String() string { return t.src }

// IsLiteral reports whether the template contains no functions other than
// "{{" escapes and {hex:...}, so that it stands for fixed bytes (Literal).
func (t *Template) IsLiteral() bool {
	for _, p := range t.parts {
		if p.op != opLit {
			return false
		}
	}
	return true
}

// Captures returns the names of the captures the template refers to.
func (t *Template) Captures() []string { return slices.Clone(t.caps) }

// Literal returns the expansion of a literal template, and false if the
// template contains functions.
func (t *Template) Literal() (string, bool) {
	if !t.IsLiteral() {
		return "", false
	}
	var b strings.Builder
	for _, p := range t.parts {
		b.Write(p.lit)
	}
	return b.String(), true
}

// IsWord reports whether t is the literal word, ignoring ASCII case (a
// command or option name), without allocating.
func (t *Template) IsWord(word string) bool {
	return len(t.parts) == 1 && t.parts[0].op == opLit && bytes.EqualFold(t.parts[0].lit, []byte(word))
}

// usesOnly reports whether every function in t is one of ops.
func (t *Template) usesOnly(ops ...opKind) bool {
	for _, p := range t.parts {
		if p.op != opLit && !slices.Contains(ops, p.op) {
			return false
		}
		if p.arg != nil && !p.arg.usesOnly(ops...) {
			return false
		}
	}
	return true
}

// Env is what templates are expanded against.
type Env struct {
	// KeyPrefix is prepended to key names by {key} and {key:NAME}; see
	// KeyPrefix.
	KeyPrefix string
	// Captures holds the values captured by earlier steps, by name.
	Captures map[string][]byte
	// Renamed maps the literal key names the runner moved into the case's
	// namespace (see Literal keys in the package documentation) to their
	// namespaced names. When it is not empty, Expect.Match reads an
	// expected string (blob, simple or verbatim, in reply bytes or a typed
	// value, and {string: ...}) whose whole text is such a literal as the
	// namespaced name; reply bytes are re-encoded with the new lengths.
	Renamed map[string]string
	// RenamedIn, when not nil, limits Renamed to the elements i of an
	// array reply where RenamedIn[i] (an EXEC's replies of the queued
	// commands that can name keys: KEYS's, not SMEMBERS's).
	RenamedIn []bool
	// Channels maps the literal pub/sub channels and patterns the runner
	// moved into the namespace to their new names: read renamed only
	// where a pub/sub frame names a channel (a message's channel, never
	// its payload; a confirmation's channel), see forReply.
	Channels map[string]string
}

// elementEnv is env for element i of the top-level array of a reply
// (RenamedIn).
func (env *Env) elementEnv(i int) *Env {
	if env == nil || env.RenamedIn == nil {
		return env
	}
	e := *env
	e.RenamedIn = nil
	if i >= len(env.RenamedIn) || !env.RenamedIn[i] {
		e.Renamed = nil
	}
	return &e
}

// KeyPrefixLen is the length of every prefix returned by KeyPrefix.
const KeyPrefixLen = len("rc:{01234567}:")

// KeyPrefix returns the key prefix for a seed (the runner passes run id,
// case id and protocol): "rc:{" + 8 lowercase hex digits of the XXH3-64 hash
// of seed + "}:", always KeyPrefixLen (14) bytes. The braces make a cluster
// hash tag, so every key of a case maps to the same slot.
func KeyPrefix(seed string) string {
	return fmt.Sprintf("rc:{%08x}:", uint32(xxh3.HashString(seed)>>32))
}

// Expand returns the bytes of the template for env. Errors (an unknown
// capture, a missing key prefix, an expansion over MaxExpand) are *Error
// values at the template's position. The result of a literal template is
// shared: callers must not modify it.
func (t *Template) Expand(env *Env) ([]byte, error) {
	if len(t.parts) == 1 && t.parts[0].op == opLit {
		// A literal expands to its own bytes, shared and capped so that an
		// append by the caller copies: callers must not modify them.
		lit := t.parts[0].lit
		return lit[:len(lit):len(lit)], nil
	}
	n, err := t.size(env)
	if err != nil {
		return nil, &Error{Pos: t.Pos, Msg: err.Error()}
	}
	buf := make([]byte, 0, n)
	buf, err = t.appendTo(buf, env)
	if err != nil {
		return nil, &Error{Pos: t.Pos, Msg: err.Error()}
	}
	return buf, nil
}

// Equal reports whether the expansion of t for env equals b. Generated
// parts ({gen:random}, {gen:repeat}) are compared piece by piece, so a
// 64 MiB expectation costs no 64 MiB buffer. Errors are those of Expand.
func (t *Template) Equal(env *Env, b []byte) (bool, error) {
	n, err := t.size(env)
	if err != nil {
		return false, &Error{Pos: t.Pos, Msg: err.Error()}
	}
	if n != int64(len(b)) {
		return false, nil
	}
	for _, p := range t.parts {
		var ok bool
		switch p.op {
		case opRandom:
			ok, b = equalRandom(p, b)
		case opRepeat:
			var unit []byte
			if unit, err = p.arg.appendTo(nil, env); err != nil {
				return false, &Error{Pos: t.Pos, Msg: err.Error()}
			}
			ok = true
			for i := int64(0); i < p.n && ok; i++ {
				ok = bytes.HasPrefix(b, unit)
				b = b[len(unit):]
			}
		case opLit:
			ok = bytes.HasPrefix(b, p.lit)
			b = b[len(p.lit):]
		default:
			var piece []byte
			if piece, err = (&Template{parts: []part{p}}).appendTo(nil, env); err != nil {
				return false, &Error{Pos: t.Pos, Msg: err.Error()}
			}
			ok = bytes.HasPrefix(b, piece)
			b = b[len(piece):]
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// WriteTo writes the expansion of t for env to w, generating
// {gen:random} and {gen:repeat} parts in small chunks, so a 64 MiB argument
// is sent without a 64 MiB buffer. It returns the bytes written. The errors
// of Expand are reported before anything is written.
func (t *Template) WriteTo(env *Env, w io.Writer) (int64, error) {
	if _, err := t.size(env); err != nil {
		return 0, &Error{Pos: t.Pos, Msg: err.Error()}
	}
	var total int64
	for _, p := range t.parts {
		var err error
		var n int
		switch p.op {
		case opRandom:
			r := splitmix{p.seed}
			var chunk [8 << 10]byte
			for left := int(p.n); left > 0 && err == nil; {
				k := min(left, len(chunk))
				r.fill(chunk[:k])
				n, err = w.Write(chunk[:k])
				total += int64(n)
				left -= k
			}
		default:
			var piece []byte
			if piece, err = (&Template{parts: []part{p}}).appendTo(nil, env); err != nil {
				return total, &Error{Pos: t.Pos, Msg: err.Error()}
			}
			n, err = w.Write(piece)
			total += int64(n)
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// equalRandom compares the start of b with a {gen:random} part in 8 KiB
// chunks and returns the rest of b.
func equalRandom(p part, b []byte) (bool, []byte) {
	r := splitmix{p.seed}
	var chunk [8 << 10]byte
	for left := int(p.n); left > 0; {
		k := min(left, len(chunk))
		r.fill(chunk[:k])
		if !bytes.Equal(chunk[:k], b[:k]) {
			return false, b
		}
		b, left = b[k:], left-k
	}
	return true, b
}

// ExpandString is Expand returning a string.
func (t *Template) ExpandString(env *Env) (string, error) {
	b, err := t.Expand(env)
	return string(b), err
}

// Size returns the length of the expansion without producing it.
func (t *Template) Size(env *Env) (int64, error) {
	n, err := t.size(env)
	if err != nil {
		return 0, &Error{Pos: t.Pos, Msg: err.Error()}
	}
	return n, nil
}

func (t *Template) size(env *Env) (int64, error) {
	var total int64
	for _, p := range t.parts {
		var n int64
		switch p.op {
		case opLit:
			n = int64(len(p.lit))
		case opKey:
			if env == nil || env.KeyPrefix == "" {
				return 0, fmt.Errorf("{key} used without a key prefix")
			}
			n = int64(len(env.KeyPrefix) + len(p.name))
		case opID:
			if _, err := env.id(); err != nil {
				return 0, err
			}
			n = 8
		case opCap:
			c, ok := lookupCap(env, p.name)
			if !ok {
				return 0, fmt.Errorf("unknown capture %q", p.name)
			}
			n = int64(len(c))
		case opRandom:
			n = p.n
		case opRepeat:
			m, err := p.arg.size(env)
			if err != nil {
				return 0, err
			}
			if m != 0 && p.n > MaxExpand/m {
				return 0, fmt.Errorf("expansion larger than %d bytes", MaxExpand)
			}
			n = m * p.n
		case opLen:
			m, err := p.arg.size(env)
			if err != nil {
				return 0, err
			}
			n = int64(len(strconv.FormatInt(m, 10)))
		case opXXH3:
			if _, err := p.arg.size(env); err != nil {
				return 0, err
			}
			n = 16
		case opAdd:
			v, err := p.sum(env)
			if err != nil {
				return 0, err
			}
			n = int64(len(strconv.FormatInt(v, 10)))
		}
		total += n
		if total > MaxExpand {
			return 0, fmt.Errorf("expansion larger than %d bytes", MaxExpand)
		}
	}
	return total, nil
}

// sum evaluates {add:N:ARG}: N plus ARG's expansion read as a decimal int64.
func (p part) sum(env *Env) (int64, error) {
	b, err := p.arg.appendTo(nil, env)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("{add:%d:%s}: %q is not a decimal integer", p.n, p.arg.src, b)
	}
	sum := v + p.n
	if (p.n > 0 && sum < v) || (p.n < 0 && sum > v) {
		return 0, fmt.Errorf("{add:%d:%s}: %d + %d overflows a 64-bit integer", p.n, p.arg.src, v, p.n)
	}
	return sum, nil
}

// id returns the 8 hex digits inside the key prefix "rc:{xxxxxxxx}:": a
// name part unique to the run, case and protocol for things that cannot
// hold a key's braces (function library names).
func (env *Env) id() (string, error) {
	if env == nil || len(env.KeyPrefix) != KeyPrefixLen {
		return "", fmt.Errorf("{id} used without a key prefix")
	}
	return env.KeyPrefix[4:12], nil
}

func lookupCap(env *Env, name string) ([]byte, bool) {
	if env == nil {
		return nil, false
	}
	c, ok := env.Captures[name]
	return c, ok
}

func (t *Template) appendTo(buf []byte, env *Env) ([]byte, error) {
	for _, p := range t.parts {
		switch p.op {
		case opLit:
			buf = append(buf, p.lit...)
		case opKey:
			if env == nil || env.KeyPrefix == "" {
				return nil, fmt.Errorf("{key} used without a key prefix")
			}
			buf = append(buf, env.KeyPrefix...)
			buf = append(buf, p.name...)
		case opID:
			id, err := env.id()
			if err != nil {
				return nil, err
			}
			buf = append(buf, id...)
		case opCap:
			c, ok := lookupCap(env, p.name)
			if !ok {
				return nil, fmt.Errorf("unknown capture %q", p.name)
			}
			buf = append(buf, c...)
		case opRandom:
			start := len(buf)
			buf = slices.Grow(buf, int(p.n))[:start+int(p.n)]
			r := splitmix{p.seed}
			r.fill(buf[start:])
		case opRepeat:
			start := len(buf)
			var err error
			if buf, err = p.arg.appendTo(buf, env); err != nil {
				return nil, err
			}
			unit := len(buf) - start
			if p.n == 0 {
				buf = buf[:start]
				continue
			}
			total := unit * int(p.n)
			buf = slices.Grow(buf, total-unit)
			// Double the copied region until it covers count repetitions.
			for done := unit; done < total; {
				k := min(done, total-done)
				buf = append(buf, buf[start:start+k]...)
				done += k
			}
		case opLen:
			n, err := p.arg.size(env)
			if err != nil {
				return nil, err
			}
			buf = strconv.AppendInt(buf, n, 10)
		case opXXH3:
			h, err := p.arg.hash(env)
			if err != nil {
				return nil, err
			}
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], h)
			buf = hex.AppendEncode(buf, b[:])
		case opAdd:
			v, err := p.sum(env)
			if err != nil {
				return nil, err
			}
			buf = strconv.AppendInt(buf, v, 10)
		}
	}
	return buf, nil
}

// hash returns the XXH3-64 of the expansion. A lone random generator is
// hashed in chunks, without materializing it.
func (t *Template) hash(env *Env) (uint64, error) {
	if len(t.parts) == 1 && t.parts[0].op == opRandom {
		p := t.parts[0]
		h := xxh3.New()
		r := splitmix{p.seed}
		chunk := make([]byte, 64<<10)
		for left := p.n; left > 0; {
			k := min(left, int64(len(chunk)))
			r.fill(chunk[:k])
			h.Write(chunk[:k])
			left -= k
		}
		return h.Sum64(), nil
	}
	n, err := t.size(env)
	if err != nil {
		return 0, err
	}
	b, err := t.appendTo(make([]byte, 0, n), env)
	if err != nil {
		return 0, err
	}
	return xxh3.Hash(b), nil
}

// splitmix is the SplitMix64 generator behind {gen:random}: each step adds
// 0x9e3779b97f4a7c15 to the state and mixes it; the output is the sequence
// of 64-bit results written little-endian, truncated to the size.
type splitmix struct{ state uint64 }

func (r *splitmix) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fill fills p; every call but the last must have a length that is a
// multiple of 8 to continue the same stream.
func (r *splitmix) fill(p []byte) {
	for len(p) >= 8 {
		binary.LittleEndian.PutUint64(p, r.next())
		p = p[8:]
	}
	if len(p) > 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], r.next())
		copy(p, b[:])
	}
}

// tparser parses template text.
type tparser struct {
	s    string
	i    int
	opts *Options // the values of {var:} and {env:}; nil: none, os.LookupEnv
}

// variable returns the value of {var:NAME} or {env:NAME} (fn), or an error
// naming the variable when it is unset.
func (p *tparser) variable(fn, name string) (string, error) {
	if !isIdent(name) {
		return "", fmt.Errorf("bad variable name %q in {%s:NAME} (want letters, digits and '_', not starting with a digit)", name, fn)
	}
	var opts Options
	if p.opts != nil {
		opts = *p.opts
	}
	if fn == "var" {
		if opts.used != nil {
			opts.used[name] = true
		}
		if v, ok := opts.Vars[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("variable %q is not set: give --var %s=VALUE", name, name)
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if v, ok := lookup(name); ok {
		return v, nil
	}
	return "", fmt.Errorf("environment variable %q is not set ({env:%s})", name, name)
}

func isIdentByte(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || !first && c >= '0' && c <= '9'
}

// seq parses text up to the end, or (nested) up to an unmatched '}', which
// it leaves unconsumed.
func (p *tparser) seq(nested bool) ([]part, error) {
	var parts []part
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, part{op: opLit, lit: lit})
			lit = nil
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '}' && nested {
			break
		}
		if c == '{' {
			if p.i+1 < len(p.s) && p.s[p.i+1] == '{' {
				lit = append(lit, '{')
				p.i += 2
				continue
			}
			j := p.i + 1
			for j < len(p.s) && isIdentByte(p.s[j], j == p.i+1) {
				j++
			}
			if j > p.i+1 && j < len(p.s) && (p.s[j] == '}' || p.s[j] == ':') {
				name := p.s[p.i+1 : j]
				start := p.i
				p.i = j
				pt, err := p.call(name, start)
				if err != nil {
					return nil, err
				}
				flush()
				parts = append(parts, pt)
				continue
			}
		}
		lit = append(lit, c)
		p.i++
	}
	flush()
	return parts, nil
}

// token reads up to the next '}' (consumed) and returns the text before it.
func (p *tparser) token(start int) (string, error) {
	k := strings.IndexByte(p.s[p.i:], '}')
	if k < 0 {
		return "", p.unterminated(start)
	}
	tok := p.s[p.i : p.i+k]
	p.i += k + 1
	return tok, nil
}

func (p *tparser) unterminated(start int) error {
	return fmt.Errorf("unterminated %q (missing \"}\")", p.s[start:])
}

// nestedArg parses a template argument up to its closing '}' (consumed).
func (p *tparser) nestedArg(start int) (*Template, error) {
	argStart := p.i
	parts, err := p.seq(true)
	if err != nil {
		return nil, err
	}
	if p.i >= len(p.s) {
		return nil, p.unterminated(start)
	}
	arg := &Template{src: p.s[argStart:p.i], parts: parts}
	p.i++ // '}'
	return arg, nil
}

// call parses a function; p.i is at the ':' or '}' after its name.
func (p *tparser) call(name string, start int) (part, error) {
	colon := p.s[p.i] == ':'
	p.i++
	need := func(form string) error {
		text := p.s[start:]
		if k := strings.IndexByte(text, '}'); k >= 0 {
			text = text[:k+1]
		}
		return fmt.Errorf("bad %q: want %s", text, form)
	}
	// arg is the NAME of {name:NAME}, which form shows.
	arg := func(form string) (string, error) {
		if !colon {
			return "", need(form)
		}
		return p.token(start)
	}
	switch name {
	case "id":
		if colon {
			return part{}, need("{id}")
		}
		return part{op: opID}, nil
	case "key":
		if !colon {
			return part{op: opKey, name: "key"}, nil
		}
		tok, err := p.token(start)
		if err != nil {
			return part{}, err
		}
		if tok == "" || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") != "" {
			return part{}, fmt.Errorf("bad key name %q in {key:NAME} (want letters, digits, '_', '.', ':', '-')", tok)
		}
		return part{op: opKey, name: tok}, nil
	case "cap":
		tok, err := arg("{cap:NAME}")
		if err != nil {
			return part{}, err
		}
		if !isIdent(tok) {
			return part{}, fmt.Errorf("bad capture name %q in {cap:NAME} (want an identifier)", tok)
		}
		return part{op: opCap, name: tok}, nil
	case "var", "env":
		tok, err := arg("{" + name + ":NAME}")
		if err != nil {
			return part{}, err
		}
		v, err := p.variable(name, tok)
		if err != nil {
			return part{}, err
		}
		// The value is known when the file loads: it stands in the
		// template as literal bytes, never read as a template itself.
		return part{op: opLit, lit: []byte(v)}, nil
	case "hex":
		tok, err := arg("{hex:HEXDIGITS}")
		if err != nil {
			return part{}, err
		}
		b, err := hex.DecodeString(tok)
		if err != nil || tok == "" {
			return part{}, fmt.Errorf("bad {hex:%s}: want an even number of hex digits", tok)
		}
		return part{op: opLit, lit: b}, nil
	case "len", "xxh3":
		if !colon {
			return part{}, need("{" + name + ":ARG}")
		}
		arg, err := p.nestedArg(start)
		if err != nil {
			return part{}, err
		}
		op := opLen
		if name == "xxh3" {
			op = opXXH3
		}
		return part{op: op, arg: arg}, nil
	case "add":
		k := strings.IndexAny(p.s[p.i:], ":}")
		if !colon || k < 0 || p.s[p.i+k] != ':' {
			return part{}, need("{add:N:ARG}")
		}
		n, err := strconv.ParseInt(p.s[p.i:p.i+k], 10, 64)
		if err != nil {
			return part{}, fmt.Errorf("bad {add:%s:...}: want a decimal integer", p.s[p.i:p.i+k])
		}
		p.i += k + 1
		arg, err := p.nestedArg(start)
		if err != nil {
			return part{}, err
		}
		return part{op: opAdd, n: n, arg: arg}, nil
	case "gen":
		if !colon {
			return part{}, need("{gen:random:SIZE[:SEED]} or {gen:repeat:COUNT:TEXT}")
		}
		return p.gen(start, need)
	}
	return part{}, fmt.Errorf("unknown template function %q (want one of: %s; write {{ for a literal {)", name, strings.Join(templateFuncs, ", "))
}

// gen parses the rest of a {gen:...} function; p.i is after "gen:". need
// reports a malformed function.
func (p *tparser) gen(start int, need func(form string) error) (part, error) {
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "random:"):
		p.i += len("random:")
		tok, err := p.token(start)
		if err != nil {
			return part{}, err
		}
		sizeText, seedText, hasSeed := strings.Cut(tok, ":")
		n, err := parseSize(sizeText)
		if err != nil {
			return part{}, fmt.Errorf("bad size in {gen:random:%s}: %v", tok, err)
		}
		pt := part{op: opRandom, n: n, seed: DefaultRandomSeed}
		if hasSeed {
			pt.seed, err = strconv.ParseUint(seedText, 10, 64)
			if err != nil {
				return part{}, fmt.Errorf("bad seed in {gen:random:%s}: want a decimal number", tok)
			}
		}
		return pt, nil
	case strings.HasPrefix(rest, "repeat:"):
		p.i += len("repeat:")
		k := strings.IndexAny(p.s[p.i:], ":}")
		if k < 0 || p.s[p.i+k] != ':' {
			return part{}, need("{gen:repeat:COUNT:TEXT}")
		}
		n, err := parseSize(p.s[p.i : p.i+k])
		if err != nil {
			return part{}, fmt.Errorf("bad count in {gen:repeat:%s:...}: %v", p.s[p.i:p.i+k], err)
		}
		p.i += k + 1
		arg, err := p.nestedArg(start)
		if err != nil {
			return part{}, err
		}
		return part{op: opRepeat, n: n, arg: arg}, nil
	default:
		return part{}, need("{gen:random:SIZE[:SEED]} or {gen:repeat:COUNT:TEXT}")
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

// parseSize parses a byte count: a decimal number with an optional unit,
// B, KB (1000), MB, GB, KiB (1024), MiB, GiB (case-insensitive).
func parseSize(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 12 {
		return 0, fmt.Errorf("want a number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)")
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	mult := map[string]int64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
	}[strings.ToLower(s[i:])]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q (want B, KB, MB, GB, KiB, MiB or GiB)", s[i:])
	}
	if n > MaxExpand/mult {
		return 0, fmt.Errorf("%s is larger than the %d-byte limit", s, MaxExpand)
	}
	return n * mult, nil
}

// QuoteBytes writes b as a double-quoted YAML scalar whose template
// expands to exactly b: "\r", "\n", `\"` and `\\` as YAML escapes, other
// control bytes as \xNN (YAML's \xNN is the code point, which is the byte
// below 0x80), braces and bytes above 0x7e as {hex:NN} (a template's "{"
// may open a function; YAML's "\xff" is U+00FF, two bytes). For case
// files a program writes (explore, capture).
func QuoteBytes(b []byte) string {
	var out strings.Builder
	out.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '\r':
			out.WriteString(`\r`)
		case c == '\n':
			out.WriteString(`\n`)
		case c == '"' || c == '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case c == '{' || c == '}' || c > 0x7e:
			fmt.Fprintf(&out, "{hex:%02x}", c)
		case c < 0x20:
			fmt.Fprintf(&out, `\x%02x`, c)
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('"')
	return out.String()
}
