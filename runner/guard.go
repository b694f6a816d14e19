package runner

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// refusal is a step that a shared target must not receive: it would reach
// keys, databases or state that are not the run's. The case ends as a skip
// with Reason; its cleanup still runs.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// guard checks, before a step is sent to a shared target (guarded; nil
// otherwise), every command the
// step holds (a send step's, or each command parsed from a raw step's bytes):
// a command on the destructive list; a command that reads or writes another
// database or unnamed keys (SELECT, COPY ... DB, SCAN or KEYS without a
// MATCH/pattern in the case's namespace, RANDOMKEY); a PUBLISH to a channel
// outside the namespace; any key argument (keyPositions: COMMAND INFO's key
// range or COMMAND GETKEYS) that is not under the case's key prefix; and a
// Lua script whose redis.call names its command or a key by anything but
// KEYS/ARGV-free literals it can check. It returns nil when the step may go.
//
// keys holds the positions of each command's key arguments (namespace);
// c is the connection the step goes to (nil for a gate's probe, which
// goes to the owner of the case's slot).
func (x *caseRun) guard(ctx context.Context, c *conn, cmds [][][]byte, keys [][]int) error {
	if !x.guarded() {
		return nil
	}
	for i, args := range cmds {
		if err := x.guardCommand(ctx, c, args, keys[i]); err != nil {
			return err
		}
		if err := x.guardReset(c, args, i < len(cmds)-1); err != nil {
			return err
		}
		if c != nil && len(args) > 0 {
			switch strings.ToUpper(string(args[0])) {
			case "MULTI":
				c.multi = true
			case "EXEC", "DISCARD", "RESET":
				c.multi = false
			}
		}
	}
	return nil
}

// guardReset refuses, on a run with an ACL user, a RESET (args) after
// which the connection could run a command before the run authenticates
// it again (restoreAfterReset, once RESET's reply is read and nothing
// else is pending): one sent async, one sent while replies are pending
// on c, one that more commands follow in the same raw bytes (more).
// RESET makes the connection the default user, with every right where
// that user has nopass (helper-41's repros).
func (x *caseRun) guardReset(c *conn, args [][]byte, more bool) error {
	if x.aclUser == "" || len(args) == 0 || !bytes.EqualFold(args[0], []byte("RESET")) {
		return nil
	}
	switch {
	case x.async, c != nil && len(c.pending) > 0:
		return &refusal{"sends RESET while its reply would wait behind others, and the connection would run as the default user until the run's ACL user authenticates it again"}
	case more:
		return &refusal{"sends commands after RESET in the same raw bytes, which would run as the default user, not the run's ACL user"}
	}
	return nil
}

// guardCommand guards one command that goes on c (see guard).
func (x *caseRun) guardCommand(ctx context.Context, c *conn, args [][]byte, keys []int) error {
	if len(args) == 0 {
		return nil
	}
	words := make([]string, min(len(args), 3))
	for i := range words {
		if len(args[i]) <= 64 {
			words[i] = string(args[i])
		}
	}
	// KEYS is destructive only with a pattern outside the namespace
	// (below).
	if name, bad := isDestructive(words); bad && name != "KEYS" {
		return &refusal{fmt.Sprintf("sends %s, which reaches beyond the run's own keys", name)}
	}
	prefix := []byte(x.env.KeyPrefix)
	inNamespace := func(b []byte) bool { return bytes.HasPrefix(b, prefix) }
	name := strings.ToUpper(words[0])
	switch name {
	case "SELECT", "RANDOMKEY":
		return &refusal{fmt.Sprintf("sends %s, which reaches keys that are not the run's", name)}
	case "COPY":
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "DB") {
				return &refusal{"sends COPY ... DB, which writes another database"}
			}
		}
	case "SCAN":
		// The server uses the last MATCH: every one must be in the
		// namespace.
		ok := false
		for i := 2; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "MATCH") {
				if ok = inNamespace(args[i+1]); !ok {
					break
				}
			}
		}
		if !ok {
			return &refusal{"sends SCAN without a MATCH pattern in the case's namespace ({key}*)" + x.literalWhy()}
		}
	case "KEYS":
		if len(args) > 1 && !inNamespace(args[1]) {
			return &refusal{"sends KEYS with a pattern outside the case's namespace" + x.literalWhy()}
		}
	case "SORT", "SORT_RO":
		for _, i := range target.PatternPositions(args) {
			if !inNamespace(args[i]) {
				return &refusal{fmt.Sprintf("sends %s with the pattern %s, which reads keys that are not the run's%s", name, resp.Escape(args[i]), x.literalWhy())}
			}
		}
	case "SUBSCRIBE", "SSUBSCRIBE", "PSUBSCRIBE":
		// Invalidation messages go only to the client that a tracking
		// client names with REDIRECT.
		for _, ch := range args[1:] {
			if !inNamespace(ch) && string(ch) != "__redis__:invalidate" {
				return &refusal{fmt.Sprintf("sends %s to %s, outside the case's namespace, which reads other clients' messages", name, resp.Escape(ch))}
			}
		}
	case "CLIENT", "CONFIG", "ACL", "CLUSTER", "PUBSUB":
		if err := x.guardAdmin(name, args); err != nil {
			return err
		}
		if name == "CLIENT" {
			if err := x.guardClient(ctx, c, args); err != nil {
				return err
			}
		}
	case "AUTH", "HELLO":
		if err := x.guardAuth(ctx, name, args); err != nil {
			return err
		}
	case "HOTKEYS":
		if len(args) > 1 && strings.EqualFold(string(args[1]), "GET") {
			return &refusal{"sends HOTKEYS GET, which names the keys of the server-wide tracking session, other clients' keys included"}
		}
	case "SLOWLOG", "COMMANDLOG":
		if len(args) > 1 && strings.EqualFold(string(args[1]), "GET") && (len(args) < 3 || string(args[2]) != "0") {
			return &refusal{fmt.Sprintf("sends %s GET, which shows other clients' commands and their arguments (only a count of 0 is let through)", name)}
		}
	case "PUBLISH", "SPUBLISH":
		if len(args) > 1 && !inNamespace(args[1]) {
			return &refusal{fmt.Sprintf("sends %s to channel %s, outside the case's namespace", name, resp.Escape(args[1]))}
		}
	case "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if err := x.guardEval(ctx, args); err != nil {
			return err
		}
	case "SCRIPT", "FUNCTION":
		if err := x.guardAdmin(name, args); err != nil {
			return err
		}
		x.noteScriptLoad(args)
		for _, a := range args[1:] {
			if err := guardScript(a); err != nil {
				return err
			}
		}
	}
	for _, i := range keys {
		if !inNamespace(args[i]) {
			return &refusal{fmt.Sprintf("sends %s touching key %s, which is not the run's%s", name, resp.Escape(args[i]), x.literalWhy())}
		}
	}
	return nil
}

// configSecrets are the CONFIG parameters that hold passwords: Redis
// 8.6.3 masks requirepass in CONFIG GET, but answers masterauth and the
// TLS key passphrases as they are.
var configSecrets = []string{"requirepass", "masterauth", "tls-key-file-pass", "tls-client-key-file-pass"}

// guardAdmin refuses the CLIENT, CONFIG, ACL, CLUSTER, FUNCTION and
// PUBSUB forms that read other
// clients' keys or the server's secrets: CLIENT TRACKING ... BCAST
// without a PREFIX (or with one outside the case's namespace: the
// invalidations name every key any client changes), CONFIG GET of a
// parameter or pattern that names a password, ACL LIST and ACL GETUSER
// (the users' password hashes), CLUSTER GETKEYSINSLOT (other keys share
// the case's slot), FUNCTION DUMP and a FUNCTION LIST not filtered to the
// case's {id}, PUBSUB CHANNELS and SHARDCHANNELS without a pattern in the
// namespace (other clients' libraries and channel names).
func (x *caseRun) guardAdmin(name string, args [][]byte) error {
	if len(args) < 2 {
		return nil
	}
	sub := strings.ToUpper(string(args[1]))
	switch name + " " + sub {
	case "CLIENT TRACKING":
		bcast, prefixes, ok := false, 0, true
		for i := 2; i < len(args); i++ {
			switch strings.ToUpper(string(args[i])) {
			case "BCAST":
				bcast = true
			case "PREFIX":
				if i+1 < len(args) {
					prefixes++
					ok = ok && bytes.HasPrefix(args[i+1], []byte(x.env.KeyPrefix))
					i++
				}
			}
		}
		if bcast && (prefixes == 0 || !ok) {
			return &refusal{"sends CLIENT TRACKING ... BCAST without a PREFIX in the case's namespace, which reads the names of other clients' keys"}
		}
	case "CONFIG GET":
		for _, p := range args[2:] {
			for _, secret := range configSecrets {
				if m, err := path.Match(strings.ToLower(string(p)), secret); m || err != nil {
					return &refusal{fmt.Sprintf("sends CONFIG GET %s, which reads the server's %s", resp.Escape(p), secret)}
				}
			}
		}
	case "ACL LIST", "ACL GETUSER":
		return &refusal{fmt.Sprintf("sends %s, which reads the users' password hashes", name+" "+sub)}
	case "FUNCTION DUMP":
		return &refusal{"sends FUNCTION DUMP, which reads every function library, not only the run's"}
	case "FUNCTION LIST":
		id := strings.TrimSuffix(strings.TrimPrefix(x.env.KeyPrefix, "rc:{"), "}:")
		for i := 2; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "LIBRARYNAME") && strings.Contains(string(args[i+1]), id) {
				return nil
			}
		}
		return &refusal{"sends FUNCTION LIST without a LIBRARYNAME holding the case's {id}, which reads function libraries that are not the run's"}
	case "PUBSUB CHANNELS", "PUBSUB SHARDCHANNELS":
		if len(args) < 3 || !bytes.HasPrefix(args[2], []byte(x.env.KeyPrefix)) {
			return &refusal{fmt.Sprintf("sends PUBSUB %s without a pattern in the case's namespace, which names other clients' channels", sub)}
		}
	case "CLUSTER GETKEYSINSLOT":
		return &refusal{"sends CLUSTER GETKEYSINSLOT, which names other clients' keys that hash to the slot"}
	}
	return nil
}

// literalWhy is what a refusal adds for a case with literal_keys: true,
// whose keys the runner leaves as they are written.
func (x *caseRun) literalWhy() string {
	if x.c.LiteralKeys {
		return " (the case says literal_keys: true, so its literal key names are not moved into its namespace)"
	}
	return ""
}

// guardScript refuses a script (a SCRIPT LOAD's or FUNCTION LOAD's body,
// or an EVAL's before its calls are read with its keys) that has a call
// (luaCallSites) naming its command by an expression (it cannot be
// checked), a destructive one, or one whose first argument is a literal
// key name (not KEYS[i]).
func guardScript(body []byte) error {
	for _, parts := range luaCallSites(string(body)) {
		if len(parts) == 0 {
			continue // the server refuses a call without a command
		}
		cmd, ok := luaLiteral(parts[0])
		if !ok {
			return &refusal{"sends a script whose redis.call names its command by an expression, which cannot be checked"}
		}
		cmd = strings.ToUpper(cmd)
		arg, literal := "", false
		if len(parts) > 1 {
			arg, literal = luaLiteral(parts[1])
		}
		if name, bad := isDestructive([]string{cmd, strings.ToUpper(arg)}); bad {
			return &refusal{fmt.Sprintf("sends a script that calls %s, which reaches beyond the run's own keys", name)}
		}
		if literal && scriptKeyCommands[cmd] {
			return &refusal{fmt.Sprintf("sends a script that calls %s on the literal key %q, which is not the run's", cmd, arg)}
		}
	}
	return nil
}

// luaString reads a quoted Lua string literal (no escapes) after optional
// spaces, and returns it, the text after it with spaces trimmed, and
// whether there was one.
func luaString(s string) (string, string, bool) {
	s = strings.TrimLeft(s, luaSpace)
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 || strings.ContainsRune(s[1:end+1], '\\') {
		return "", s, false
	}
	return s[1 : end+1], strings.TrimLeft(s[end+2:], luaSpace), true
}

// scriptKeyCommands take a key as their first argument; a literal there in
// a script names a key outside the namespace.
var scriptKeyCommands = map[string]bool{
	"GET": true, "SET": true, "DEL": true, "UNLINK": true, "INCR": true, "INCRBY": true, "DECR": true,
	"EXPIRE": true, "PEXPIRE": true, "PERSIST": true, "RENAME": true, "HSET": true, "HGET": true,
	"HDEL": true, "LPUSH": true, "RPUSH": true, "LPOP": true, "RPOP": true, "SADD": true, "SREM": true,
	"ZADD": true, "ZREM": true, "APPEND": true, "GETDEL": true, "SETEX": true, "MSET": true, "TYPE": true,
	"EXISTS": true, "DUMP": true, "RESTORE": true, "XADD": true, "COPY": true,
}

// rawCommands parses the commands in raw bytes: RESP arrays of blob strings
// and inline lines, one after the other (see rawSpans). ok is false when the
// bytes are not a sequence of complete commands (a malformed or partial
// frame, which the server refuses as a whole or waits on).
func rawCommands(b []byte) (cmds [][][]byte, ok bool) {
	cmds, _, ok = rawSpans(b)
	return cmds, ok
}
