package runner

import (
	"slices"
	"strings"

	"github.com/respcheck/respcheck/cases"
)

// destructive lists commands that reach beyond the run's own keys: they
// flush, move or rewrite data the run did not create, change the server's
// configuration, stall or stop it, or act on other clients. Against a shared
// server (Options.Shared) a case that sends one is skipped unless
// Options.AllowDestructive is set. A value of nil refuses the command
// whatever its subcommand; otherwise only the listed subcommands are refused.
var destructive = map[string][]string{
	"FLUSHALL": nil, "FLUSHDB": nil, "SWAPDB": nil, "MOVE": nil, "SHUTDOWN": nil,
	"REPLICAOF": nil, "SLAVEOF": nil, "FAILOVER": nil, "SAVE": nil, "BGSAVE": nil,
	"BGREWRITEAOF": nil, "MIGRATE": nil, "MONITOR": nil, "SYNC": nil, "PSYNC": nil,
	"KEYS":     nil, // with a literal pattern in a literal_keys case: reads keys that are not the run's
	"CONFIG":   {"SET", "RESETSTAT", "REWRITE"},
	"SCRIPT":   {"FLUSH", "KILL"},
	"FUNCTION": {"FLUSH", "DELETE", "RESTORE", "LOAD", "KILL"},
	"CLIENT":   {"KILL", "PAUSE", "UNPAUSE", "NO-EVICT", "NO-TOUCH"},
	"ACL":      {"SETUSER", "DELUSER", "LOAD", "SAVE", "LOG"},
	"MODULE":   {"LOAD", "LOADEX", "UNLOAD"},
	"CLUSTER":  {"ADDSLOTS", "ADDSLOTSRANGE", "DELSLOTS", "DELSLOTSRANGE", "FAILOVER", "FORGET", "MEET", "RESET", "SETSLOT", "FLUSHSLOTS", "REPLICATE", "SAVECONFIG", "SET-CONFIG-EPOCH", "BUMPEPOCH"},
	"LATENCY":  {"RESET"},
	"SLOWLOG":  {"RESET"},
	"MEMORY":   {"PURGE"},
	// HOTKEYS (Redis 8.6): one tracking session server-wide, which
	// START takes and STOP and RESET end for whoever started it.
	"HOTKEYS": {"START", "STOP", "RESET"},
	// DEBUG: every subcommand but these read-only ones.
	"DEBUG": nil,
}

// debugReadOnly are DEBUG subcommands that neither change data nor stall
// the server.
var debugReadOnly = map[string]bool{"PROTOCOL": true, "OBJECT": true, "DIGEST-VALUE": true,
	"HELP": true, "STRINGMATCH-LEN": true, "LISTPACK": true}

// destructiveUse returns the first command of the case (or of its gates'
// probes) that is destructive, as "FLUSHALL" or "CONFIG SET", and where it
// is; ok is false when the case stays within its own keys. Literal command
// names in send steps, inline raw steps and in Lua script bodies sent with
// EVAL/EVAL_RO/SCRIPT LOAD/FUNCTION LOAD are checked.
func destructiveUse(c *cases.Case) (cmd string, pos cases.Pos, ok bool) {
	check := func(p cases.Pos, words []string) bool {
		if name, bad := isDestructive(words); bad {
			cmd, pos, ok = name, p, true
		}
		return ok
	}
	// A step's literal KEYS pattern is moved into the namespace unless the
	// case says literal_keys: true (not a probe's, nor a script's).
	checkStep := func(p cases.Pos, words []string) bool {
		if len(words) > 0 && strings.EqualFold(words[0], "KEYS") && !c.LiteralKeys {
			return false
		}
		return check(p, words)
	}
	for _, g := range c.Gates() {
		for _, p := range g.Probes {
			if check(p.Pos, literalWords(p.Send)) {
				return
			}
		}
	}
	for _, st := range slices.Concat(c.Steps, c.Cleanup) {
		switch st.Action {
		case cases.ActSend:
			words := literalWords(st.Send)
			if checkStep(st.Pos, words) {
				return
			}
			for _, w := range words {
				for _, parts := range luaCallSites(w) {
					if check(st.Pos, literalCall(parts)) {
						return
					}
				}
			}
		case cases.ActRaw:
			if src, lit := st.Raw.Literal(); lit && !strings.HasPrefix(src, "*") {
				if checkStep(st.Pos, strings.Fields(src)) {
					return
				}
			}
		}
	}
	return "", cases.Pos{}, false
}

// literalCall is a script call's command and first argument where they
// are string literals ("" where not), as isDestructive reads them.
func literalCall(parts []string) []string {
	words := make([]string, 2)
	for i := range min(len(parts), 2) {
		words[i], _ = luaLiteral(parts[i])
	}
	return words
}

func literalWords(args []cases.Template) []string {
	words := make([]string, len(args))
	for i := range args {
		words[i], _ = args[i].Literal()
	}
	return words
}

// isDestructive reports whether a command (name and arguments) is on the
// destructive list, and returns its display name.
func isDestructive(words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	name := strings.ToUpper(words[0])
	subs, listed := destructive[name]
	if !listed {
		return "", false
	}
	sub := ""
	if len(words) > 1 {
		sub = strings.ToUpper(words[1])
	}
	switch {
	case name == "KEYS" && len(words) > 1 && words[1] == "":
		return "", false // a templated pattern: {key}*, the run's own keys
	case name == "DEBUG":
		if debugReadOnly[sub] {
			return "", false
		}
		return strings.TrimSpace(name + " " + sub), true
	case subs == nil:
		return name, true
	}
	for _, s := range subs {
		if s == sub {
			return name + " " + sub, true
		}
	}
	return "", false
}

// SecretArgs returns the indexes of the arguments of a command that are
// secrets: the password of AUTH and of HELLO ... AUTH user pass, MIGRATE's
// AUTH/AUTH2 password, CONFIG SET requirepass/masterauth values, and ACL
// SETUSER's >password and #hash rules.
func SecretArgs(args [][]byte) []int {
	if len(args) == 0 {
		return nil
	}
	name := strings.ToUpper(string(args[0]))
	var idx []int
	switch name {
	case "AUTH":
		if len(args) > 1 {
			idx = append(idx, len(args)-1)
		}
	case "HELLO", "MIGRATE":
		if name == "HELLO" {
			// As the server reads it (a SETNAME's name may be "AUTH"),
			// and every word after an AUTH below too.
			for _, a := range helloAuths(args) {
				idx = append(idx, a[1])
			}
		}
		for i := 1; i < len(args); i++ {
			switch strings.ToUpper(string(args[i])) {
			case "AUTH":
				if name == "HELLO" && i+2 < len(args) {
					idx = append(idx, i+2)
					i += 2
				} else if name == "MIGRATE" && i+1 < len(args) {
					idx = append(idx, i+1)
					i++
				}
			case "AUTH2":
				if i+2 < len(args) {
					idx = append(idx, i+2)
					i += 2
				}
			}
		}
	case "CONFIG":
		for i := 2; i+1 < len(args); i += 2 {
			switch strings.ToLower(string(args[i])) {
			case "requirepass", "masterauth", "masteruser":
				idx = append(idx, i+1)
			}
		}
	case "ACL":
		for i := 3; i < len(args); i++ {
			if len(args[i]) > 0 && (args[i][0] == '>' || args[i][0] == '#' || args[i][0] == '<' || args[i][0] == '!') {
				idx = append(idx, i)
			}
		}
	}
	return idx
}

// helloAuths returns, for HELLO protover [AUTH user pass] [SETNAME name]
// ... read as the server reads it (each option in turn, from the third
// word: AUTH takes two, SETNAME one; the last AUTH counts), the
// positions of each AUTH's user and password; it stops at a word that is
// neither (the server refuses the command then, and applies none).
func helloAuths(args [][]byte) [][2]int {
	var out [][2]int
	for i := 2; i < len(args); {
		switch opt := strings.ToUpper(string(args[i])); {
		case opt == "AUTH" && i+2 < len(args):
			out = append(out, [2]int{i + 1, i + 2})
			i += 3
		case opt == "SETNAME" && i+1 < len(args):
			i += 2
		default:
			return out
		}
	}
	return out
}

// redacted returns args with every secret replaced by as many '*' as it
// has bytes (so the framing of recorded bytes stays valid), or args itself
// when there is no secret.
func redacted(args [][]byte) ([][]byte, bool) {
	idx := SecretArgs(args)
	if len(idx) == 0 {
		return args, false
	}
	out := append([][]byte(nil), args...)
	for _, i := range idx {
		out[i] = []byte(strings.Repeat("*", len(args[i])))
	}
	return out, true
}

// redactRaw hides secrets in raw bytes that hold commands, RESP arrays of
// blob strings or inline lines, one or several (rewriteRaw writes the
// commands holding one again); bytes that are not a sequence of commands
// are returned as they are.
func redactRaw(b []byte) []byte {
	cmds, spans, ok := rawSpans(b)
	if !ok {
		return b
	}
	return rewriteRaw(b, spans, func(i int) [][]byte {
		if shown, secret := redacted(cmds[i]); secret {
			return shown
		}
		return nil
	})
}

// DestructiveUse is a command of a case that reaches beyond the case's
// own keys (FLUSHALL, CONFIG SET, ...), and where the case file sends it.
type DestructiveUse struct {
	Case *cases.Case
	Cmd  string
	Pos  cases.Pos
}

// DestructiveUses returns the first destructive command of each of cs
// that has one (in their order): what --allow-destructive lets through
// on an existing server.
func DestructiveUses(cs []*cases.Case) []DestructiveUse {
	var out []DestructiveUse
	for _, c := range cs {
		if cmd, pos, ok := destructiveUse(c); ok {
			out = append(out, DestructiveUse{Case: c, Cmd: cmd, Pos: pos})
		}
	}
	return out
}
