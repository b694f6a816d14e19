package capture

import (
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// elementScans are the commands that iterate one key's elements with a
// cursor (volatileCommands: a cursor other than 0 names a place in the server's
// hash table, and the elements before it differ between builds).
var elementScans = map[string]bool{"HSCAN": true, "SSCAN": true, "ZSCAN": true}

// wholeScan is the typed value of an HSCAN, SSCAN or ZSCAN without MATCH
// that started at cursor 0 and got every element at once (cursor 0 back),
// fewer elements than its COUNT (10 by default; with exactly COUNT, Redis
// 7.0.15 stopped at another cursor in 2 of 6 starts, by its hash seed): {array: ["0",
// {array_unordered: [...]}]}, its elements (fields and values, members
// and scores) in any order, as an HGETALL's; "" for any other reply,
// which stays any reply (volatileCommands). A key of more elements than COUNT
// comes whole at once only in a compact encoding (a listpack), which
// builds choose otherwise (Redis 7.0.15 keeps a set of strings in a
// hashtable, scanned COUNT at a time): comparing it would report the
// encoding, not what the application sees.
func (w *writer) wholeScan(ex *clients.Exchange) string {
	if len(ex.Args) < 3 || !elementScans[commandName(ex.Args)] || string(ex.Args[2]) != "0" || len(ex.Replies) != 1 {
		return ""
	}
	_, r, err := resp.Parse(ex.Replies[0])
	if err != nil || len(r.Elems) != 2 || len(r.Elems[1].Elems) >= scanCount(ex.Args)*perElement(ex.Args) || scanMatches(ex.Args) {
		return ""
	}
	v, ok := cases.ArrayValue(ex.Replies[0], func(i int, _ resp.Value) (cases.ElementRule, string) {
		if i == 1 {
			return cases.InAnyOrder, ""
		}
		return cases.Exact, ""
	}, w.element)
	if !ok || !isWholeScan(v) {
		return ""
	}
	return v
}

// scanMatches reports whether a scan has a MATCH pattern: its reply holds
// the elements that matched among COUNT, however many the key has.
func scanMatches(args [][]byte) bool {
	for _, a := range args[3:] {
		if strings.EqualFold(string(a), "MATCH") {
			return true
		}
	}
	return false
}

// scanCount is a scan's COUNT, 10 without one.
func scanCount(args [][]byte) int {
	for i := 3; i+1 < len(args); i++ {
		if strings.EqualFold(string(args[i]), "COUNT") {
			if n, err := strconv.Atoi(string(args[i+1])); err == nil && n > 0 {
				return n
			}
		}
	}
	return 10
}

// perElement is how many strings a scan's reply holds per element: a
// field and its value (HSCAN but NOVALUES), a member and its score
// (ZSCAN), a member (SSCAN).
func perElement(args [][]byte) int {
	switch commandName(args) {
	case "SSCAN":
		return 1
	case "HSCAN":
		if strings.EqualFold(string(args[len(args)-1]), "NOVALUES") {
			return 1
		}
	}
	return 2
}

// isWholeScan reports whether v, an ArrayValue of a scan's reply, is
// cursor 0 and the elements.
func isWholeScan(v string) bool {
	const head = `{array: [{blob: "0"}, {array_unordered: [`
	return len(v) > len(head) && v[:len(head)] == head
}
