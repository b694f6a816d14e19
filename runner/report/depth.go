package report

import (
	"strconv"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// maxJSONValueDepth is the deepest reply (reply_value) or decoded value
// (decoded) a JSON report holds as a tree. Each level of one is two or
// three levels of JSON, which encoding/json neither writes nor reads
// beyond 10,000 (a server sends replies 7,997 levels deep), and indented
// JSON repeats its depth on every line (a decoded value cut at 1,000
// levels made 73 MB): a deeper reply value is left out (its bytes remain,
// as for a reply over maxJSONReply), a deeper decoded value is cut there
// with a marker.
const maxJSONValueDepth = 64

// jsonValue is v for a report, or nil when it is deeper than
// maxJSONValueDepth.
func jsonValue(v resp.Value) *resp.Value {
	if v.Depth() > maxJSONValueDepth {
		return nil
	}
	c := v.Clone()
	return &c
}

// jsonNative is n for a report, cut maxJSONValueDepth levels down: the
// natives below are one of kind "other" that says how deep they went.
func jsonNative(n *clients.Native) *clients.Native {
	if n == nil || nativeDepth(n) <= maxJSONValueDepth {
		return n
	}
	c := cutNativeDepth(*n, maxJSONValueDepth)
	return &c
}

func nativeDepth(n *clients.Native) int {
	d := 0
	if n.Attr != nil {
		d = nativeDepth(n.Attr)
	}
	for i := range n.Elems {
		d = max(d, nativeDepth(&n.Elems[i]))
	}
	for i := range n.Pairs {
		d = max(d, nativeDepth(&n.Pairs[i][0]), nativeDepth(&n.Pairs[i][1]))
	}
	return d + 1
}

// cutNativeDepth copies n down to depth levels; a native at the last level is
// replaced by a marker when it has children.
func cutNativeDepth(n clients.Native, depth int) clients.Native {
	if depth == 1 {
		if len(n.Elems) == 0 && len(n.Pairs) == 0 && n.Attr == nil {
			return n
		}
		return clients.Native{Kind: "other", Type: "… " + strconv.Itoa(nativeDepth(&n)) + " more levels (cut for JSON)"}
	}
	if n.Elems != nil {
		elems := make([]clients.Native, len(n.Elems))
		for i := range n.Elems {
			elems[i] = cutNativeDepth(n.Elems[i], depth-1)
		}
		n.Elems = elems
	}
	if n.Pairs != nil {
		pairs := make([][2]clients.Native, len(n.Pairs))
		for i := range n.Pairs {
			pairs[i] = [2]clients.Native{cutNativeDepth(n.Pairs[i][0], depth-1), cutNativeDepth(n.Pairs[i][1], depth-1)}
		}
		n.Pairs = pairs
	}
	if n.Attr != nil {
		a := cutNativeDepth(*n.Attr, depth-1)
		n.Attr = &a
	}
	return n
}
