package cases

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// exactKey is the identity of the one value an exact scalar expectation
// matches (a blob, simple or error string, an integer, a double or big
// number by its text, with no attribute, pattern or family), and ok; for
// any other expectation ok is false. Two values with one key match the
// same expectations, so an exact item may be paired with any value of its
// key before the general matching (pairExact).
func exactKey(t *TypedValue, env *Env) (key string, ok bool, err error) {
	if t.Any || t.KindOnly || t.Match != nil || t.Attr != nil || t.Family != 0 {
		return "", false, nil
	}
	switch t.Kind {
	case resp.Integer:
		return "i" + strconv.FormatInt(t.Int, 10), true, nil
	case resp.BlobString, resp.SimpleString, resp.SimpleError, resp.BlobError, resp.Double, resp.BigNumber:
		if t.Text == nil {
			return "", false, nil
		}
		b, err := t.Text.Expand(env)
		if err != nil {
			return "", false, err
		}
		if isString(t.Kind) {
			b = env.rename(b)
		}
		return string(rune(t.Kind)) + string(b), true, nil
	}
	return "", false, nil
}

// valueKey is exactKey's identity of a value, and ok for the kinds an
// exact expectation can be.
func valueKey(v resp.Value) (string, bool) {
	if v.Attr != nil {
		return "", false
	}
	switch v.Kind {
	case resp.Integer:
		return "i" + strconv.FormatInt(v.Int, 10), true
	case resp.BlobString, resp.SimpleString, resp.SimpleError, resp.BlobError, resp.Double, resp.BigNumber:
		return string(rune(v.Kind)) + string(v.Str), true
	}
	return "", false
}

// itemKey is the key of an item of step values (a map's key and value):
// every value's, length-prefixed, when all are exact.
func itemKey(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d:%s", len(k), k)
	}
	return b.String()
}

// pairExact pairs each exact expected item (step values each) with an
// actual item of its key, in linear time: wantOf[j] is the expected item
// paired with actual item j, or -1, and wantPaired marks the expected
// items paired. An unordered reply of 10,000 members took 30 s and 264 MB
// through the general matching alone (a capture's SMEMBERS, 2026-12-07).
func pairExact(want []*TypedValue, got []resp.Value, env *Env, step int) (wantOf []int, wantPaired []bool, err error) {
	byKey := map[string][]int{}
	wantOf = make([]int, len(got)/step)
	for j := range wantOf {
		wantOf[j] = -1
		keys := make([]string, 0, step)
		for k := range step {
			key, ok := valueKey(got[j*step+k])
			if !ok {
				break
			}
			keys = append(keys, key)
		}
		if len(keys) == step {
			key := itemKey(keys)
			byKey[key] = append(byKey[key], j)
		}
	}
	wantPaired = make([]bool, len(want)/step)
	for i := range wantPaired {
		keys := make([]string, 0, step)
		for k := range step {
			key, ok, err := exactKey(want[i*step+k], env)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				break
			}
			keys = append(keys, key)
		}
		if len(keys) < step {
			continue
		}
		key := itemKey(keys)
		if js := byKey[key]; len(js) > 0 {
			wantOf[js[len(js)-1]], wantPaired[i] = i, true
			byKey[key] = js[:len(js)-1]
		}
	}
	return wantOf, wantPaired, nil
}

// describeWant renders an expected item of an unordered aggregate as the
// reply's items are rendered: an exact string with its templates expanded
// and a literal key name as the runner renamed it, so that the message
// shows what was compared (it showed `only in the expectation: blob
// string "user:1"; only in the reply: blob string "user:1"` where the
// expectation had become the namespaced name); else describeTyped.
func describeWant(t *TypedValue, env *Env) string {
	key, ok, err := exactKey(t, env)
	if err != nil || !ok || t.Kind == resp.Integer {
		return describeTyped(t)
	}
	return describeValue(resp.Value{Kind: t.Kind, Str: []byte(key[len(string(rune(t.Kind))):])})
}
