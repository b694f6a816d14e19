package target

import (
	"bytes"
	"slices"
	"strings"
)

// namespace returns args (the command name first) with each key argument
// at the positions keys (KeyPositions), each key pattern
// (PatternPositions) and each pub/sub channel or channel pattern
// (ChannelPositions) that is not under prefix moved under it, and a SCAN
// without MATCH given MATCH prefix*: a case's literal key names moved into
// its namespace, as {key:foo} would name them, and its channels with them
// (a captured application's SUBSCRIBE news and PUBLISH news, which a
// shared server's guard refused as another client's channel). It returns
// args itself when nothing changes, else a copy (args is never written),
// and the positions of the keys and channels it moved (not the key
// patterns'): out[i] is the new name of args[i].
func namespace(args [][]byte, keys []int, prefix []byte) (out [][]byte, moved []int) {
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
	for _, i := range ChannelPositions(args) {
		if !under(i) && !slices.Contains(keys, i) {
			put(i, append(slices.Clip(prefix), args[i]...))
			moved = append(moved, i)
		}
	}
	if len(args) >= 2 && strings.EqualFold(string(args[0]), "SCAN") && !slices.ContainsFunc(args[1:], func(a []byte) bool { return strings.EqualFold(string(a), "MATCH") }) {
		out = append(slices.Clip(out), []byte("MATCH"), append(slices.Clip(prefix), '*'))
	}
	return out, moved
}

// channelArgs are the pub/sub commands whose arguments name channels (or
// channel patterns), from first to last (-1: to the end).
var channelArgs = map[string]struct{ first, last int }{
	"SUBSCRIBE": {1, -1}, "UNSUBSCRIBE": {1, -1}, "PSUBSCRIBE": {1, -1}, "PUNSUBSCRIBE": {1, -1},
	"SSUBSCRIBE": {1, -1}, "SUNSUBSCRIBE": {1, -1}, "PUBLISH": {1, 1}, "SPUBLISH": {1, 1},
	"PUBSUB CHANNELS": {2, 2}, "PUBSUB SHARDCHANNELS": {2, 2}, "PUBSUB NUMSUB": {2, -1}, "PUBSUB SHARDNUMSUB": {2, -1},
}

// serverChannels are the prefixes of the channels the server names
// itself: client tracking's redirect channel, keyspace notifications.
var serverChannels = []string{"__redis__:", "__keyspace@", "__keyevent@"}

// ChannelPositions returns the positions of args that name pub/sub
// channels or channel patterns (SUBSCRIBE's, PUBLISH's, PUBSUB NUMSUB's,
// ...), but the server's own (__redis__:invalidate, __keyspace@0__:k).
func ChannelPositions(args [][]byte) []int {
	name := strings.ToUpper(string(args[0]))
	if name == "PUBSUB" && len(args) > 1 {
		name += " " + strings.ToUpper(string(args[1]))
	}
	span, ok := channelArgs[name]
	if !ok {
		return nil
	}
	last := span.last
	if last < 0 || last >= len(args) {
		last = len(args) - 1
	}
	var pos []int
	for i := span.first; i <= last; i++ {
		if !slices.ContainsFunc(serverChannels, func(p string) bool { return bytes.HasPrefix(args[i], []byte(p)) }) {
			pos = append(pos, i)
		}
	}
	return pos
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
