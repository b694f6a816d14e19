package clients

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// deepestReply is the depth of the deepest reply a pinned build sends: a
// Lua script's nested tables reach 7,995 arrays around an error on Redis
// 8.6.3 and Valkey 9.1.2, and EXEC's array adds one.
const deepestReply = 7997

// nestedWire is depth-1 aggregates of one element (open each) around leaf.
func nestedWire(open, leaf string, depth int) string {
	return strings.Repeat(open, depth-1) + leaf
}

// nestedNative is depth-1 natives of kind around leaf, as wrap makes them.
func nestedNative(leaf Native, depth int, wrap func(Native) Native) Native {
	n := leaf
	for i := 1; i < depth; i++ {
		n = wrap(n)
	}
	return n
}

func list(kind string) func(Native) Native {
	return func(e Native) Native { return Native{Kind: kind, Type: "[]interface {}", Elems: []Native{e}} }
}

// judgeWork judges v against n under client's contract and returns the
// verdict, the notes and the nodes the judge visited.
func judgeWork(t *testing.T, client, wire string, n Native) (Verdict, []string, int64) {
	t.Helper()
	_, v, err := resp.ParseLimits([]byte(wire), resp.Limits{MaxDepth: deepestReply + 10})
	if err != nil {
		t.Fatal(err)
	}
	j := judger{c: contractFor(client), frames: []resp.Value{v}, ctx: context.Background()}
	vd := j.judge(&v, &n, nil, false)
	return vd, j.notes, j.visits
}

// TestJudgeWorkLinearInDepth: each node of a deeply nested reply is
// judged once, under every contract (those with conversions tried each
// array twice, and each level doubled the work: 2^depth visits), whether
// it matches or a leaf deep down does not.
func TestJudgeWorkLinearInDepth(t *testing.T) {
	leaf := tx("int", "int64", "1")
	for _, client := range []string{"go-redis/resp2", "rueidis/resp3", "valkey-go/resp2", "redigo/resp2", "radix/resp3",
		"redis-py-6.4.0/resp2", "valkey-glide/resp3", "node-redis-6.3.1/resp3"} {
		for _, depth := range []int{2, 30, deepestReply} {
			wire := nestedWire("*1\r\n", ":1\r\n", depth)
			vd, notes, visits := judgeWork(t, client, wire, nestedNative(leaf, depth, list("list")))
			if vd != Match || visits != int64(depth) {
				t.Errorf("%s depth %d: %s after %d visits, want match after %d (%.200q)", client, depth, vd, visits, depth, notes)
			}
			// A wrong leaf at the bottom: one note, its path shortened.
			vd, notes, visits = judgeWork(t, client, wire, nestedNative(tx("int", "int64", "2"), depth, list("list")))
			if vd != Mismatch || visits > 2*int64(depth) || len(notes) != 1 || len(notes[0]) > 200 {
				t.Errorf("%s depth %d, wrong leaf: %s after %d visits, notes %.300q", client, depth, vd, visits, notes)
			}
		}
	}
	// RESP3 sets (matched in any order) and maps of one entry.
	depth := deepestReply
	vd, notes, visits := judgeWork(t, "redis-py-6.4.0/resp3", nestedWire("~1\r\n", ":1\r\n", depth), nestedNative(leaf, depth, list("set")))
	if vd != Match || visits != int64(depth) {
		t.Errorf("nested sets: %s after %d visits, want %d (%.200q)", vd, visits, depth, notes)
	}
	keyed := func(e Native) Native {
		return Native{Kind: "map", Type: "map", Pairs: [][2]Native{{stringNative("string", "k"), e}}}
	}
	vd, notes, visits = judgeWork(t, "go-redis/resp3", nestedWire("%1\r\n$1\r\nk\r\n", ":1\r\n", depth), nestedNative(leaf, depth, keyed))
	if vd != Match || visits != int64(2*depth-1) {
		t.Errorf("nested maps: %s after %d visits, want %d (%.200q)", vd, visits, 2*depth-1, notes)
	}
}

// TestJudgeWorkLinearInWidth: a set or a map whose elements the library
// holds in another order costs one judgement per element (each used to be
// tried against every other: n² visits).
func TestJudgeWorkLinearInWidth(t *testing.T) {
	const n = 20000
	var set, m strings.Builder
	set.WriteString("~" + strconv.Itoa(n) + "\r\n")
	m.WriteString("%" + strconv.Itoa(n) + "\r\n")
	elems := make([]Native, n)
	pairs := make([][2]Native, n)
	for i := range n {
		s := "e" + strconv.Itoa(i)
		set.WriteString("$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n")
		m.WriteString("$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n:" + strconv.Itoa(i) + "\r\n")
		elems[i] = stringNative("bytes", s)
		pairs[i] = [2]Native{stringNative("string", s), tx("int", "int64", strconv.Itoa(i))}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(a, b int) { elems[a], elems[b] = elems[b], elems[a] })
	r.Shuffle(n, func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
	vd, notes, visits := judgeWork(t, "redis-py-6.4.0/resp3", set.String(), Native{Kind: "set", Type: "set", Elems: elems})
	if vd != Match || visits != n+1 {
		t.Errorf("set: %s after %d visits, want match after %d (%.200q)", vd, visits, n+1, notes)
	}
	vd, notes, visits = judgeWork(t, "go-redis/resp3", m.String(), Native{Kind: "map", Type: "map", Pairs: pairs})
	if vd != Match || visits != 2*n+1 {
		t.Errorf("map: %s after %d visits, want match after %d (%.200q)", vd, visits, 2*n+1, notes)
	}
}

// TestJudgeNotesBounded: a million mismatched elements make maxNotes notes
// and a count of the others.
func TestJudgeNotesBounded(t *testing.T) {
	const n = 1000
	wire := "*" + strconv.Itoa(n) + "\r\n" + strings.Repeat(":1\r\n", n)
	elems := make([]Native, n)
	for i := range elems {
		elems[i] = stringNative("string", "1")
	}
	got, notes := contractFor("go-redis/resp2").Judge(parse(t, wire), Native{Kind: "list", Type: "[]interface {}", Elems: elems})
	if got != Mismatch || len(notes) != maxNotes+1 || notes[maxNotes] != "… and 900 more notes" {
		t.Errorf("%s, %d notes, last %q", got, len(notes), notes[len(notes)-1])
	}
}

// TestJudgeStopsOnContext: a judgement whose context is done stops and
// says so.
func TestJudgeStopsOnContext(t *testing.T) {
	const n = 3 * judgeCheckEvery
	wire := "*" + strconv.Itoa(n) + "\r\n" + strings.Repeat(":1\r\n", n)
	elems := make([]Native, n)
	for i := range elems {
		elems[i] = tx("int", "int64", "1")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := judgeVisits.Load()
	got, notes, rule := contractFor("go-redis/resp2").JudgeCommand(ctx, 2, nil, []resp.Value{parse(t, wire)}, Native{Kind: "list", Type: "[]interface {}", Elems: elems})
	if got != Error || rule != ruleNotJudged || len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "judging stopped: context canceled") {
		t.Errorf("%s %q", got, notes)
	}
	if visits := judgeVisits.Load() - before; visits != judgeCheckEvery {
		t.Errorf("%d visits, want %d", visits, judgeCheckEvery)
	}
}

// TestJudgePathRuns: a path repeats a segment once with its count.
func TestJudgePathRuns(t *testing.T) {
	var p *jpath
	if p.String() != "reply" {
		t.Errorf("root: %q", p.String())
	}
	for range 3 {
		p = p.at(0)
	}
	if got := p.at(1).String(); got != "[0][0][0][1]" {
		t.Errorf("short run: %q", got)
	}
	for range 7000 {
		p = p.at(0)
	}
	k := parse(t, "$1\r\nk\r\n")
	if got := p.at(1).keyed(&k).field("(key)").String(); got != `[0]×7003[1]{"$1\r\nk\r\n"}(key)` {
		t.Errorf("long run: %q", got)
	}
}

// TestAdapterDepthMark: below the 64 levels an adapter reports, its mark
// ("<too deep>", kind other) is not judged: a 100-deep array the library
// decoded to the mark is no mismatch, and says where judging stopped; a
// wrong value above the mark still is.
func TestAdapterDepthMark(t *testing.T) {
	mark := "<too deep>"
	deep := Native{Kind: "other", Type: "list", Text: &mark}
	wire := nestedWire("*1\r\n", ":1\r\n", 100)
	vd, notes, _ := judgeWork(t, "redis-py-6.4.0/resp2", wire, nestedNative(deep, 66, list("list")))
	if vd != Match || len(notes) != 1 || !strings.Contains(notes[0], "not judged below: the adapter reports 64 levels") {
		t.Errorf("the mark at depth 66: %s %q, want match with a note", vd, notes)
	}
	wrong := Native{Kind: "list", Type: "list", Elems: []Native{nestedNative(deep, 65, list("list")), tx("int", "int", "2")}}
	vd, notes, _ = judgeWork(t, "redis-py-6.4.0/resp2", "*1\r\n"+wire, wrong)
	if vd != Mismatch {
		t.Errorf("an extra element above the mark: %s %q, want mismatch", vd, notes)
	}
}
