package target

import (
	"bytes"
	"slices"
	"strings"
)

// Namespace returns args (the command name first) with each key argument
// at the positions keys (KeyPositions) and each key pattern
// (PatternPositions) that is not under prefix moved under it, and a SCAN
// without MATCH given MATCH prefix*: a case's literal key names moved into
// its namespace, as {key:foo} would name them. It returns args itself
// when nothing changes, else a copy (args is never written), and the
// positions of the key arguments it moved (not the patterns'): out[i] is
// the new name of args[i].
func Namespace(args [][]byte, keys []int, prefix []byte) (out [][]byte, moved []int) {
	if len(args) == 0 {
		return args, nil
	}
	out = args
	put := func(i int, b []byte) {
		if &out[0] == &args[0] {
			out = slices.Clone(args)
		}
		out[i] = b
	}
	under := func(i int) bool { return bytes.HasPrefix(args[i], prefix) }
	for _, i := range keys {
		if !under(i) {
			named := append(slices.Clip(prefix), args[i]...)
			put(i, named)
			moved = append(moved, i)
		}
	}
	for _, i := range PatternPositions(args) {
		if !under(i) {
			put(i, append(slices.Clip(prefix), args[i]...))
		}
	}
	if len(args) >= 2 && strings.EqualFold(string(args[0]), "SCAN") && !slices.ContainsFunc(args[1:], func(a []byte) bool { return strings.EqualFold(string(a), "MATCH") }) {
		out = append(slices.Clip(out), []byte("MATCH"), append(slices.Clip(prefix), '*'))
	}
	return out, moved
}

// PatternPositions returns the positions of args that are key patterns:
// KEYS's pattern, SCAN's MATCH, SORT and SORT_RO's BY and GET (but BY
// nosort and GET #).
func PatternPositions(args [][]byte) []int {
	var pos []int
	is := func(b []byte, word string) bool { return strings.EqualFold(string(b), word) }
	switch name := args[0]; {
	case is(name, "KEYS"):
		if len(args) == 2 {
			pos = append(pos, 1)
		}
	case is(name, "SCAN"):
		for i := 2; i+1 < len(args); i++ {
			if is(args[i], "MATCH") {
				pos = append(pos, i+1)
			}
		}
	case is(name, "SORT"), is(name, "SORT_RO"):
		for i := 2; i+1 < len(args); i++ {
			word, next := strings.ToUpper(string(args[i])), string(args[i+1])
			if word == "BY" && !strings.EqualFold(next, "nosort") || word == "GET" && next != "#" {
				pos = append(pos, i+1)
				i++
			}
		}
	}
	return pos
}
