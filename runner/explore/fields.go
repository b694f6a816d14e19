package explore

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"

	"github.com/respcheck/respcheck/resp"
)

// Field-level noise, as Diffy learns it per field: a map reply whose
// fields differ between A and A2 only in a few is noise in those only,
// and is still compared with B in the others. HELLO's connection id is
// noise from the start (connIDFields): it counts a server's connections,
// which differ with what else connected to it, not with its build.

// canon returns v's type, length and elements (canon's, at every depth),
// a set's elements in sorted order: a RESP3 set has no order (the RESP3
// specification), whatever order a server happens to send.
func canon(v resp.Value) []byte { return canonOf(v, false) }

// canonAll is canon with every array's elements sorted too: RESP2's
// arrays where the command's RESP3 reply has sets (setsInside). It also
// sorts RESP2's maps and positional fields: a reorder there shows in RESP3
// only (which runs first).
func canonAll(v resp.Value) []byte { return canonOf(v, true) }

func canonOf(v resp.Value, arrays bool) []byte {
	if !aggregate(v.Kind) || len(v.Raw) == 0 {
		return v.Raw
	}
	parts := make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		parts[i] = canonOf(e, arrays)
	}
	if v.Kind == resp.Set || arrays && v.Kind == resp.Array {
		sort.Slice(parts, func(i, j int) bool { return bytes.Compare(parts[i], parts[j]) < 0 })
	}
	head := append([]byte{v.Raw[0]}, strconv.Itoa(len(v.Elems))...)
	return append(append(head, 0), bytes.Join(parts, []byte{0})...)
}

// hasSet says whether reply b holds a set at any depth.
func hasSet(b []byte) bool {
	_, v, err := resp.Parse(b)
	return err == nil && setIn(v)
}

func setIn(v resp.Value) bool {
	if v.Kind == resp.Set {
		return true
	}
	for _, e := range v.Elems {
		if setIn(e) {
			return true
		}
	}
	return false
}

// sameAll says whether replies a and b are equal in canonAll's form.
func sameAll(a, b []byte) bool {
	_, va, err1 := resp.Parse(a)
	_, vb, err2 := resp.Parse(b)
	return err1 == nil && err2 == nil && bytes.Equal(canonAll(va), canonAll(vb))
}

func aggregate(k resp.Kind) bool {
	switch k {
	case resp.Array, resp.Set, resp.Map, resp.Push, resp.Attribute:
		return true
	}
	return false
}

// fields returns v's elements by field: a map's (and, with pairs, an
// array of alternating keys and values: RESP2's map) values by key, an
// aggregate's others by position, each in canonical form (canon); ok is
// false for a scalar.
func fields(v resp.Value, pairs bool) (map[string][]byte, bool) {
	if !aggregate(v.Kind) {
		return nil, false
	}
	out := map[string][]byte{}
	if v.Kind == resp.Map || v.Kind == resp.Attribute || pairs && v.Kind == resp.Array && len(v.Elems)%2 == 0 {
		for i := 0; i+1 < len(v.Elems); i += 2 {
			out["key "+string(canon(v.Elems[i]))] = canon(v.Elems[i+1])
		}
		return out, true
	}
	for i, e := range v.Elems {
		out[fmt.Sprint("at ", i)] = canon(e)
	}
	return out, true
}

// noisyFields returns the keys (see fields) in which map replies a and a2
// (of two servers of one build) differ, with ok false when they are not
// maps (or RESP2's arrays of pairs) with the same keys, or differ in most
// of them: the whole reply is noise then.
func noisyFields(a, a2 []byte, pairs bool) (noisy []string, ok bool) {
	_, va, err1 := resp.Parse(a)
	_, va2, err2 := resp.Parse(a2)
	// Keyed fields only: an array's elements are alike (HPEXPIRETIME's
	// times, one per field), and the one that differed between A and A2
	// says nothing of the others (a false HPEXPIRETIME difference in a
	// 3-minute run of one build against itself).
	if err1 != nil || err2 != nil || va.Kind != va2.Kind || !(va.Kind == resp.Map || pairs && va.Kind == resp.Array) {
		return nil, false
	}
	fa, ok1 := fields(va, pairs)
	fa2, ok2 := fields(va2, pairs)
	if !ok1 || !ok2 || len(fa) != len(fa2) {
		return nil, false
	}
	for k, x := range fa {
		y, ok := fa2[k]
		if !ok {
			return nil, false
		}
		if !bytes.Equal(x, y) {
			noisy = append(noisy, k)
		}
	}
	return noisy, 2*len(noisy) < len(fa)
}

// sameBut says whether replies a and b are equal but for the fields in
// skip (see fields), their sets compared in canonical order (canon).
func sameBut(a, b []byte, skip map[string]bool, pairs bool) bool {
	_, va, err1 := resp.Parse(a)
	_, vb, err2 := resp.Parse(b)
	if err1 != nil || err2 != nil || va.Kind != vb.Kind {
		return false
	}
	if len(skip) == 0 {
		return bytes.Equal(canon(va), canon(vb))
	}
	fa, ok1 := fields(va, pairs)
	fb, ok2 := fields(vb, pairs)
	if !ok1 || !ok2 || len(fa) != len(fb) {
		return false
	}
	for k, x := range fa {
		y, ok := fb[k]
		if !ok || !skip[k] && !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// sameError says whether a and a2 are the same error reply.
func sameError(a, a2 []byte) bool { return isError(a) && bytes.Equal(a, a2) }

// isError says whether reply b is an error (simple or blob).
func isError(b []byte) bool { return len(b) > 0 && (b[0] == '-' || b[0] == '!') }

// connIDFields are the fields that hold a connection's id, by protocol and
// command as noisyAt keys them: HELLO's "id" (a RESP3 map's key, RESP2's
// flat array's).
func connIDFields() map[string]map[string]bool {
	id := "key $2\r\nid\r\n"
	return map[string]map[string]bool{"2HELLO": {id: true}, "3HELLO": {id: true}}
}
