package cases

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// matchValue compares a typed expectation with a value. It returns the path
// of the first difference (e.g. "[2][1]") and a message, or "" if it matches.
func matchValue(t *TypedValue, v resp.Value, env *Env, path string) (string, string, error) {
	if t.Any {
		return "", "", nil
	}
	if t.Attr == nil && v.Attr != nil {
		return path, "an attribute the expectation does not have precedes the value", nil
	}
	if t.Attr != nil {
		if v.Attr == nil {
			return path, "want an attribute before the value, got none", nil
		}
		p, m, err := matchElems(t.Attr, v.Attr.Elems, env, path+".attr", false, true)
		if m != "" || err != nil {
			return p, m, err
		}
	}
	if t.Family != 0 {
		return matchFamily(t, v, env, path)
	}
	if t.KindOnly && v.Kind != t.Kind {
		return path, fmt.Sprintf("want %s, got %s", t.Kind, v.Kind), nil
	}
	if t.Kind == resp.VerbatimString && v.Kind == t.Kind && t.Format != "" && string(v.Format[:]) != t.Format {
		return path, fmt.Sprintf("want format %q, got %q", t.Format, v.Format[:]), nil
	}
	if t.Match != nil {
		re := t.Match
		if t.MatchTemplate != nil {
			src, err := t.MatchTemplate.Expand(env)
			if err != nil {
				return "", "", err
			}
			if re, err = regexp.Compile(string(src)); err != nil {
				return "", "", fmt.Errorf("%s: match pattern %q after expansion: %v", t.Pos, src, err)
			}
		}
		if !v.Kind.Textual() {
			return path, fmt.Sprintf("want a value matching /%s/, got %s", re, v.Kind), nil
		}
		if !re.Match(v.Str) {
			return path, fmt.Sprintf("%s %s does not match /%s/", v.Kind, quote(string(v.Str)), re), nil
		}
		return "", "", nil
	}
	if t.KindOnly {
		return "", "", nil
	}
	if v.Kind != t.Kind {
		return path, fmt.Sprintf("want %s, got %s", t.Kind, v.Kind), nil
	}
	switch t.Kind {
	case resp.Integer:
		if v.Int != t.Int {
			return path, fmt.Sprintf("want integer %d, got %d", t.Int, v.Int), nil
		}
	case resp.Boolean:
		if v.Bool != t.Bool {
			return path, fmt.Sprintf("want %t, got %t", t.Bool, v.Bool), nil
		}
	case resp.Array, resp.Set, resp.Push, resp.Map, resp.Attribute:
		if env != nil && env.RenamedIn != nil && (t.Kind == resp.Array || t.Kind == resp.Push) && !t.Unordered && len(t.Elems) == len(v.Elems) {
			for i := range t.Elems {
				if p, m, err := matchValue(t.Elems[i], v.Elems[i], env.elementEnv(i), elemPath(path, v.Elems, i, false)); m != "" || err != nil {
					return p, m, err
				}
			}
			return "", "", nil
		}
		return matchElems(t.Elems, v.Elems, env.elementEnv(-1), path, t.Unordered, t.Kind == resp.Map || t.Kind == resp.Attribute)
	default:
		if t.Text != nil {
			want, err := t.Text.Expand(env)
			if err != nil {
				return "", "", err
			}
			if isString(t.Kind) {
				want = env.rename(want)
			}
			if !bytes.Equal(want, v.Str) {
				return path, textDiff(t.Kind, want, v.Str), nil
			}
		}
	}
	return "", "", nil
}

// matchFamily compares a value with a typed value of a Family.
func matchFamily(t *TypedValue, v resp.Value, env *Env, path string) (string, string, error) {
	if t.Family == FamilyNil {
		if v.Kind == resp.NilBlobString || v.Kind == resp.NilArray || v.Kind == resp.Null {
			return "", "", nil
		}
		return path, "want a nil ($-1, *-1 or _), got " + v.Kind.String(), nil
	}
	b, err := t.Text.Expand(env)
	if err != nil {
		return "", "", err
	}
	want := string(b)
	if t.Family == FamilyString {
		want = string(env.rename(b))
		switch {
		case !isString(v.Kind):
			return path, fmt.Sprintf("want a string %s, got %s", quote(want), v.Kind), nil
		case string(v.Str) != want:
			return path, fmt.Sprintf("want a string %s, got %s %s", quote(want), v.Kind, quote(string(v.Str))), nil
		}
		return "", "", nil
	}
	x, err := strconv.ParseFloat(want, 64)
	if err != nil {
		return "", "", fmt.Errorf("%s: double %q is not a decimal number", t.Pos, want)
	}
	got, ok := number(v)
	if !ok {
		return path, fmt.Sprintf("want a number within %s of %s, got %s", describeWithin(t), want, describeValue(v)), nil
	}
	tol := t.Within
	if t.Relative {
		tol *= math.Abs(x)
	}
	if !(math.Abs(got-x) <= tol || got == x) { // got == x: inf
		return path, fmt.Sprintf("want a number within %s of %s, got %s", describeWithin(t), want, describeValue(v)), nil
	}
	return "", "", nil
}

func isString(k resp.Kind) bool {
	return k == resp.SimpleString || k == resp.BlobString || k == resp.VerbatimString
}

// number returns the number a value holds: an integer, a double, a big
// number, or a string whose text is a decimal number.
func number(v resp.Value) (float64, bool) {
	switch {
	case v.Kind == resp.Integer:
		return float64(v.Int), true
	case v.Kind == resp.Double || v.Kind == resp.BigNumber || isString(v.Kind):
		f, err := strconv.ParseFloat(string(v.Str), 64)
		return f, err == nil
	}
	return 0, false
}

// longText is the length from which textDiff shows where two strings
// differ rather than both whole.
const longText = 80

// textDiff says how a string differs from the expected one: both quoted,
// or for long ones their lengths and both sides around the first
// differing byte.
func textDiff(k resp.Kind, want, got []byte) string {
	if len(want) < longText && len(got) < longText {
		return fmt.Sprintf("want %s %s, got %s", k, quote(string(want)), quote(string(got)))
	}
	off := resp.FirstDiff(want, got)
	from := max(0, off-16)
	window := func(b []byte) string {
		if off >= len(b) {
			return "(its end)"
		}
		s := quote(string(b[from:min(len(b), off+32)]))
		if from > 0 {
			s = "…" + s
		}
		if off+32 < len(b) {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("want %s of %d bytes, got %d bytes; from byte %d: want %s, got %s", k, len(want), len(got), off, window(want), window(got))
}

func describeValue(v resp.Value) string {
	if v.Kind.Textual() {
		return v.Kind.String() + " " + quote(string(v.Str))
	}
	return v.Kind.String()
}

func describeWithin(t *TypedValue) string {
	if t.Relative {
		return strconv.FormatFloat(t.Within*100, 'g', -1, 64) + "%"
	}
	return strconv.FormatFloat(t.Within, 'g', -1, 64)
}

func matchElems(want []*TypedValue, got []resp.Value, env *Env, path string, unordered, pairwise bool) (string, string, error) {
	if unordered {
		return matchUnordered(want, got, env, path, pairwise)
	}
	if len(want) != len(got) {
		return path, fmt.Sprintf("want %d elements, got %d", len(want), len(got)), nil
	}
	for i := range want {
		p, m, err := matchValue(want[i], got[i], env, elemPath(path, got, i, pairwise))
		if m != "" || err != nil {
			return p, m, err
		}
	}
	return "", "", nil
}

// elemPath is the path of element i of got under path: "[2]" in an
// array or set; in a map or attribute (pairwise), `field "f2"` for the
// value of a string key (`field 7` for an integer key, the text of a
// double or boolean, "field #3" for any other) and "key #3" for the third key itself.
func elemPath(path string, got []resp.Value, i int, pairwise bool) string {
	if !pairwise {
		return fmt.Sprintf("%s[%d]", path, i)
	}
	sep := ""
	if path != "" {
		sep = " "
	}
	if i%2 == 0 {
		return fmt.Sprintf("%s%skey #%d", path, sep, i/2+1)
	}
	return path + sep + "field " + keyLabel(got[i-1], i/2+1)
}

// keyLabel names a map key for a path: its text quoted, an integer's
// digits, else its place ("#3").
func keyLabel(k resp.Value, n int) string {
	switch {
	case k.Kind == resp.Integer:
		return strconv.FormatInt(k.Int, 10)
	case k.Kind == resp.Boolean:
		return strconv.FormatBool(k.Bool)
	case isString(k.Kind):
		return quote(string(k.Str))
	case k.Kind.Textual(): // a double or big number: its text
		return string(k.Str)
	}
	return fmt.Sprintf("#%d", n)
}

// matchUnordered matches elements (or map pairs, keys and values together)
// in any order, with a backtracking search so that wildcards cannot steal a
// later exact match.
func matchUnordered(want []*TypedValue, got []resp.Value, env *Env, path string, pairwise bool) (string, string, error) {
	step := 1
	if pairwise {
		step = 2
	}
	of, wantPaired, err := pairExact(want, got, env, step)
	if err != nil {
		return "", "", err
	}
	// The items left (an expectation that is not exact, or whose value
	// is not in the reply) by the general matching.
	var wi, gj []int
	for i, p := range wantPaired {
		if !p {
			wi = append(wi, i)
		}
	}
	for j, i := range of {
		if i < 0 {
			gj = append(gj, j)
		}
	}
	if len(wi) > 0 && len(wi) == len(gj) {
		ok := make([][]bool, len(wi)) // ok[a][b]: expected item wi[a] matches actual item gj[b]
		for a, i := range wi {
			ok[a] = make([]bool, len(gj))
			for b, j := range gj {
				match := true
				for k := 0; k < step && match; k++ {
					_, m, err := matchValue(want[i*step+k], got[j*step+k], env, "")
					if err != nil {
						return "", "", err
					}
					match = m == ""
				}
				ok[a][b] = match
			}
		}
		rest, _ := maxMatching(ok)
		for b, a := range rest {
			if a >= 0 {
				of[gj[b]], wantPaired[wi[a]] = wi[a], true
			}
		}
	}
	n := len(want) / step
	if len(got)/step != n {
		return path, fmt.Sprintf("want %d elements, got %d%s", len(want), len(got), unpaired(want, got, wantPaired, of, step, env)), nil
	}
	paired := 0
	for _, p := range wantPaired {
		if p {
			paired++
		}
	}
	if paired == n {
		return "", "", nil
	}
	if pairwise {
		return unmatchedField(want, got, wantPaired, of, env, path)
	}
	var onlyWant, onlyGot []string
	for i := 0; i < n; i++ {
		if !wantPaired[i] {
			onlyWant = append(onlyWant, describeWant(want[i], env))
		}
		if of[i] < 0 {
			onlyGot = append(onlyGot, describeValue(got[i]))
		}
	}
	return path, fmt.Sprintf("only in the expectation: %s; only in the reply: %s", firstFew(onlyWant), firstFew(onlyGot)), nil
}

// unpaired says, for an unordered reply of another length, the first
// items on each side that pairExact did not pair: ": only in the
// expectation: …; only in the reply: …" (at most maxNamed each).
func unpaired(want []*TypedValue, got []resp.Value, wantPaired []bool, of []int, step int, env *Env) string {
	var onlyWant, onlyGot []string
	for i, p := range wantPaired {
		if !p {
			onlyWant = append(onlyWant, describeWant(want[i*step], env))
		}
	}
	for j, i := range of {
		if i < 0 {
			onlyGot = append(onlyGot, describeValue(got[j*step]))
		}
	}
	return fmt.Sprintf(": only in the expectation: %s; only in the reply: %s", firstFew(onlyWant), firstFew(onlyGot))
}

// maxNamed is how many items a message names before "and N more".
const maxNamed = 5

// firstFew is listOrNone of the first maxNamed items, and how many more.
func firstFew(items []string) string {
	if len(items) <= maxNamed {
		return listOrNone(items)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxNamed], ", "), len(items)-maxNamed)
}

// maxMatching pairs expected items with actual ones they match (ok[i][j]:
// expected i matches actual j), as many as can be (augmenting paths, so
// that a wildcard never keeps an exact match from its item): of[j] is the
// expected item paired with actual item j, or -1. It returns of and how
// many are paired.
func maxMatching(ok [][]bool) ([]int, int) {
	n := len(ok)
	of := make([]int, n)
	for j := range of {
		of[j] = -1
	}
	var augment func(i int, seen []bool) bool
	augment = func(i int, seen []bool) bool {
		for j := 0; j < n; j++ {
			if ok[i][j] && !seen[j] {
				seen[j] = true
				if of[j] < 0 || augment(of[j], seen) {
					of[j] = i
					return true
				}
			}
		}
		return false
	}
	paired := 0
	for i := 0; i < n; i++ {
		if augment(i, make([]bool, n)) {
			paired++
		}
	}
	return of, paired
}

// unmatchedField explains an unordered map that does not match, from the
// largest pairing of its fields (wantPaired: the expected fields paired;
// of: by actual field, its expected one or -1): the first unpaired
// expected field whose key an unpaired field of the reply has, with its
// path (`field "f2"`) and the value's own difference; else the keys of the
// unpaired fields on each side.
func unmatchedField(want []*TypedValue, got []resp.Value, wantPaired []bool, of []int, env *Env, path string) (string, string, error) {
	n := len(want) / 2
	var missing, extra []string
	for i := 0; i < n; i++ {
		if wantPaired[i] {
			continue
		}
		for j := 0; j < n; j++ {
			if of[j] >= 0 {
				continue
			}
			if _, m, err := matchValue(want[2*i], got[2*j], env, ""); err != nil || m != "" {
				continue
			}
			p, m, err := matchValue(want[2*i+1], got[2*j+1], env, elemPath(path, got, 2*j+1, true))
			if m != "" || err != nil {
				return p, m, err
			}
		}
		missing = append(missing, describeWant(want[2*i], env))
	}
	for j := 0; j < n; j++ {
		if of[j] < 0 {
			extra = append(extra, describeValue(got[2*j]))
		}
	}
	return path, fmt.Sprintf("keys only in the expectation: %s; only in the reply: %s", listOrNone(missing), listOrNone(extra)), nil
}

// listOrNone joins items with ", ", or says "none".
func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// describeTyped renders a typed expectation for reports.
func describeTyped(t *TypedValue) string {
	var b strings.Builder
	writeTyped(&b, t)
	return b.String()
}

func writeTyped(b *strings.Builder, t *TypedValue) {
	if t.Attr != nil {
		b.WriteString("|attr")
		writeElems(b, t.Attr)
		b.WriteByte(' ')
	}
	switch {
	case t.Any:
		b.WriteString("any")
		return
	case t.MatchTemplate != nil:
		// The pattern as written, its templates unexpanded.
		fmt.Fprintf(b, "/%s/", t.MatchTemplate.Source())
		return
	case t.Match != nil:
		fmt.Fprintf(b, "/%s/", t.Match)
		return
	case t.Family == FamilyNil:
		b.WriteString("any nil")
		return
	case t.Family == FamilyString:
		b.WriteString("string " + quote(t.Text.Source()))
		return
	case t.Family == FamilyNumber:
		fmt.Fprintf(b, "number %s within %s", t.Text.Source(), describeWithin(t))
		return
	}
	b.WriteString(t.Kind.String())
	if t.Kind == resp.VerbatimString && t.Format != "" {
		b.WriteString(" format " + t.Format)
	}
	if t.KindOnly {
		return
	}
	switch t.Kind {
	case resp.Integer:
		fmt.Fprintf(b, " %d", t.Int)
	case resp.Boolean:
		fmt.Fprintf(b, " %t", t.Bool)
	case resp.Array, resp.Set, resp.Push, resp.Map, resp.Attribute:
		writeElems(b, t.Elems)
	default:
		if t.Text != nil {
			b.WriteString(" " + quote(t.Text.Source()))
		}
	}
}

func writeElems(b *strings.Builder, elems []*TypedValue) {
	b.WriteString(" [")
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		writeTyped(b, e)
	}
	b.WriteString("]")
}

// Loose reports whether v matches replies that differ from run to run:
// it holds {any}, a bare {type}, a {match} pattern, an unordered
// collection or a number within a tolerance anywhere.
func (v *TypedValue) Loose() bool {
	if v == nil {
		return false
	}
	if v.Any || v.KindOnly || v.Match != nil || v.MatchTemplate != nil || v.Unordered || v.Family == FamilyNumber {
		return true
	}
	for _, e := range v.Elems {
		if e.Loose() {
			return true
		}
	}
	for _, e := range v.Attr {
		if e.Loose() {
			return true
		}
	}
	return false
}
