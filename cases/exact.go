package cases

import (
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// ElementRule is how ArrayValue writes one element of an array.
type ElementRule int

const (
	// Exact writes the element as it is (its kind and content).
	Exact ElementRule = iota
	// InAnyOrder writes an aggregate of scalars whose elements may come
	// in any order, as UnorderedValue does.
	InAnyOrder
	// AnyValue writes {any: true}.
	AnyValue
	// Given writes the typed value the rule gives beside it (a TTL's
	// {double: "93", within: 9}).
	Given
)

// ArrayValue writes the RESP array b (an EXEC's reply) as a typed value
// {array: [...]}, element i (v) as rule(i, v) says: exactly as it is
// (Exact), in any order (InAnyOrder: a queued SMEMBERS), any value
// (AnyValue: a queued TIME) or as the rule's own text (Given). ok is false where b is no array, or an element cannot be
// written as its rule asks (a streamed value, an InAnyOrder element that
// is no aggregate of scalars): the caller keeps the bytes. Strings are
// written by quote, as for UnorderedValue.
func ArrayValue(b []byte, rule func(i int, v resp.Value) (ElementRule, string), quote func([]byte) string) (string, bool) {
	_, v, err := resp.Parse(b)
	if err != nil || v.Kind != resp.Array || v.Attr != nil || v.Streamed {
		return "", false
	}
	parts := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		ok := true
		r, given := rule(i, e)
		switch r {
		case Given:
			parts[i] = given
		case InAnyOrder:
			parts[i], ok = unorderedOf(e, quote)
		case AnyValue:
			parts[i] = "{any: true}"
		default:
			parts[i], ok = exactValue(e, quote)
		}
		if !ok {
			return "", false
		}
	}
	return "{array: [" + strings.Join(parts, ", ") + "]}", true
}

// exactValue writes v as the typed value that matches exactly v's kind
// and content (a double and a big number by the server's text, an
// attribute as {attr: ..., value: ...}); ok is false for a streamed
// value, which the typed values cannot tell apart from a sized one.
func exactValue(v resp.Value, quote func([]byte) string) (string, bool) {
	if v.Streamed {
		return "", false
	}
	s, ok := exactOf(v, quote)
	if !ok || v.Attr == nil {
		return s, ok
	}
	attr, ok := pairsOf(v.Attr.Elems, quote)
	return "{attr: " + attr + ", value: " + s + "}", ok
}

// exactOf is exactValue without v's attribute.
func exactOf(v resp.Value, quote func([]byte) string) (string, bool) {
	if s, ok := scalarValue(v, quote); ok {
		return s, true
	}
	switch v.Kind {
	case resp.SimpleError:
		return "{error: " + quote(v.Str) + "}", true
	case resp.BlobError:
		return "{bloberror: " + quote(v.Str) + "}", true
	case resp.Boolean:
		return "{bool: " + strconv.FormatBool(v.Bool) + "}", true
	case resp.BigNumber:
		return "{big: " + quote(v.Str) + "}", true
	case resp.VerbatimString:
		return "{verbatim: {format: " + quote(v.Format[:]) + ", text: " + quote(v.Str) + "}}", true
	case resp.NilBlobString:
		return "{nil: blob}", true
	case resp.NilArray:
		return "{nil: array}", true
	case resp.Null:
		return "{null: true}", true
	case resp.Map:
		m, ok := pairsOf(v.Elems, quote)
		return "{map: " + m + "}", ok
	case resp.Array, resp.Set, resp.Push:
		tag := map[resp.Kind]string{resp.Array: "array", resp.Set: "set", resp.Push: "push"}[v.Kind]
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			var ok bool
			if parts[i], ok = exactValue(e, quote); !ok {
				return "", false
			}
		}
		return "{" + tag + ": [" + strings.Join(parts, ", ") + "]}", true
	}
	return "", false
}

// pairsOf writes the flattened pairs k0, v0, k1, v1, ... of a map or an
// attribute as [[k, v], ...].
func pairsOf(elems []resp.Value, quote func([]byte) string) (string, bool) {
	parts := make([]string, 0, len(elems)/2)
	for i := 0; i+1 < len(elems); i += 2 {
		k, ok := exactValue(elems[i], quote)
		if !ok {
			return "", false
		}
		val, ok := exactValue(elems[i+1], quote)
		if !ok {
			return "", false
		}
		parts = append(parts, "["+k+", "+val+"]")
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}
