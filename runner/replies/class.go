package replies

import (
	"bytes"
	"slices"

	"github.com/respcheck/respcheck/resp"
)

// classify returns Served when a pinned build sends f's shape (see
// Served), else SpecOnly.
func classify(f Frame) Class {
	for _, p := range append(slices.Clone(f.Pushes), f.More...) {
		if !servedValue(p, false) {
			return SpecOnly
		}
	}
	r := f.Reply
	if r.Attr != nil {
		// DEBUG PROTOCOL attrib sends its attribute before a blob string.
		if !debugAttribute(*r.Attr) || r.Kind != resp.BlobString {
			return SpecOnly
		}
		r.Attr = nil
	}
	if !servedValue(r, false) {
		return SpecOnly
	}
	return Served
}

// debugAttribute reports whether a is the attribute DEBUG PROTOCOL attrib
// sends (Redis 8.6.3): |1 key-popularity [key:123, 90].
func debugAttribute(a resp.Value) bool {
	want := resp.Value{Kind: resp.Attribute, Elems: []resp.Value{blob("key-popularity"),
		{Kind: resp.Array, Elems: []resp.Value{blob("key:123"), {Kind: resp.Integer, Int: 90}}}}}
	return bytes.Equal(resp.Append(nil, a), resp.Append(nil, want))
}

func servedValue(v resp.Value, inner bool) bool {
	if v.Attr != nil || v.Streamed {
		return false
	}
	switch v.Kind {
	case resp.BlobError:
		return false
	case resp.SimpleString, resp.SimpleError:
		if bytes.IndexByte(v.Str, 0) >= 0 {
			return false
		}
	case resp.Double:
		if !slices.Contains(serverDoubles, string(v.Str)) {
			return false
		}
	case resp.VerbatimString:
		if f := string(v.Format[:]); f != "txt" && f != "mkd" {
			return false
		}
	case resp.Push:
		if inner {
			return false
		}
	}
	for i, e := range v.Elems {
		// A null map key or set member: Lua cannot make one (nil is no
		// table key), and no command sends one.
		if e.Kind == resp.Null && (v.Kind == resp.Set || v.Kind == resp.Map && i%2 == 0) {
			return false
		}
		if !servedValue(e, true) {
			return false
		}
	}
	return true
}
