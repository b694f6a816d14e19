package capture

import (
	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
)

// elementScans are the commands that iterate one key's elements with a
// cursor (Volatile: a cursor other than 0 names a place in the server's
// hash table, and the elements before it differ between builds).
var elementScans = map[string]bool{"HSCAN": true, "SSCAN": true, "ZSCAN": true}

// wholeScan is the typed value of an HSCAN, SSCAN or ZSCAN that started
// at cursor 0 and got every element at once (cursor 0 back: a small key,
// or a COUNT over its length): {array: ["0", {array_unordered: [...]}]},
// its elements (fields and values, members and scores) in any order, as
// an HGETALL's; "" for any other reply, which stays any reply (Volatile).
func (w *writer) wholeScan(ex *clients.Exchange) string {
	if len(ex.Args) < 3 || !elementScans[commandName(ex.Args)] || string(ex.Args[2]) != "0" || len(ex.Replies) != 1 {
		return ""
	}
	v, ok := cases.ArrayValue(ex.Replies[0], func(i int) cases.ElementRule {
		if i == 1 {
			return cases.InAnyOrder
		}
		return cases.Exact
	}, w.element)
	if !ok || !isWholeScan(v) {
		return ""
	}
	return v
}

// isWholeScan reports whether v, an ArrayValue of a scan's reply, is
// cursor 0 and the elements.
func isWholeScan(v string) bool {
	const head = `{array: [{blob: "0"}, {array_unordered: [`
	return len(v) > len(head) && v[:len(head)] == head
}
