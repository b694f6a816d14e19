package schema

import (
	"math"
	"strconv"

	"github.com/respcheck/respcheck/resp"
)

// jsonOf maps a RESP3 reply to the JSON value the servers' reply schemas
// describe, as Redis's own validator (utils/req-res-log-validator.py,
// Redis 7.2 to 8.6, which validates replies logged by the test suite run
// with --force-resp3) reads them:
//
//   - simple and blob string → string (bytes as they are; invalid UTF-8 is
//     kept, the schemas' patterns are ASCII)
//   - verbatim string → string, the text after its "txt:" or "mkd:"
//   - big number → string of its digits (JSON numbers cannot hold it)
//   - integer → integer; double → number (inf, -inf and nan as Go's
//     float64, which a "type": "number" accepts)
//   - boolean → boolean; null, and RESP2's $-1 and *-1 → null
//   - array, set and push → array (a set's uniqueness is left to the
//     schema's uniqueItems, as the validator does)
//   - map → object; a key that is not a string becomes its text (an
//     integer key 7 is "7", an aggregate key its escaped bytes)
//   - an attribute is dropped: the value it precedes is validated
//
// Error replies have no JSON value: ok is false for a simple or blob
// error at the top (the schemas do not describe errors; Check skips
// them). An error nested in an aggregate (EXEC's replies) becomes its
// text, as the validator does.
func jsonOf(v resp.Value) (out any, ok bool) {
	if v.Kind == resp.SimpleError || v.Kind == resp.BlobError {
		return nil, false
	}
	return toJSON(&v), true
}

func toJSON(v *resp.Value) any {
	switch v.Kind {
	case resp.SimpleString, resp.BlobString, resp.SimpleError, resp.BlobError,
		resp.VerbatimString, resp.BigNumber:
		return string(v.Str)
	case resp.Integer:
		return v.Int
	case resp.Double:
		return doubleOf(v)
	case resp.Boolean:
		return v.Bool
	case resp.Array, resp.Set, resp.Push:
		out := make([]any, len(v.Elems))
		for i := range v.Elems {
			out[i] = toJSON(&v.Elems[i])
		}
		return out
	case resp.Map, resp.Attribute:
		out := make(map[string]any, len(v.Elems)/2)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			out[keyOf(&v.Elems[i])] = toJSON(&v.Elems[i+1])
		}
		return out
	}
	return nil // null, $-1, *-1
}

// doubleOf is a double's value: Float when the reader parsed it, else its
// text parsed again (a hand-made Value).
func doubleOf(v *resp.Value) float64 {
	if v.Float != 0 || len(v.Str) == 0 {
		return v.Float
	}
	switch string(v.Str) {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(string(v.Str), 64)
	return f
}

// keyOf is the object key of a map key.
func keyOf(k *resp.Value) string {
	if k.Kind.Textual() {
		if k.Kind == resp.Integer && len(k.Str) == 0 {
			return strconv.FormatInt(k.Int, 10)
		}
		return string(k.Str)
	}
	return resp.Escape(k.Raw)
}
