package resp

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNestedPush: a push frame inside an aggregate (an array, map, set,
// attribute or another push). RESP3 sends push data out of band, as
// frames of their own between replies; one inside a reply's aggregate
// reads, to a client that follows the rule, as an element that is not
// there (Redis 7.0.15 writes the push of DEBUG PROTOCOL push queued in
// MULTI between two elements of EXEC's array). The decoder accepts it;
// CheckFrame reports it.
var ErrNestedPush = errors.New("resp: push frame inside an aggregate")

// CheckFrame returns the first rule of RESP3 that the decoded frame v
// breaks where decoding alone does not catch it, or nil: a push frame
// nested inside an aggregate (ErrNestedPush). The error is a *SyntaxError
// whose Offset counts from v.Raw's first byte and whose Context says
// where the push is ("element 1 of an array at offset 0").
func CheckFrame(v Value) error {
	if v.Kind != Push && v.Attr == nil && !hasAggregateChild(v) {
		return nil
	}
	return nestedPush(v.Raw, &v, 0, false)
}

// hasAggregateChild reports whether any of v's children is an aggregate
// or carries an attribute (a scalar child cannot hold a push).
func hasAggregateChild(v Value) bool {
	for i := range v.Elems {
		if len(v.Elems[i].Elems) > 0 || v.Elems[i].Kind == Push || v.Elems[i].Attr != nil {
			return true
		}
	}
	return false
}

// nestedPush walks v, which starts at offset off of top (the frame's raw
// bytes), depth first in byte order; inside says v is inside an
// aggregate already.
func nestedPush(top []byte, v *Value, off int, inside bool) error {
	for a := v.Attr; a != nil; a = a.Attr {
		aoff := offsetIn(top, a.Raw, off)
		if err := children(top, a, aoff, "attribute"); err != nil {
			return err
		}
	}
	if v.Kind == Push && inside {
		return nil // reported by the caller, which knows the place
	}
	if len(v.Elems) == 0 {
		return nil
	}
	return children(top, v, offsetIn(top, v.Raw, off)+attrLen(v), kindNames[v.Kind])
}

// children checks the children of the aggregate (or attribute) p at off.
func children(top []byte, p *Value, off int, what string) error {
	next := off + headerLen(top, off)
	for i := range p.Elems {
		e := &p.Elems[i]
		eoff := offsetIn(top, e.Raw, next)
		if e.Kind == Push {
			at := eoff + attrLen(e)
			return &SyntaxError{
				Offset:  int64(at),
				Context: "(" + place(p.Kind, i, what) + " at offset " + strconv.Itoa(off) + "; RESP3 sends push frames only between replies, out of band)",
				Excerpt: excerpt(top, at, at),
				Err:     ErrNestedPush,
			}
		}
		if err := nestedPush(top, e, eoff, true); err != nil {
			return err
		}
		next = eoff + len(e.Raw)
	}
	return nil
}

// place names child i of an aggregate of kind k, called what: "element
// 2 of an array", "key 1 of a map", "value 1 of an attribute".
func place(k Kind, i int, what string) string {
	article := " of a "
	if strings.IndexByte("aeiou", what[0]) >= 0 {
		article = " of an "
	}
	if k.isPairs() {
		role := "key "
		if i%2 == 1 {
			role = "value "
		}
		return role + strconv.Itoa(i/2+1) + article + what
	}
	return "element " + strconv.Itoa(i+1) + article + what
}

// offsetIn is the offset of b in top when b's bytes are top's (a decoded
// or cloned frame), else guess (a built value, counted sequentially).
func offsetIn(top, b []byte, guess int) int {
	if off, ok := within(top, b); ok {
		return off
	}
	return guess
}

// headerLen is the length of the header line starting at off ("*2\r\n").
func headerLen(top []byte, off int) int {
	for i := off; i+1 < len(top); i++ {
		if top[i] == '\r' && top[i+1] == '\n' {
			return i + 2 - off
		}
	}
	return 0
}

// attrLen is the length of the attributes in front of v's own bytes.
func attrLen(v *Value) int {
	n := 0
	for a := v.Attr; a != nil; a = a.Attr {
		n += len(a.Raw)
	}
	return n
}
