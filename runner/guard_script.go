package runner

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Scripts on a shared target. A script sent with EVAL or EVAL_RO (or run
// by EVALSHA, when the case sent its body) is read call by call: each
// redis.call/pcall (or server.call/pcall) must name its command by a
// string literal, and each argument is resolved where the guard can read
// it (a string or number literal, KEYS[n], ARGV[n] from the EVAL's own
// arguments); the call is then guarded as a command of its own
// (guardCommand), an argument the guard cannot read at a key position
// refused. A script that could reach the call functions another way
// (redis.call not called directly, _G, loadstring, getfenv, ...) or that
// changes KEYS or ARGV is refused, and so are an EVALSHA of a script the
// case did not send and FCALL (a shared server's functions are not the
// run's: FUNCTION LOAD is refused there).

// scriptUnknown stands for a script argument the guard cannot read.
const scriptUnknown = "\x00unknown"

// scriptForbidden are the Lua names that reach the call functions, or
// compile text, without naming redis.call.
var scriptForbidden = map[string]bool{
	"_G": true, "getfenv": true, "setfenv": true, "loadstring": true, "load": true, "rawget": true,
	"rawset": true, "dofile": true, "loadfile": true, "require": true, "module": true, "package": true,
}

// scriptMembers are the members of the redis (server) table other than
// call and pcall that a script may use: none runs a command.
var scriptMembers = map[string]bool{
	"status_reply": true, "error_reply": true, "sha1hex": true, "log": true, "setresp": true,
	"set_repl": true, "replicate_commands": true, "breakpoint": true, "debug": true,
	"LOG_DEBUG": true, "LOG_VERBOSE": true, "LOG_NOTICE": true, "LOG_WARNING": true,
	"REPL_ALL": true, "REPL_AOF": true, "REPL_REPLICA": true, "REPL_SLAVE": true, "REPL_NONE": true,
	"REDIS_VERSION": true, "REDIS_VERSION_NUM": true, "SERVER_VERSION": true, "SERVER_VERSION_NUM": true,
}

// noteScriptLoad remembers the body of a SCRIPT LOAD for a later EVALSHA.
func (x *caseRun) noteScriptLoad(args [][]byte) {
	if len(args) == 3 && strings.EqualFold(string(args[0]), "SCRIPT") && strings.EqualFold(string(args[1]), "LOAD") {
		x.noteScript(args[2])
	}
}

func (x *caseRun) noteScript(body []byte) {
	if x.scripts == nil {
		x.scripts = map[string][]byte{}
	}
	sum := sha1.Sum(body)
	x.scripts[hex.EncodeToString(sum[:])] = body
}

// guardEval guards EVAL, EVAL_RO, EVALSHA, EVALSHA_RO (args: name,
// script or SHA1, numkeys, keys, arguments) and FCALL, FCALL_RO.
func (x *caseRun) guardEval(ctx context.Context, args [][]byte) error {
	name := strings.ToUpper(string(args[0]))
	if strings.HasPrefix(name, "FCALL") {
		return &refusal{fmt.Sprintf("sends %s, which runs a function the run did not load", name)}
	}
	if len(args) < 3 {
		return nil // an arity error
	}
	body := args[1]
	if strings.HasPrefix(name, "EVALSHA") {
		b, ok := x.scripts[strings.ToLower(string(args[1]))]
		if !ok {
			return &refusal{fmt.Sprintf("sends %s of a script this case did not send, which the guard cannot check", name)}
		}
		body = b
	} else {
		x.noteScript(body)
	}
	n, err := strconv.Atoi(string(args[2]))
	switch {
	case n > len(args)-3:
		return nil // the server refuses the numkeys
	case err != nil || n < 0:
		n = 0 // the server refuses it too, but read the script anyway
	}
	return x.guardScriptCalls(ctx, body, args[3:3+n], args[3+n:])
}

// guardScriptCalls guards each call of a script body run with keys and
// argv (see Scripts on a shared target).
func (x *caseRun) guardScriptCalls(ctx context.Context, body []byte, keys, argv [][]byte) error {
	if err := guardScript(body); err != nil {
		return err
	}
	src := string(body)
	for i := 0; i < len(src); {
		j, ident := luaNext(src, i)
		if ident == "" {
			i = j
			continue
		}
		if err := x.guardIdent(ctx, src, i, j, ident, keys, argv); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// guardIdent checks the identifier src[i:j] of a script.
func (x *caseRun) guardIdent(ctx context.Context, src string, i, j int, ident string, keys, argv [][]byte) error {
	member := i > 0 && (src[i-1] == '.' || src[i-1] == ':')
	rest := strings.TrimLeft(src[j:], luaSpace)
	switch {
	case member:
		return nil
	case scriptForbidden[ident]:
		return &refusal{fmt.Sprintf("sends a script that uses %s, which can run commands the guard cannot check", ident)}
	case ident == "KEYS" || ident == "ARGV":
		if strings.HasSuffix(strings.TrimRight(src[:i], luaSpace), "#") {
			return nil
		}
		end := luaClose(rest, '[', ']')
		if end < 0 {
			return &refusal{fmt.Sprintf("sends a script that uses %s other than by index, which the guard cannot follow", ident)}
		}
		after := strings.TrimLeft(rest[end:], luaSpace)
		if strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") {
			return &refusal{fmt.Sprintf("sends a script that changes %s, which the guard cannot follow", ident)}
		}
	case ident == "redis" || ident == "server":
		m, call, closed := luaCallAfter(rest)
		switch {
		case scriptMembers[m]:
			return nil
		case m != "call" && m != "pcall" || call == "":
			return &refusal{fmt.Sprintf("sends a script that uses %s other than by calling %s.call or %s.pcall, which the guard cannot check", ident, ident, ident)}
		case !closed:
			return &refusal{"sends a script whose redis.call is not closed, which cannot be checked"}
		}
		return x.guardScriptCall(ctx, call, keys, argv)
	}
	return nil
}

// luaCallAfter reads what follows the identifier redis or server (rest,
// spaces trimmed): the member named after a dot ("call", "pcall",
// "sha1hex"; "" without one) and, for a member that is called, the text
// between the call's parentheses, with closed false when they do not
// close (call is then the text after the opening one).
func luaCallAfter(rest string) (member, call string, closed bool) {
	mend := 0
	if strings.HasPrefix(rest, ".") {
		mend, member = luaNext(rest, len(rest)-len(strings.TrimLeft(rest[1:], luaSpace)))
	}
	after := strings.TrimLeft(rest[mend:], luaSpace)
	if after != "" && (after[0] == '\'' || after[0] == '"' || after[0] == '[') {
		// A call with one string argument and no parentheses
		// (redis.call'FLUSHALL', redis.call[[PING]]).
		if end := luaSkip(after, 0); end > 0 {
			return member, after[:end], true
		}
	}
	if !strings.HasPrefix(after, "(") {
		return member, "", false
	}
	end := luaClose(after, '(', ')')
	if end < 0 {
		return member, after[1:], false
	}
	return member, after[1 : end-1], true
}

// luaCallSites returns the arguments of each closed redis.call,
// redis.pcall, server.call and server.pcall of src, in order, each split
// at its top-level commas (luaArgs): the one reader of a script's calls
// for the guard of a loaded script (guardScript) and the destructive
// commands of a case (destructiveUse); an EVAL's script is also read call
// by call with its keys (guardIdent). Calls are found twice, by the
// tokenizer (strings and comments skipped) and by every occurrence of
// the names, in strings and comments too: a text the tokenizer reads
// otherwise than Lua does (helper-41: a comment that a carriage return
// ends) must not hide a call; a call read twice, or one that runs
// nothing, is only refused or listed again.
func luaCallSites(src string) [][]string {
	var out [][]string
	add := func(i, j int) {
		if i > 0 && (src[i-1] == '.' || src[i-1] == ':') {
			return // a member of something else
		}
		m, call, closed := luaCallAfter(strings.TrimLeft(src[j:], luaSpace))
		if (m == "call" || m == "pcall") && closed {
			out = append(out, luaArgs(call))
		}
	}
	for i := 0; i < len(src); {
		j, ident := luaNext(src, i)
		if ident == "redis" || ident == "server" {
			add(i, j)
		}
		i = j
	}
	for _, name := range []string{"redis", "server"} {
		for off := 0; ; {
			k := strings.Index(src[off:], name)
			if k < 0 {
				break
			}
			i := off + k
			add(i, i+len(name))
			off = i + len(name)
		}
	}
	return out
}

// luaLiteral is the value of p, a call's argument, when it is a string
// literal and nothing else: quoted without escapes (luaString), or in a
// long bracket ([[FLUSHALL]], [==[...]==]; a newline right after the
// opening bracket is not part of it, as Lua reads it).
func luaLiteral(p string) (string, bool) {
	p = strings.TrimSpace(p)
	if end := luaLong(p, 0); end == len(p) && end > 0 {
		open := strings.IndexByte(p[1:], '[') + 2 // "[", the ='s, "["
		if len(p) < 2*open || !strings.HasSuffix(p, "]"+strings.Repeat("=", open-2)+"]") {
			return "", false // unclosed
		}
		body := p[open : len(p)-open]
		body = strings.TrimPrefix(strings.TrimPrefix(body, "\r"), "\n")
		return body, true
	}
	s, rest, ok := luaString(p)
	return s, ok && rest == ""
}

// guardScriptCall guards one call of a script, given the text between its
// parentheses.
func (x *caseRun) guardScriptCall(ctx context.Context, text string, keys, argv [][]byte) error {
	parts := luaArgs(text)
	if len(parts) == 0 {
		return nil // the server refuses a call without a command
	}
	args := make([][]byte, len(parts))
	unknown := false
	for i, p := range parts {
		args[i] = x.scriptArg(p, keys, argv)
		unknown = unknown || string(args[i]) == scriptUnknown
	}
	if string(args[0]) == scriptUnknown {
		return &refusal{"sends a script whose redis.call names its command by an expression, which cannot be checked"}
	}
	if last := parts[len(parts)-1]; strings.HasSuffix(last, ")") || strings.Contains(last, "...") {
		if string(args[len(args)-1]) == scriptUnknown {
			return &refusal{fmt.Sprintf("sends a script whose %s call ends with an expression that may be several arguments, which cannot be checked", strings.ToUpper(string(args[0])))}
		}
	}
	info, err := x.t.CommandInfo(ctx, string(args[0]))
	if err != nil {
		return err
	}
	if unknown && (info.Movable || info.Container && len(args) > 1 && string(args[1]) == scriptUnknown) {
		return &refusal{fmt.Sprintf("sends a script whose %s call has an argument the guard cannot read, which may move its keys", strings.ToUpper(string(args[0])))}
	}
	pos, err := x.keyPositions(ctx, args)
	if err != nil {
		return err
	}
	for _, i := range pos {
		if string(args[i]) == scriptUnknown {
			return &refusal{fmt.Sprintf("sends a script whose %s call names a key the guard cannot read (pass it as KEYS[n])", strings.ToUpper(string(args[0])))}
		}
	}
	// No connection: CLIENT, the command that needs one, is noscript.
	if err := x.guardCommand(ctx, nil, args, pos); err != nil {
		var rf *refusal
		if errors.As(err, &rf) {
			return &refusal{"runs a script whose call " + rf.reason}
		}
		return err
	}
	return nil
}

// scriptArg resolves one argument of a script's call: a string literal
// without escapes, a number, ARGV[n], KEYS[n] (any KEYS element, by any
// index, is one of the EVAL's keys, which the guard checked), else
// scriptUnknown.
func (x *caseRun) scriptArg(p string, keys, argv [][]byte) []byte {
	p = strings.TrimSpace(p)
	if s, rest, ok := luaString(p); ok && rest == "" {
		return []byte(s)
	}
	if _, err := strconv.ParseInt(p, 10, 64); err == nil {
		return []byte(p)
	}
	for _, t := range []struct {
		name string
		vals [][]byte
	}{{"KEYS", keys}, {"ARGV", argv}} {
		if !strings.HasPrefix(p, t.name) {
			continue
		}
		idx := strings.TrimSpace(p[len(t.name):])
		if end := luaClose(idx, '[', ']'); end != len(idx) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(idx[1 : len(idx)-1]))
		switch {
		case err == nil && n >= 1 && n <= len(t.vals):
			return t.vals[n-1]
		case t.name == "KEYS":
			return append([]byte(x.env.KeyPrefix), "\x00some-key"...)
		}
	}
	return []byte(scriptUnknown)
}

// luaSpace are the bytes Lua reads as space between tokens.
const luaSpace = " \t\r\n\f\v"

// luaSkip returns the index after the string literal or comment that
// starts at s[i] (quoted, long bracket, -- line or --[[ block), or i.
func luaSkip(s string, i int) int {
	switch {
	case s[i] == '\'' || s[i] == '"':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case s[i]:
				return j + 1
			}
		}
		return len(s)
	case strings.HasPrefix(s[i:], "--"):
		if j := luaLong(s, i+2); j > i+2 {
			return j
		}
		// A short comment ends at a carriage return too (Lua 5.1's
		// lexer, which every pinned build runs: "-- x\rreturn
		// redis.call('DEL', 'k')" deletes k).
		if end := strings.IndexAny(s[i:], "\r\n"); end >= 0 {
			return i + end + 1
		}
		return len(s)
	case s[i] == '[':
		return luaLong(s, i)
	}
	return i
}

// luaLong returns the index after a long bracket ([[...]], [==[...]==])
// starting at s[i], or i.
func luaLong(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] == '=' {
		j++
	}
	if i >= len(s) || s[i] != '[' || j >= len(s) || s[j] != '[' {
		return i
	}
	closer := "]" + strings.Repeat("=", j-i-1) + "]"
	if end := strings.Index(s[j+1:], closer); end >= 0 {
		return j + 1 + end + len(closer)
	}
	return len(s)
}

// luaNext reads the token at s[i]: an identifier (returned with the index
// after it), a string or comment (skipped), or one other byte.
func luaNext(s string, i int) (int, string) {
	if i >= len(s) {
		return i, ""
	}
	if j := luaSkip(s, i); j > i {
		return j, ""
	}
	isStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	if !isStart(s[i]) {
		return i + 1, ""
	}
	j := i + 1
	for j < len(s) && (isStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	return j, s[i:j]
}

// luaClose returns the index after the bracket that closes s[0] (open),
// strings and comments skipped, or -1.
func luaClose(s string, open, close byte) int {
	if s == "" || s[0] != open {
		return -1
	}
	depth := 0
	for i := 0; i < len(s); {
		if j := luaSkip(s, i); j > i && s[i] != open {
			i = j
			continue
		}
		switch s[i] {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// luaArgs splits the text of a call's arguments at its top-level commas.
func luaArgs(text string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(text); {
		if j := luaSkip(text, i); j > i {
			i = j
			continue
		}
		switch text[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(text[start:i]))
				start = i + 1
			}
		}
		i++
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" || len(parts) > 0 {
		parts = append(parts, rest)
	}
	return parts
}
