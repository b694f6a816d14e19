package explore

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// KeyPrefix starts every key the explorer writes: a hash tag, so that
// every key of a sequence is in one cluster slot.
const KeyPrefix = "{rx}:"

// Key is one key of the prepared keyspace.
type Key struct {
	// Name is the key's name after KeyPrefix ("list").
	Name string
	// Type is the TYPE it has after Setup ("string", "list", ...), "none"
	// for a key that does not exist.
	Type string
	// Setup is the command that creates it (nil for none), key at index 1.
	Setup []string
}

// keyspace is the small keyspace every sequence starts from: a key of
// every data type, numbers as strings, and two keys that do not exist.
// Members are few and short, so that every server keeps the small
// encodings (listpack, intset), whose order is insertion order.
var keyspace = []Key{
	{"str", "string", []string{"SET", "", "hello"}},
	{"int", "string", []string{"SET", "", "42"}},
	{"float", "string", []string{"SET", "", "3.5"}},
	{"bits", "string", []string{"SET", "", "\xff\x0f"}},
	{"list", "list", []string{"RPUSH", "", "a", "b", "c", "1", "2"}},
	{"set", "set", []string{"SADD", "", "a", "b", "c"}},
	{"intset", "set", []string{"SADD", "", "1", "2", "3"}},
	{"zset", "zset", []string{"ZADD", "", "1", "a", "2", "b", "2.5", "c"}},
	{"hash", "hash", []string{"HSET", "", "f1", "v1", "f2", "2", "f3", "3.5"}},
	{"stream", "stream", []string{"XADD", "", "1-1", "f", "v"}},
	{"hll", "string", []string{"PFADD", "", "a", "b", "c"}},
	{"geo", "zset", []string{"GEOADD", "", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}},
	{"none", "none", nil},
	{"new", "none", nil},
}

// groupKeys are the keys a command of a group reads most of the time.
var groupKeys = map[string][]string{
	"string": {"str", "int", "float"}, "bitmap": {"bits", "str"}, "list": {"list"},
	"set": {"set", "intset"}, "sorted-set": {"zset"}, "hash": {"hash"},
	"hyperloglog": {"hll"}, "geo": {"geo"}, "stream": {"stream"},
}

// Edge values by argument type: the boundaries where servers' parsers and
// range checks differ.
var (
	edgeStrings  = []string{"", "a", "b", "v", "1", "0", "-1", "3.5", "f1", "Palermo", "abc\xff\xfe", "a b", "\r\n", strings.Repeat("x", 300)}
	edgeIntegers = []string{"0", "1", "-1", "2", "3", "10", "-100", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "9007199254740993", "01", "+1", "1.0"}
	edgeDoubles  = []string{"0", "1.5", "-1", "2.5", "inf", "-inf", "+inf", "nan", "1e308", "1e309", "-0", "0x10", "1e", ".5"}
	edgePatterns = []string{"*", "a*", "f?", "[ab]*", "\\", "[", "*a*"}
	edgeTimes    = []string{"4102444800", "1", "0", "-1", "4102444800000"}
	// edgeDurations are the values of a relative time (EXPIRE's seconds,
	// SET's PX milliseconds): none short enough to end between two
	// targets' runs of a sequence (a 2 ms expiry made every later
	// command's reply depend on the timing, and learned as noise).
	edgeDurations = []string{"0", "-1", "100000", "9223372036854775807", "-9223372036854775808", "1.5", "abc"}
	members       = map[string][]string{
		"list": {"a", "b", "1", "x"}, "set": {"a", "b", "1", "x"}, "sorted-set": {"a", "b", "c", "x"},
		"hash": {"f1", "f2", "f3", "x"}, "geo": {"Palermo", "Catania", "x"}, "stream": {"1-1", "0-0", "$", "+", "-", "*"},
	}
)

// durationArgs are the names COMMAND DOCS gives relative times.
var durationArgs = map[string]bool{"seconds": true, "milliseconds": true, "timeout": true, "ttl": true, "min-idle-time": true}

// Generator draws commands from a grammar, reproducibly from its seed.
type Generator struct {
	rng *rand.Rand
	// busyRng draws busy blocks (Busy): a stream of its own, so that a
	// seed draws the same sequences with busy blocks on or off.
	busyRng *rand.Rand
	groups  []string
	// dataGroups are groups but the session group.
	dataGroups []string
	by         map[string][]Command
	// Forbidden is the share (0 to 1) of commands changed on purpose into
	// an argument combination their grammar does not allow (an argument
	// dropped, one added, one of the wrong type), so that error paths are
	// compared too. NewGenerator sets 0.1.
	Forbidden float64
	// Scripted is the share (0 to 1) of commands run inside a Lua script
	// (EVAL or EVAL_RO, see scriptVariants). NewGenerator sets 0.1.
	Scripted float64
	// scripts are the usable scriptVariants (dropScripts).
	scripts []int
	// Busy is the share (0 to 1) of sequences that hold a busy block
	// (busyBlock) at a random place; 0 unless Options.Busy.
	Busy float64
	// functions says the grammar has FCALL: busy blocks may run a
	// function.
	functions bool
}

// NewGenerator returns a generator over cmds seeded with seed. Commands
// are drawn group first, each group as likely as the others, so that no
// group starves (generic has 30 commands, hyperloglog 3).
func NewGenerator(cmds []Command, seed uint64) *Generator {
	g := &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), busyRng: rand.New(rand.NewPCG(seed^0xb5b5b5b5, seed)),
		by: map[string][]Command{}, Forbidden: 0.1, Scripted: 0.1}
	for i := range scriptVariants {
		g.scripts = append(g.scripts, i)
	}
	for _, c := range cmds {
		if g.by[c.Group] == nil {
			g.groups = append(g.groups, c.Group)
		}
		g.by[c.Group] = append(g.by[c.Group], c)
		g.functions = g.functions || c.Name == "FCALL"
	}
	sort.Strings(g.groups)
	g.setDataGroups()
	return g
}

// setDataGroups sets dataGroups from groups.
func (g *Generator) setDataGroups() {
	g.dataGroups = slices.DeleteFunc(slices.Clone(g.groups), func(s string) bool { return s == sessionGroup })
}

// Drop stops drawing the command name (a command that crashed a target:
// its reproducer is found, and every later draw would cost a restart).
func (g *Generator) Drop(name string) {
	for grp, cs := range g.by {
		var kept []Command
		for _, c := range cs {
			if c.Name != name {
				kept = append(kept, c)
			}
		}
		g.by[grp] = kept
		if len(kept) == 0 {
			g.groups = slices.DeleteFunc(g.groups, func(s string) bool { return s == grp })
		}
	}
	g.setDataGroups()
}

// Sequence returns n draws, each a command's words as sent; a drawn
// MULTI is its whole block (multiBlock), and a share (Busy) of sequences
// hold a busy block (busyBlock) before one of their draws, so a sequence
// may hold more than n commands.
func (g *Generator) Sequence(n int) [][]string {
	out := make([][]string, 0, n)
	busyAt := -1
	if g.Busy > 0 && g.busyRng.Float64() < g.Busy {
		busyAt = g.busyRng.IntN(n)
	}
	for i := range n {
		if i == busyAt {
			out = append(out, g.busyBlock()...)
		}
		c, args := g.draw()
		if c.Group == sessionGroup && c.Name == "MULTI" {
			out = append(out, g.multiBlock()...)
			continue
		}
		out = append(out, args)
	}
	return out
}

// Command draws one command (a MULTI alone: see Sequence).
func (g *Generator) Command() []string {
	_, args := g.draw()
	return args
}

// draw draws one command of any group; drawData one of a data group.
func (g *Generator) draw() (Command, []string)     { return g.drawFrom(g.groups) }
func (g *Generator) drawData() (Command, []string) { return g.drawFrom(g.dataGroups) }

// drawFrom draws one command of one of groups: its grammar entry and the
// words sent, a safe command (Command.Safe) in every case: a draw or a
// mutation that is not is drawn again. A share of the data groups'
// commands (Scripted) is sent inside EVAL.
func (g *Generator) drawFrom(groups []string) (Command, []string) {
	for {
		grp := groups[g.rng.IntN(len(groups))]
		cs := g.by[grp]
		c := cs[g.rng.IntN(len(cs))]
		args := append(c.Words(), g.args(c.Args, grp)...)
		if g.rng.Float64() < g.Forbidden {
			args = g.mutate(args, len(c.Words()))
		}
		if !c.Safe(args) {
			continue
		}
		if grp != sessionGroup && len(g.scripts) > 0 && g.rng.Float64() < g.Scripted {
			args = wrapEval(args, g.scripts[g.rng.IntN(len(g.scripts))])
		}
		return c, args
	}
}

// dropScripts stops running commands inside the script commands named
// (a target lacks them).
func (g *Generator) dropScripts(names []string) {
	g.scripts = slices.DeleteFunc(g.scripts, func(i int) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, scriptVariants[i].cmd) })
	})
}

// Empty says every command was dropped.
func (g *Generator) Empty() bool { return len(g.groups) == 0 }

// args generates a list of sibling arguments.
func (g *Generator) args(as []arg, grp string) []string {
	var out []string
	for i := 0; i < len(as); i++ {
		a := as[i]
		if a.Optional && g.rng.IntN(10) < 4 {
			continue
		}
		// numkeys, numfields, numitems...: the count of the multiple
		// argument that follows, most of the time.
		if a.Type == "integer" && strings.HasPrefix(a.Name, "num") && i+1 < len(as) && as[i+1].Multiple && g.rng.IntN(10) < 9 {
			next := as[i+1]
			n := 1 + g.rng.IntN(3)
			out = append(out, tokenOf(a)...)
			out = append(out, strconv.Itoa(n))
			out = append(out, g.repeat(next, n, grp)...)
			i++
			continue
		}
		n := 1
		if a.Multiple {
			n = 1 + g.rng.IntN(3)
		}
		out = append(out, g.repeat(a, n, grp)...)
	}
	return out
}

// repeat generates argument a n times (its token once, or before each
// value when the token repeats).
func (g *Generator) repeat(a arg, n int, grp string) []string {
	var out []string
	for k := range n {
		if a.Type != "pure-token" && a.Token != "" && (k == 0 || a.MultipleToken) {
			out = append(out, a.Token)
		}
		out = append(out, g.value(a, grp)...)
	}
	return out
}

func tokenOf(a arg) []string {
	if a.Token != "" && a.Type != "pure-token" {
		return []string{a.Token}
	}
	return nil
}

// value generates one occurrence of a's value.
func (g *Generator) value(a arg, grp string) []string {
	switch a.Type {
	case "pure-token":
		return []string{a.Token}
	case "oneof":
		if len(a.Args) == 0 {
			return nil
		}
		c := a.Args[g.rng.IntN(len(a.Args))]
		c.Optional = false
		return g.args([]arg{c}, grp)
	case "block":
		return g.args(a.Args, grp)
	case "key":
		return []string{KeyPrefix + g.key(grp)}
	}
	if len(a.Values) > 0 {
		return []string{g.pick(a.Values)}
	}
	switch a.Type {
	case "integer":
		if durationArgs[a.Name] {
			return []string{g.pick(edgeDurations)}
		}
		return []string{g.pick(edgeIntegers)}
	case "double":
		return []string{g.pick(edgeDoubles)}
	case "pattern":
		return []string{g.pick(edgePatterns)}
	case "unix-time":
		return []string{g.pick(edgeTimes)}
	}
	if ms := members[grp]; ms != nil && g.rng.IntN(2) == 0 {
		return []string{g.pick(ms)}
	}
	return []string{g.pick(edgeStrings)}
}

// key picks a key for a command of group grp: one of the group's own
// types most of the time, else any key (a wrong type, or none).
func (g *Generator) key(grp string) string {
	if ks := groupKeys[grp]; ks != nil && g.rng.IntN(10) < 7 {
		return g.pick(ks)
	}
	return keyspace[g.rng.IntN(len(keyspace))].Name
}

// mutate changes args (whose first words words are the command's name)
// into a form the grammar does not allow: its last argument dropped, an
// argument that is not a key replaced, or a key of the keyspace added
// (a key, so that a variadic DEL or EXISTS stays in the keyspace).
func (g *Generator) mutate(args []string, words int) []string {
	switch g.rng.IntN(3) {
	case 0:
		if len(args) > words {
			return args[:len(args)-1]
		}
	case 1:
		var at []int
		for i := words; i < len(args); i++ {
			if !strings.HasPrefix(args[i], KeyPrefix) {
				at = append(at, i)
			}
		}
		if len(at) > 0 {
			out := append([]string(nil), args...)
			out[at[g.rng.IntN(len(at))]] = g.pick([]string{"notanumber", "-1", "", "NX", "LIMIT"})
			return out
		}
	}
	return append(append([]string(nil), args...), KeyPrefix+g.pick([]string{"new", "none", "str"}))
}

func (g *Generator) pick(s []string) string { return s[g.rng.IntN(len(s))] }
