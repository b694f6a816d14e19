package explore

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// arg is one node of a command's argument tree, as COMMAND DOCS gives it
// (Redis 7.0+, Valkey 7.2+: the "arguments" of each command's reply map,
// the same tree as the command JSON files' "arguments").
type arg struct {
	// Name is the argument's name ("key", "numkeys", "condition").
	Name string
	// Type is one of key, string, integer, double, pattern, unix-time,
	// pure-token, oneof, block.
	Type string
	// Token is the literal word sent before the value (LIMIT), or the
	// value of a pure-token ("NX"); "" for none.
	Token string
	// Optional, Multiple and MultipleToken are the argument's flags:
	// it may be left out, repeated, and repeated with its token each
	// time.
	Optional, Multiple, MultipleToken bool
	// Args are the children of a oneof (one is sent) or a block (all are
	// sent, in order).
	Args []arg
	// Values, when set, are the values the generator sends for the
	// argument instead of its type's edge values (the session commands'
	// hand-made trees, see sessionCommands).
	Values []string
}

// Command is one command (or container subcommand) of the grammar.
type Command struct {
	// Name is the command as sent: one word ("SINTERCARD") or a container
	// and its subcommand ("OBJECT ENCODING").
	Name string
	// Group is COMMAND DOCS' group ("string", "list", "generic").
	Group string
	// Args is the argument tree after the name.
	Args []arg
	// Flags are COMMAND INFO's flags of the command (lower case:
	// "write", "blocking", "admin").
	Flags map[string]bool
	// Tips are COMMAND INFO's tips ("nondeterministic_output",
	// "nondeterministic_output_order").
	Tips map[string]bool
	// Info is COMMAND's entry: arity, legacy key positions, movable keys.
	Info target.CommandInfo
	// Unknown marks a name no server has (the unknown-command error path,
	// see sessionCommands): Missing does not ask about it.
	Unknown bool
}

// Words returns the command's name as the words sent.
func (c Command) Words() []string { return strings.Fields(c.Name) }

// dataGroups are the COMMAND DOCS groups whose commands read or write the
// prepared keyspace; the others (server, connection, cluster, scripting,
// pubsub, transactions, sentinel) change or describe the server or the
// connection, and differ between servers by design.
var dataGroups = map[string]bool{
	"string": true, "list": true, "set": true, "sorted-set": true, "hash": true,
	"bitmap": true, "hyperloglog": true, "geo": true, "stream": true, "generic": true,
}

// skipFlags are COMMAND INFO flags of commands the explorer never sends:
// they block, administer the server, or subscribe.
var skipFlags = []string{"blocking", "admin", "pubsub", "no_multi", "noscript"}

// outside are data-group commands that describe the server rather than
// the data (a DUMP payload carries the RDB version, OBJECT FREQ needs an
// LFU policy, OBJECT IDLETIME and REFCOUNT change with time and sharing)
// or that reach beyond the prepared keyspace (MOVE, SWAPDB, MIGRATE,
// WAIT, KEYS, SCAN). OBJECT ENCODING is sent: which encoding a value
// gets is the server's (its thresholds), and the same on two servers of
// one build (tipIgnored). SORT and SORT_RO are sent without their patterns, XREAD
// and XREADGROUP without BLOCK (leftOut).
var outside = map[string]bool{
	"DUMP": true, "RESTORE": true, "RESTORE-ASKING": true, "MIGRATE": true, "MOVE": true,
	"OBJECT FREQ": true, "OBJECT HELP": true, "WAIT": true, "WAITAOF": true, "SWAPDB": true,
	"KEYS": true, "RANDOMKEY": true, "SCAN": true, "COPY": true, "DBSIZE": true,
	"FLUSHALL": true, "FLUSHDB": true, "SELECT": true, "TOUCH": true, "PFDEBUG": true,
	"PFSELFTEST": true, "XINFO HELP": true, "XGROUP HELP": true,
	"OBJECT IDLETIME": true, "OBJECT REFCOUNT": true,
}

// tipIgnored are commands whose nondeterministic_output tip the explorer
// does not take for noise: OBJECT ENCODING has it (Redis 8.6.3, Valkey
// 9.1.2: COMMAND INFO object|encoding), yet two servers of one build give
// a value the same encoding after the same commands; where they do not,
// A2 teaches it as noise as for any command.
var tipIgnored = map[string]bool{"OBJECT ENCODING": true}

// leftOut are arguments the explorer never sends, by command, and why:
// SORT's and SORT_RO's BY and GET patterns read keys outside the
// prepared keyspace, and BY nosuchkey leaves the elements in the
// container's own order, which a set's hash table does not keep (Redis
// 8.6.3 answered SORT k BY nosuchkey ALPHA LIMIT 0 2 with Catania,
// Palermo one run and Palermo, Catania the next; sorted by value, ALPHA
// or not, the order is the values': the keyspace's members are
// distinct). XREAD's and XREADGROUP's BLOCK is what makes them block:
// without it they answer at once (their "blocking" flag is for BLOCK),
// so they are sent.
var leftOut = map[string]map[string]bool{
	"SORT": {"BY": true, "GET": true}, "SORT_RO": {"BY": true, "GET": true},
	"XREAD": {"BLOCK": true}, "XREADGROUP": {"BLOCK": true},
}

// withoutLeftOut returns c's arguments without those leftOut names for
// it.
func withoutLeftOut(c Command) []arg {
	drop := leftOut[c.Name]
	if drop == nil {
		return c.Args
	}
	var out []arg
	for _, a := range c.Args {
		if !drop[strings.ToUpper(a.Token)] {
			out = append(out, a)
		}
	}
	return out
}

// LoadGrammar reads the command grammar from cn: COMMAND DOCS for the
// argument trees and groups, COMMAND for flags and tips, keeping the
// commands of the data groups (dataGroups) that neither block, administer
// nor subscribe, and adding the session commands the server has
// (sessionCommands), sorted by name. A server without COMMAND DOCS (before
// Redis 7.0) is an error naming it.
func LoadGrammar(cn *target.Conn) ([]Command, error) {
	docs, err := cn.Do("COMMAND", "DOCS")
	if err != nil {
		return nil, fmt.Errorf("COMMAND DOCS: %w", err)
	}
	if target.IsError(docs) {
		return nil, fmt.Errorf("COMMAND DOCS: server replied %s (the explorer needs Redis 7.0+ or Valkey 7.2+)", resp.Escape(docs.Raw))
	}
	var cmds []Command
	for name, doc := range pairs(docs) {
		cmds = appendDocs(cmds, strings.ToUpper(name), doc)
	}
	info, err := cn.Do("COMMAND")
	if err != nil {
		return nil, fmt.Errorf("COMMAND: %w", err)
	}
	flags := map[string]Command{}
	for _, e := range info.Elems {
		readInfo(flags, e)
	}
	var out []Command
	for _, c := range cmds {
		fi := flags[c.Name]
		c.Flags, c.Tips, c.Info = fi.Flags, fi.Tips, fi.Info
		c.Args = withoutLeftOut(c)
		if keep(c) {
			out = append(out, c)
		}
	}
	out = withSession(out, flags)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, errors.New("COMMAND DOCS gave no command of the data types with its arguments (miniredis answers it with the COMMAND table): use a Redis 7.0+ or Valkey 7.2+ server as A")
	}
	return out, nil
}

// keep says whether the explorer sends c.
func keep(c Command) bool {
	if !dataGroups[c.Group] || outside[c.Name] || strings.HasSuffix(c.Name, " HELP") {
		return false
	}
	for _, f := range skipFlags {
		// A command that blocks only with an argument the explorer
		// leaves out (XREAD BLOCK) does not block.
		if c.Flags[f] && !(f == "blocking" && leftOut[c.Name]["BLOCK"]) {
			return false
		}
	}
	return true
}

// appendDocs adds the command name documented by doc (a COMMAND DOCS
// entry) and its subcommands.
func appendDocs(cmds []Command, name string, doc resp.Value) []Command {
	c := Command{Name: name}
	var subs resp.Value
	for k, v := range pairs(doc) {
		switch k {
		case "group":
			c.Group = string(v.Str)
		case "arguments":
			c.Args = readArgs(v)
		case "subcommands":
			subs = v
		}
	}
	if subs.Kind == resp.Invalid {
		return append(cmds, c)
	}
	for sub, d := range pairs(subs) {
		_, word, _ := strings.Cut(sub, "|")
		cmds = appendDocs(cmds, name+" "+strings.ToUpper(word), d)
	}
	return cmds
}

// readArgs reads an "arguments" array.
func readArgs(v resp.Value) []arg {
	var out []arg
	for _, e := range v.Elems {
		var a arg
		for k, f := range pairs(e) {
			switch k {
			case "name":
				a.Name = string(f.Str)
			case "type":
				a.Type = string(f.Str)
			case "token":
				a.Token = string(f.Str)
			case "flags":
				for _, fl := range f.Elems {
					switch string(fl.Str) {
					case "optional":
						a.Optional = true
					case "multiple":
						a.Multiple = true
					case "multiple_token":
						a.MultipleToken = true
					}
				}
			case "arguments":
				a.Args = readArgs(f)
			}
		}
		out = append(out, a)
	}
	return out
}

// readInfo records the flags and tips of a COMMAND entry (name, arity,
// flags, first key, last key, step, ACL categories, tips, key specs,
// subcommands) under its name, "CONTAINER SUB" for a subcommand.
func readInfo(into map[string]Command, e resp.Value) {
	if len(e.Elems) < 8 {
		return
	}
	name := strings.ToUpper(strings.ReplaceAll(string(e.Elems[0].Str), "|", " "))
	c := Command{Name: name, Flags: map[string]bool{}, Tips: map[string]bool{}, Info: target.ParseCommandInfo(e.Elems)}
	for _, f := range e.Elems[2].Elems {
		c.Flags[strings.ToLower(string(f.Str))] = true
	}
	for _, t := range e.Elems[7].Elems {
		tip, _, _ := strings.Cut(string(t.Str), ":")
		c.Tips[tip] = true
	}
	into[name] = c
	if len(e.Elems) > 9 {
		for _, s := range e.Elems[9].Elems {
			readInfo(into, s)
		}
	}
}

// pairs iterates over the key/value pairs of a RESP3 map or of RESP2's
// flat array of alternating keys and values.
func pairs(v resp.Value) func(func(string, resp.Value) bool) {
	return func(yield func(string, resp.Value) bool) {
		for i := 0; i+1 < len(v.Elems); i += 2 {
			if !yield(string(v.Elems[i].Str), v.Elems[i+1]) {
				return
			}
		}
	}
}

// Missing returns the names of cmds that the server on cn does not have:
// COMMAND INFO answers nil for them (a container's subcommand asked as
// "CONTAINER|SUB"). A server that refuses COMMAND INFO (miniredis) has
// nothing missing that it can tell: nil, with the error reply as error.
func Missing(cn *target.Conn, cmds []Command) ([]string, error) {
	args := []string{"COMMAND", "INFO"}
	var asked []Command
	for _, c := range cmds {
		if !c.Unknown {
			args = append(args, strings.ReplaceAll(c.Name, " ", "|"))
			asked = append(asked, c)
		}
	}
	v, err := cn.Do(args...)
	if err != nil {
		return nil, err
	}
	if target.IsError(v) || len(v.Elems) != len(asked) {
		return nil, fmt.Errorf("COMMAND INFO: server replied %s", resp.Escape(v.Raw[:min(len(v.Raw), 200)]))
	}
	var out []string
	for i, e := range v.Elems {
		if e.Kind == resp.Null || e.Kind == resp.NilArray || e.Kind == resp.NilBlobString {
			out = append(out, asked[i].Name)
		}
	}
	return out, nil
}

// Allows says whether args (after the command's name) have a shape c's
// argument tree allows: every token where the tree puts one, every
// required argument present, none left over. Values are not checked
// against their types (the generator sends "1.0" for an integer on
// purpose).
func (c Command) Allows(args []string) bool {
	_, ok := c.keyArgs(args)
	return ok
}

// keyArgs returns the indexes in args (after the command's name) of the
// arguments of type key in the first shape of the tree that args match,
// and whether one does.
func (c Command) keyArgs(args []string) (keys []int, ok bool) {
	ok = matchSeq(c.Args, args, nil, func(rest []string, ks []int) bool {
		if len(rest) != 0 {
			return false
		}
		for _, k := range ks {
			keys = append(keys, len(args)-k)
		}
		return true
	})
	return keys, ok
}

// listing are session commands that, without an argument, answer every
// command's entry in hash order, a container's subcommands too (noise in
// every element): Safe refuses them bare.
var listing = map[string]bool{"COMMAND INFO": true, "COMMAND DOCS": true}

// Safe says whether args (the command's words included) name no key
// outside the keyspace: every argument at the command's legacy key
// positions (COMMAND's first key, last key and step) is under KeyPrefix,
// and so is every argument at the positions its key specifications give
// (target.CommandInfo.SpecKeys, where they can tell) and every argument
// of type key where the grammar allows the shape; a shape it does not
// allow of a command with movable keys is not safe (which arguments it
// takes for keys cannot be told). The generator
// and the shrinker send only safe commands: on an existing server nothing
// outside {rx}: is written. A listing command without an argument is not
// safe either (listing).
func (c Command) Safe(args []string) bool {
	if listing[c.Name] && len(args) <= len(c.Words()) {
		return false
	}
	for _, i := range c.Info.KeyRange(len(args)) {
		if i < len(args) && !strings.HasPrefix(args[i], KeyPrefix) {
			return false
		}
	}
	// Where the key specifications tell, the server's own reading: a
	// count that does not match what follows it (MSETEX 3 k v k v PX n)
	// makes a key of a word the grammar matched as a token.
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	if pos, ok := c.Info.SpecKeys(bs); ok {
		for _, i := range pos {
			if i < len(args) && !strings.HasPrefix(args[i], KeyPrefix) {
				return false
			}
		}
	}
	words := len(c.Words())
	if len(args) < words {
		return false
	}
	keys, ok := c.keyArgs(args[words:])
	if !ok {
		return !c.Info.Movable
	}
	for _, i := range keys {
		if !strings.HasPrefix(args[words+i], KeyPrefix) {
			return false
		}
	}
	return true
}

// matchSeq matches the sibling arguments as, in order, at the start of
// in, and calls k with what is left after each way they match and the
// key arguments matched so far (each as the length of the input from it
// on: its index is the input's length minus that).
func matchSeq(as []arg, in []string, keys []int, k func([]string, []int) bool) bool {
	if len(as) == 0 {
		return k(in, keys)
	}
	a, rest := as[0], as[1:]
	next := func(left []string, ks []int) bool { return matchSeq(rest, left, ks, k) }
	if a.Optional && next(in, keys) {
		return true
	}
	return matchRepeat(a, in, keys, true, next)
}

// matchRepeat matches one occurrence of a, then (a multiple argument)
// more.
func matchRepeat(a arg, in []string, keys []int, first bool, k func([]string, []int) bool) bool {
	return matchOne(a, in, keys, first, func(left []string, ks []int) bool {
		return k(left, ks) || a.Multiple && len(left) < len(in) && matchRepeat(a, left, ks, false, k)
	})
}

// matchOne matches one occurrence of a: its token (before the first
// occurrence, or each when it repeats), then its value.
func matchOne(a arg, in []string, keys []int, first bool, k func([]string, []int) bool) bool {
	if a.Type != "pure-token" && a.Token != "" && (first || a.MultipleToken) {
		if len(in) == 0 || !strings.EqualFold(in[0], a.Token) {
			return false
		}
		in = in[1:]
	}
	switch a.Type {
	case "pure-token":
		return len(in) > 0 && strings.EqualFold(in[0], a.Token) && k(in[1:], keys)
	case "oneof":
		for _, c := range a.Args {
			c.Optional = false
			if matchSeq([]arg{c}, in, keys, k) {
				return true
			}
		}
		return false
	case "block":
		return matchSeq(a.Args, in, keys, k)
	case "key":
		return len(in) > 0 && k(in[1:], append(slices.Clone(keys), len(in)))
	}
	return len(in) > 0 && k(in[1:], keys)
}
