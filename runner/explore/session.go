package explore

import "strings"

// sessionGroup is the group of the session commands: connection, server,
// scripting and transaction commands, and unknown ones, drawn as often as
// one data group.
const sessionGroup = "session"

// The session commands' values: where servers' error paths and
// descriptions differ (the bundled suite's per-server expectations for
// Redis 8.6.3 and Valkey 9.1.2 are mostly here: NOSCRIPT texts, script
// error shapes, HELLO's map, unknown-command texts, COMMAND INFO's sets).
var (
	// badProtovers are HELLO versions no server speaks: a valid one
	// would switch the connection's protocol for the rest of the run.
	badProtovers = []string{"0", "1", "4", "-1", "notanumber", "9223372036854775808", ""}
	// clientNames are names CLIENT SETNAME refuses (a mutation may send a
	// valid one: exec's closers remove it after the sequence).
	clientNames = []string{"with space", "new\nline", "two words here"}
	// onOff leaves out ON: CLIENT NO-EVICT and NO-TOUCH would stay on
	// for the connection.
	onOff = []string{"OFF", "off", "maybe", ""}
	// commandNames are names COMMAND INFO and DOCS are asked about: a
	// command, a subcommand, one no server has.
	commandNames = []string{"GET", "SET", "HSETEX", "EVAL", "CLIENT|LIST", "XREAD", "NOSUCH", ""}
	// shas are script digests no server has loaded (and a malformed one).
	shas = []string{"0000000000000000000000000000000000000000", "ffffffffffffffffffffffffffffffffffffffff", "short", ""}
	// scripts are Lua scripts of one key (KEYS[1]) whose errors servers
	// word differently: a failing command, an unknown one, a wrong
	// argument count, error() with a string and a table, a protocol
	// redis.setresp does not take.
	scripts = []string{
		"return redis.call('LPUSH', KEYS[1], 'x')",
		"return redis.call('NOSUCH')",
		"return redis.call('GET')",
		"error('boom')",
		"error({err='MYCODE boom'})",
		"redis.setresp(4)",
		"return redis.call('GET', KEYS[1])",
	}
	// roScripts are EVAL_RO's: a write is refused.
	roScripts = []string{"return redis.call('SET', KEYS[1], 'v')", "return redis.call('DEL', KEYS[1])", "return redis.call('GET', KEYS[1])"}
	// unknownNames are command names no server has: a short one, a long
	// one (servers cut it in their error), one with CR LF in it.
	unknownNames = []string{"NOSUCHCOMMAND", "FOO", strings.Repeat("F", 200), "NO\r\nSUCH"}
)

// sessionCommands are the session group's commands, each with a hand-made
// argument tree (arg.Values where COMMAND DOCS' types would draw values
// that change the connection or the server for the rest of a run: a valid
// HELLO version, a SELECT of another database, CLIENT NO-EVICT ON). Only
// commands that touch nothing outside the connection and the {rx}:
// keyspace are here: no CLIENT KILL, PAUSE, REPLY, TRACKING or SETINFO, no
// SCRIPT or FUNCTION FLUSH, LOAD or KILL, no CONFIG; and none that
// describes what the server holds rather than its build (COMMAND COUNT
// and FUNCTION LIST differ with the modules and libraries loaded). EXEC,
// DISCARD and UNWATCH are sent alone (EXEC without MULTI); WATCH only
// inside a MULTI block (multiBlock). What a mutation or the shrinker may
// still leave on a connection (a name, a WATCH, an open MULTI) exec's
// closers remove after each sequence.
func sessionCommands() []Command {
	str := func(name string, values []string) arg { return arg{Name: name, Type: "string", Values: values} }
	opt := func(a arg) arg { a.Optional = true; return a }
	many := func(a arg) arg { a.Multiple = true; return a }
	key := arg{Name: "key", Type: "key"}
	zero := str("numkeys", []string{"0"})
	one := str("numkeys", []string{"1"})
	cmds := []Command{
		{Name: "PING", Args: []arg{opt(arg{Name: "message", Type: "string"})}},
		{Name: "ECHO", Args: []arg{{Name: "message", Type: "string"}}},
		{Name: "HELLO", Args: []arg{opt(str("protover", badProtovers))}},
		// No index a server takes (a SELECT would move the connection off
		// the keyspace's database).
		{Name: "SELECT", Args: []arg{str("index", []string{"-1", "100000", "notanumber", "9223372036854775808", ""})}},
		{Name: "CLIENT LIST", Args: []arg{opt(arg{Name: "client-id", Type: "integer", Token: "ID", Multiple: true, Values: []string{"abc", "0", "-1", "1", "9223372036854775808"}})}},
		{Name: "CLIENT GETNAME"},
		{Name: "CLIENT SETNAME", Args: []arg{str("connection-name", clientNames)}},
		{Name: "CLIENT INFO"},
		{Name: "CLIENT NO-EVICT", Args: []arg{str("enabled", onOff)}},
		{Name: "CLIENT NO-TOUCH", Args: []arg{str("enabled", onOff)}},
		{Name: "CLIENT GETREDIR"},
		// A name always: without one, every command's entry (hundreds of
		// kilobytes a reply).
		{Name: "COMMAND INFO", Args: []arg{many(str("command-name", commandNames))}},
		{Name: "COMMAND DOCS", Args: []arg{many(str("command-name", commandNames))}},
		{Name: "EVAL", Args: []arg{str("script", scripts), one, key}},
		{Name: "EVAL_RO", Args: []arg{str("script", roScripts), one, key}},
		{Name: "EVALSHA", Args: []arg{str("sha1", shas), zero}},
		{Name: "EVALSHA_RO", Args: []arg{str("sha1", shas), zero}},
		{Name: "SCRIPT EXISTS", Args: []arg{many(str("sha1", shas))}},
		{Name: "FCALL", Args: []arg{str("function", []string{"nosuchfunction", ""}), zero}},
		{Name: "FCALL_RO", Args: []arg{str("function", []string{"nosuchfunction", ""}), zero}},
		{Name: "EXEC"},
		{Name: "DISCARD"},
		{Name: "UNWATCH"},
		{Name: "MULTI"},
	}
	for _, n := range unknownNames {
		cmds = append(cmds, Command{Name: n, Unknown: true, Args: []arg{opt(many(arg{Name: "arg", Type: "string"}))}})
	}
	for i := range cmds {
		cmds[i].Group = sessionGroup
	}
	return cmds
}

// withSession adds the session commands the server has (those whose
// COMMAND entry info holds, and the unknown ones) to cmds, with their
// flags, tips and key positions.
func withSession(cmds []Command, info map[string]Command) []Command {
	for _, c := range sessionCommands() {
		if !c.Unknown {
			fi, ok := info[c.Name]
			if !ok {
				continue
			}
			c.Flags, c.Tips, c.Info = fi.Flags, fi.Tips, fi.Info
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// queued draws a data command for a MULTI block, one whose output is
// not random (its EXEC's reply would be noise) when a few draws find one.
func (g *Generator) queued() []string {
	if len(g.dataGroups) == 0 {
		return []string{"PING"}
	}
	var args []string
	for range 10 {
		var c Command
		if c, args = g.drawData(); !c.Tips["nondeterministic_output"] {
			break
		}
	}
	return args
}

// multiBlock is the sequence a drawn MULTI stands for: MULTI, one to
// three commands queued (drawn from the data groups, or a nested MULTI, a
// WATCH, an unknown command: errors servers treat differently inside a
// transaction), then EXEC or DISCARD, so that no sequence ends inside a
// transaction.
func (g *Generator) multiBlock() [][]string {
	out := [][]string{{"MULTI"}}
	for range 1 + g.rng.IntN(3) {
		switch g.rng.IntN(6) {
		case 0:
			out = append(out, []string{"MULTI"})
		case 1:
			out = append(out, []string{"WATCH", KeyPrefix + g.key("")})
		case 2:
			out = append(out, []string{g.pick(unknownNames[:2])})
		default:
			out = append(out, g.queued())
		}
	}
	return append(out, []string{g.pick([]string{"EXEC", "EXEC", "DISCARD"})})
}
