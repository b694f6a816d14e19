package replies

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// A frame that answers a command other than GET (frameCommands) has that
// command's shape, as its reply schema in the servers' src/commands/*.json
// gives it (Redis 8.6.3, Valkey 9.1.2): a library that converts HGETALL's
// reply into a dict may refuse an integer, and that says nothing about
// it. Within the shape anything a server may send varies: sizes (empty,
// wide), string payloads (not UTF-8, CR LF, numbers and nil spelled as
// text, long), numbers at their edges, an error in place of the reply
// (WRONGTYPE, LOADING...), pushes before it and an attribute on it
// (Next).

// shaped is a reply to the command named name, in g.proto (HELLO's is
// hello).
func (g *generator) shaped(name string) resp.Value {
	if isSubscribe(name) {
		return g.confirmation(name, 0)
	}
	if g.r.IntN(12) == 0 {
		return g.simple(resp.SimpleError, g.errText())
	}
	switch name {
	case "HGETALL", "CONFIG":
		return g.pairs(g.size())
	case "ZRANGE":
		return g.scored(g.size())
	case "SMEMBERS":
		return g.members(g.size())
	case "ZSCORE":
		if g.r.IntN(4) == 0 {
			return g.nilBlob()
		}
		return g.score()
	case "TTL":
		return resp.Value{Kind: resp.Integer, Int: []int64{-2, -1, 0, 1, 86400, 1<<63 - 1, 1 << 31}[g.r.IntN(7)]}
	case "EXISTS":
		return resp.Value{Kind: resp.Integer, Int: int64(g.r.IntN(3))}
	case "XRANGE":
		return g.entries(g.size())
	case "SCAN":
		cursor := g.pick("0", "0", "17", "18446744073709551615")
		return resp.Value{Kind: resp.Array, Elems: []resp.Value{blob(cursor), g.list(g.size())}}
	case "INFO":
		return g.info()
	case "HMGET":
		v := resp.Value{Kind: resp.Array}
		for range 1 + g.r.IntN(3) {
			if g.r.IntN(3) == 0 {
				v.Elems = append(v.Elems, g.nilBlob())
			} else {
				v.Elems = append(v.Elems, blob(g.text(true)))
			}
		}
		return v
	}
	return g.list(g.size()) // LRANGE
}

// nilBlob is a missing string: RESP3's null, RESP2's nil blob string.
func (g *generator) nilBlob() resp.Value {
	if g.proto == 3 {
		return resp.Value{Kind: resp.Null}
	}
	return resp.Value{Kind: resp.NilBlobString}
}

// list is an array of n blob strings.
func (g *generator) list(n int) resp.Value {
	v := resp.Value{Kind: resp.Array}
	for range n {
		v.Elems = append(v.Elems, blob(g.text(true)))
	}
	return v
}

// members is a set of n distinct blob strings (RESP2: an array).
func (g *generator) members(n int) resp.Value {
	v := resp.Value{Kind: resp.Set}
	if g.proto == 2 {
		v.Kind = resp.Array
	}
	for _, s := range g.distinct(n) {
		v.Elems = append(v.Elems, blob(s))
	}
	return v
}

// distinct is n distinct strings: text, and a number after one that is
// already taken.
func (g *generator) distinct(n int) []string {
	seen := map[string]bool{}
	var out []string
	for i := range n {
		s := g.text(true)
		for seen[s] {
			s += "#" + strconv.Itoa(i)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// pairs is n fields and their values: a map in RESP3, a flat array of
// 2n blob strings in RESP2.
func (g *generator) pairs(n int) resp.Value {
	v := resp.Value{Kind: resp.Map}
	if g.proto == 2 {
		v.Kind = resp.Array
	}
	for _, f := range g.distinct(n) {
		v.Elems = append(v.Elems, blob(f), blob(g.text(true)))
	}
	return v
}

// scoreTexts are scores as servers print them (a sorted set holds no
// NaN).
var scoreTexts = []string{"0", "-0", "1", "1.5", "-2.5", "0.1", "3.141", "inf", "-inf", "1e+308",
	"5e-324", "1.7976931348623157e+308", "9007199254740993", "123456789.125"}

// score is a sorted set score: a double in RESP3, its text in RESP2.
func (g *generator) score() resp.Value {
	s := scoreTexts[g.r.IntN(len(scoreTexts))]
	if g.proto == 3 {
		return resp.Value{Kind: resp.Double, Str: []byte(s)}
	}
	return blob(s)
}

// scored is ZRANGE ... WITHSCORES of n members: RESP3 an array of
// [member, score] pairs, RESP2 a flat array of members and scores.
func (g *generator) scored(n int) resp.Value {
	v := resp.Value{Kind: resp.Array}
	for _, m := range g.distinct(n) {
		if g.proto == 3 {
			v.Elems = append(v.Elems, resp.Value{Kind: resp.Array, Elems: []resp.Value{blob(m), g.score()}})
		} else {
			v.Elems = append(v.Elems, blob(m), g.score())
		}
	}
	return v
}

// entries is XRANGE's reply of n stream entries: each an array of its ID
// and a flat array of field-value pairs.
func (g *generator) entries(n int) resp.Value {
	v := resp.Value{Kind: resp.Array}
	ms := int64(1700000000000)
	for i := range n {
		fields := resp.Value{Kind: resp.Array}
		for _, f := range g.distinct(1 + g.r.IntN(3)) {
			fields.Elems = append(fields.Elems, blob(f), blob(g.text(true)))
		}
		id := strconv.FormatInt(ms+int64(i), 10) + "-" + g.pick("0", "1", "18446744073709551615")
		v.Elems = append(v.Elems, resp.Value{Kind: resp.Array, Elems: []resp.Value{blob(id), fields}})
	}
	return v
}

// infoValues are INFO field values as servers write them, and those a
// parser may trip on: lists of k=v pairs, numbers, empty, colons.
var infoValues = []string{"0", "1", "-1", "1.5", "7.2.4", "", "redis", "a:b", "k=v", "k=v,k2=v2",
	"ip=127.0.0.1,port=6380,state=online,offset=0,lag=0", "keys=1,expires=0,avg_ttl=0", "\xff\xfe", "yes", "inf"}

// info is INFO's text: "# Section" lines and field:value lines, CR LF
// ended; a verbatim string (txt) in RESP3, a blob string in RESP2.
func (g *generator) info() resp.Value {
	var b strings.Builder
	seen := map[string]bool{}
	for s := range 1 + g.r.IntN(3) {
		if s > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + g.pick("Server", "Clients", "Keyspace", "Replication", "Custom") + "\r\n")
		for i := range g.r.IntN(6) {
			// A field appears once in a server's INFO.
			name := g.pick("redis_version", "connected_clients", "db0", "slave0", "used_memory", "x_")
			for seen[name] {
				name += strconv.Itoa(i)
			}
			seen[name] = true
			b.WriteString(name + ":" + infoValues[g.r.IntN(len(infoValues))] + "\r\n")
		}
	}
	if g.proto == 3 {
		v := resp.Value{Kind: resp.VerbatimString, Str: []byte(b.String())}
		copy(v.Format[:], "txt")
		return v
	}
	return blob(b.String())
}

// hello is HELLO 3's reply: a RESP3 map whatever the connection spoke
// before, the same for every protocol's generator (drawn from the seed
// and id alone: a RESP2 library's HELLO 3 is answered from the RESP3
// generator's frames once the proxy saw it). Fields vary as servers'
// do: the family, version texts, the connection id, modules.
func (g *generator) hello(id int) resp.Value {
	h := &generator{r: rand.New(rand.NewPCG(g.seed, uint64(id))), proto: 3}
	server := h.pick("redis", "valkey", "redis", "KeyDB")
	v := resp.Value{Kind: resp.Map, Elems: []resp.Value{
		blob("server"), blob(server),
		blob("version"), blob(h.pick("8.6.3", "9.1.2", "7.0.15", "255.255.255", "8.6.3-rc1", "")),
		blob("proto"), {Kind: resp.Integer, Int: 3},
		// Client ids count connections from 1: 2^32+1 is a busy server's
		// months; 2^53 and beyond (lost as a JavaScript number) are not.
		blob("id"), {Kind: resp.Integer, Int: []int64{1, 42, 1234567, 1<<32 + 1}[h.r.IntN(4)]},
		blob("mode"), blob(h.pick("standalone", "cluster", "sentinel")),
		blob("role"), blob(h.pick("master", "replica")),
		blob("modules"), h.modules(),
	}}
	if server == "valkey" && h.r.IntN(2) == 0 {
		v.Elems = append(v.Elems, blob("availability_zone"), blob(h.text(false)))
	}
	return v
}

// modules is HELLO's modules: an array of maps (name, ver, path, args).
func (g *generator) modules() resp.Value {
	v := resp.Value{Kind: resp.Array}
	for range g.r.IntN(3) {
		v.Elems = append(v.Elems, resp.Value{Kind: resp.Map, Elems: []resp.Value{
			blob("name"), blob(g.pick("vectorset", "search", "ReJSON", g.text(false))),
			blob("ver"), {Kind: resp.Integer, Int: []int64{1, 80600, 999999}[g.r.IntN(3)]},
			blob("path"), blob("/usr/lib/redis/modules/x.so"),
			blob("args"), {Kind: resp.Array},
		}})
	}
	return v
}

// confirmation is a (un)subscribe command's confirmation of its i-th
// channel (the array, in RESP3 the push, the server sends per channel:
// kind, channel, subscription count) as a fresh connection gets it, which
// is where a frame's (un)subscribe runs (a case of its own): subscribing
// counts 1, 2, unsubscribing 0. The channel's text is varied here and
// replaced by the command's own channel when served (Served): a server
// echoes the name it was given, and libraries match confirmations to
// their commands by it (node-redis 5.12.1 resolved a SUBSCRIBE confirmed
// for another channel with undefined; a real server's confirmation leaves
// it waiting).
func (g *generator) confirmation(name string, i int) resp.Value {
	count := int64(0)
	if !strings.HasPrefix(name, "UN") && !strings.HasPrefix(name, "PUN") {
		count = int64(i + 1)
	}
	v := resp.Value{Kind: resp.Array, Elems: []resp.Value{blob(strings.ToLower(name)), blob(g.text(false)), {Kind: resp.Integer, Int: count}}}
	if g.proto == 3 {
		v.Kind = resp.Push
	}
	return v
}

// Served is f as a server sends it in answer to the command args (the
// command f's ID gives, its keys expanded): a (un)subscribe's
// confirmations name args' channels, in order.
func (f Frame) Served(args [][]byte) Frame {
	if len(args) < 2 || !isSubscribe(string(args[0])) {
		return f
	}
	rename := func(v resp.Value, i int) resp.Value {
		if 1+i >= len(args) || len(v.Elems) != 3 {
			return v
		}
		v.Elems = slices.Clone(v.Elems)
		v.Elems[1] = blob(string(args[1+i]))
		return v
	}
	f.Reply = rename(f.Reply, 0)
	more := make([]resp.Value, len(f.More))
	for i, m := range f.More {
		more[i] = rename(m, i+1)
	}
	f.More = more
	return f
}

// isSubscribe reports whether name is (P)(UN)SUBSCRIBE, in any case.
func isSubscribe(name string) bool {
	switch strings.ToUpper(name) {
	case "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE":
		return true
	}
	return false
}
