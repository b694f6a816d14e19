package replies

import (
	"bytes"
	"slices"

	"github.com/respcheck/respcheck/resp"
)

// sameUpToOrder reports whether a and b are the same reply, byte for byte,
// but for the order of map pairs and set members (as Lua's table
// iteration orders them).
func sameUpToOrder(a, b resp.Value) bool {
	return bytes.Equal(canonical(a), canonical(b))
}

// canonical is v's bytes with map pairs and set members sorted by their
// own canonical bytes.
func canonical(v resp.Value) []byte {
	v.Raw = nil
	if v.Attr != nil {
		a := resp.Value{Kind: resp.Attribute, Elems: sortedElems(*v.Attr)}
		v.Attr = &a
	}
	v.Elems = sortedElems(v)
	return resp.Append(nil, v)
}

func sortedElems(v resp.Value) []resp.Value {
	if len(v.Elems) == 0 {
		return nil
	}
	step := 1
	if v.Kind == resp.Map || v.Kind == resp.Attribute {
		step = 2
	}
	type unit struct{ b []byte }
	var units [][]byte
	for i := 0; i+step <= len(v.Elems); i += step {
		var u []byte
		for _, e := range v.Elems[i : i+step] {
			u = append(u, canonical(e)...)
		}
		units = append(units, u)
	}
	if v.Kind == resp.Map || v.Kind == resp.Set || v.Kind == resp.Attribute {
		slices.SortFunc(units, bytes.Compare)
	}
	out := make([]resp.Value, 0, len(units))
	for _, u := range units {
		// A unit re-enters the encoding as raw bytes: a simple string
		// value whose Append writes them as they are is not available, so
		// the unit is kept whole in a blob's payload.
		out = append(out, resp.Value{Kind: resp.BlobString, Str: u})
	}
	return out
}
