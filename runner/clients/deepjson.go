package clients

// The adapter protocol is JSON lines, and encoding/json reads at most
// 10,000 levels of nesting: a native is two levels a level (an object and
// its "elems" array), so a reply nested 5,000 deep would not arrive. The Go
// adapter therefore cuts a native every jsonCut levels: the subtree below
// goes to the response's "deep" table, and a native {"ref": i} (Native.Ref)
// stands for entry i-1 of it; the reader puts the subtrees back
// (resolveDeep). Node and Python adapters send no refs.

// jsonCut is the native depth at which the Go adapter moves a subtree to
// the deep table.
const jsonCut = 1000

// cutDeep moves each subtree of n that lies jsonCut levels below n or
// below a subtree already moved into *deep, leaving a Ref in its place
// (in n itself: the natives of a response are sent once). depth is n's
// depth below its root.
func cutDeep(n *Native, depth int, deep *[]Native) {
	if depth == jsonCut {
		sub := *n
		*deep = append(*deep, Native{})
		i := len(*deep) - 1
		*n = Native{Ref: i + 1}
		cutDeep(&sub, 0, deep)
		(*deep)[i] = sub
		return
	}
	for i := range n.Elems {
		cutDeep(&n.Elems[i], depth+1, deep)
	}
	for i := range n.Pairs {
		cutDeep(&n.Pairs[i][0], depth+1, deep)
		cutDeep(&n.Pairs[i][1], depth+1, deep)
	}
	if n.Attr != nil {
		cutDeep(n.Attr, depth+1, deep)
	}
}

// cutResponse cuts the natives of a Go adapter response (value, values,
// exec) and adds the deep table when one was cut.
func cutResponse(resp map[string]any) {
	var deep []Native
	switch v := resp["value"].(type) {
	case Native:
		cutDeep(&v, 0, &deep)
		resp["value"] = v
	case *Native:
		cutDeep(v, 0, &deep)
	}
	if vs, ok := resp["values"].([]Native); ok {
		for i := range vs {
			cutDeep(&vs[i], 0, &deep)
		}
	}
	if e, ok := resp["exec"].(*Native); ok && e != nil {
		cutDeep(e, 0, &deep)
	}
	if len(deep) > 0 {
		resp["deep"] = deep
	}
}

// resolveDeep puts the subtrees of deep back where n and its children
// hold a Ref; a ref out of range becomes an exception (an adapter bug).
func resolveDeep(n *Native, deep []Native) {
	if n.Ref != 0 {
		i := n.Ref - 1
		if i < 0 || i >= len(deep) {
			*n = errNative("exception", "adapter", "adapter", "a native refers to a deep subtree the response does not hold")
			return
		}
		*n = deep[i]
	}
	for i := range n.Elems {
		resolveDeep(&n.Elems[i], deep)
	}
	for i := range n.Pairs {
		resolveDeep(&n.Pairs[i][0], deep)
		resolveDeep(&n.Pairs[i][1], deep)
	}
	if n.Attr != nil {
		resolveDeep(n.Attr, deep)
	}
}

// resolveResponse puts the deep subtrees of r back in its natives.
func resolveResponse(r *adapterResp) {
	if len(r.Deep) == 0 {
		return
	}
	if r.Value != nil {
		resolveDeep(r.Value, r.Deep)
	}
	for i := range r.Values {
		resolveDeep(&r.Values[i], r.Deep)
	}
	if r.Exec != nil {
		resolveDeep(r.Exec, r.Deep)
	}
	r.Deep = nil
}
