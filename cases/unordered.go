package cases

import (
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// UnorderedValue writes the RESP frame b, an array, set or map whose
// elements are scalars (blob strings, integers, simple strings, doubles),
// as a typed value whose elements may come in any order:
// {array_unordered: [...]}, {set_unordered: [...]} or {map_unordered:
// [[k, v], ...]}, each string written by quote (a quoted template, such
// as QuoteBytes gives). ok is false for any other frame, an aggregate
// holding an aggregate included. It is how the explorer and capture write
// the replies of commands whose COMMAND INFO tips say
// nondeterministic_output_order (SMEMBERS, HGETALL, KEYS, ...): the order
// of a set's elements differs between builds of one server (SMEMBERS of
// two members on Redis 8.6.3 and 7.0.15, found by a fresh user of
// capture, 2026-12-07). A RESP2 HGETALL is a flat array, compared as a
// multiset of fields and values: its pairing is not checked.
func UnorderedValue(b []byte, quote func([]byte) string) (string, bool) {
	_, v, err := resp.Parse(b)
	if err != nil {
		return "", false
	}
	return unorderedOf(v, quote)
}

// unorderedOf is UnorderedValue of a parsed frame.
func unorderedOf(v resp.Value, quote func([]byte) string) (string, bool) {
	if v.Attr != nil || v.Streamed {
		return "", false
	}
	var tag string
	switch v.Kind {
	case resp.Array:
		tag = "array_unordered"
	case resp.Set:
		tag = "set_unordered"
	case resp.Map:
		tag = "map_unordered"
	default:
		return "", false
	}
	var parts []string
	for i := 0; i < len(v.Elems); i++ {
		e, ok := scalarValue(v.Elems[i], quote)
		if !ok {
			return "", false
		}
		if v.Kind == resp.Map {
			val, ok := scalarValue(v.Elems[i+1], quote)
			if !ok {
				return "", false
			}
			e = "[" + e + ", " + val + "]"
			i++
		}
		parts = append(parts, e)
	}
	return "{" + tag + ": [" + strings.Join(parts, ", ") + "]}", true
}

// scalarValue writes a blob string, integer, simple string or double as
// a typed value.
func scalarValue(v resp.Value, quote func([]byte) string) (string, bool) {
	switch v.Kind {
	case resp.BlobString:
		return "{blob: " + quote(v.Str) + "}", true
	case resp.Integer:
		return "{int: " + strconv.FormatInt(v.Int, 10) + "}", true
	case resp.SimpleString:
		return "{simple: " + quote(v.Str) + "}", true
	case resp.Double:
		return "{double: " + quote(v.Str) + "}", true
	}
	return "", false
}
