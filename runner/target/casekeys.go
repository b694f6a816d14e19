package target

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// CaseKeys are the keys of one case in one protocol on a target, as both of
// respcheck's executors send them (run's, and the client view's session
// behind its proxy): each command's literal key names and key patterns
// moved into the case's namespace (its key prefix, cases.KeyPrefix) before
// it is sent, so that `send: [SET, foo, bar]` writes {key:foo} and is
// deleted with the case's keys; or, for a case that says literal_keys:
// true, sent as written and remembered, so that DeleteLiteral removes them
// afterwards. A CaseKeys is used by one goroutine.
type CaseKeys struct {
	t       *Target
	prefix  []byte
	literal bool
	ask     func([][]byte) ([][]byte, error)
	// Renamed maps each literal key name moved into the namespace to the
	// name it was sent as (cases.Env.Renamed: an expectation that names
	// the literal reads it as the sent name), Channels each literal
	// pub/sub channel or pattern (cases.Env.Channels); nil until one
	// moves.
	Renamed, Channels map[string]string
	// Literal holds the key names a literal_keys case sent outside its
	// namespace (DeleteLiteral); nil until one is sent.
	Literal map[string]bool
	// named holds the key names under the prefix the case's commands
	// named, as sent; open is set once a command may have written a key
	// under the prefix that it did not name (see Prepare): Delete then
	// scans the namespace.
	named map[string]struct{}
	open  bool
	track bool
}

// unnamedWriters are the commands that can write keys they do not name
// in their key arguments: a script or a function (redis.call on any
// key, on a server that is not a cluster), and DEBUG (POPULATE makes
// keys from a prefix argument).
var unnamedWriters = [][]byte{[]byte("EVAL"), []byte("EVALSHA"), []byte("FCALL"), []byte("DEBUG")}

// writesUnnamed reports whether the command named name is one of
// unnamedWriters, in any case (no allocation: Prepare runs per step).
func writesUnnamed(name []byte) bool {
	return slices.ContainsFunc(unnamedWriters, func(w []byte) bool { return bytes.EqualFold(name, w) })
}

// CaseKeys returns the keys of a case whose key prefix is prefix;
// literal is the case's literal_keys. ask answers COMMAND GETKEYS for a
// command whose keys move with its arguments (GetKeys, on a connection of
// respcheck's own, never one of the case's).
//
// On a server with modules loaded (Server.Modules) other than those of
// namedKeysModules, or whose modules are not known (Server.ModulesHidden),
// the case's keys are always scanned for: a module command may write keys
// it does not name (RedisTimeSeries' compaction rules make a key per rule
// from the key's name; RedisGears' TFCALL runs a function).
func (t *Target) CaseKeys(prefix string, literal bool, ask func(args [][]byte) ([][]byte, error)) *CaseKeys {
	open := t.Server.ModulesHidden || slices.ContainsFunc(t.Server.Modules, func(m string) bool { return !namedKeysModules[m] })
	return &CaseKeys{t: t, prefix: []byte(prefix), literal: literal, ask: ask, open: open}
}

// namedKeysModules are the modules whose commands write only the keys
// they name: Redis 8's built-in vectorset (MODULE LIST names it on
// redis-8.0.6 and redis-8.6.3; every V* command takes its key first).
var namedKeysModules = map[string]bool{"vectorset": true}

// Track makes Prepare note the key names its commands name, for Delete
// (a shared run's cleanup); without it Delete scans the namespace, and a
// run on a throwaway server, which deletes no case's keys, pays nothing
// per step for it.
func (k *CaseKeys) Track() { k.track = true }

// Prefix is the case's key prefix.
func (k *CaseKeys) Prefix() []byte { return k.prefix }

// Positions returns the positions of the key arguments of args
// (KeyPositions, with ask), or ErrKeysUnknown for a command with movable
// keys whose COMMAND GETKEYS was refused.
func (k *CaseKeys) Positions(ctx context.Context, args [][]byte) ([]int, error) {
	pos, _, err := k.t.keyPositions(ctx, args, k.prefix, k.ask)
	return pos, err
}

// Prepare returns args (the command name first) as the case sends it and
// the positions of its key arguments: its literal keys and key patterns
// moved into the namespace (Namespace; each moved name noted in Renamed),
// or for a literal_keys case args as written, its keys outside the
// namespace noted in Literal. The key names under the prefix are noted
// for Delete. It returns args itself when nothing changes, else a copy
// (args is never written). When the key positions cannot be had (COMMAND
// INFO failed, or GETKEYS was refused: ErrKeysUnknown), it returns args as
// written with the error: the caller decides whether the command goes out
// so (its keys, if any, outside the namespace).
func (k *CaseKeys) Prepare(ctx context.Context, args [][]byte) ([][]byte, []int, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	keys, exact, err := k.t.keyPositions(ctx, args, k.prefix, k.ask)
	if err != nil {
		k.open = true
		return args, nil, err
	}
	if k.track && (!exact || writesUnnamed(args[0])) {
		k.open = true
	}
	out := args
	if k.literal {
		for _, i := range keys {
			if !bytes.HasPrefix(args[i], k.prefix) {
				if k.Literal == nil {
					k.Literal = map[string]bool{}
				}
				k.Literal[string(args[i])] = true
			}
		}
	} else {
		var moved []int
		out, moved = namespace(args, keys, k.prefix)
		for _, i := range moved {
			if len(args[i]) == 0 { // an empty name is no expected string's
				continue
			}
			m := &k.Renamed
			if !slices.Contains(keys, i) {
				m = &k.Channels // a channel: renamed where a frame names one
			}
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[string(args[i])] = string(out[i])
		}
	}
	for _, i := range keys {
		if k.track && bytes.HasPrefix(out[i], k.prefix) {
			if k.named == nil {
				k.named = map[string]struct{}{}
			}
			k.named[string(out[i])] = struct{}{}
		}
	}
	return out, keys, nil
}

// Open says that the case sent a command whose keys it could not tell
// (bytes that are not whole commands): Delete scans the namespace.
func (k *CaseKeys) Open() { k.open = true }

// Named returns the key names under the prefix that the case's commands
// named, as sent (sorted), and whether they are all the keys it could
// have written: false without Track, or once a command may have written a
// key it did not name (Delete would scan the namespace).
func (k *CaseKeys) Named() ([]string, bool) {
	if k.open || !k.track {
		return nil, false
	}
	return slices.Sorted(maps.Keys(k.named)), true
}

// unlinkBatch bounds the key names of one UNLINK of Delete.
const unlinkBatch = 512

// Delete removes the case's keys under its prefix on a connection of its
// own to the node that serves the prefix's slot, and returns how many it
// removed. When every command the case sent named all the keys it could
// write (Prepare), that is one UNLINK of the names they named (a case
// costs no SCAN, whose rounds grow with the whole keyspace: 200 per case
// on a server of 200,000 keys); otherwise, or when UNLINK is refused, it
// is DeleteCaseKeys (SCAN MATCH prefix*), as it is without Track. ctx
// bounds the whole of it.
func (k *CaseKeys) Delete(ctx context.Context) (int, error) {
	if k.open || !k.track {
		return k.t.DeleteCaseKeys(ctx, string(k.prefix))
	}
	if len(k.named) == 0 {
		return 0, nil
	}
	return k.t.onKeySlot(ctx, string(k.prefix), k.unlink)
}

// unlink sends UNLINK of the named keys on c, or scans the namespace when
// UNLINK is refused.
func (k *CaseKeys) unlink(c *Conn) (int, error) {
	n, refused, err := Unlink(c, slices.Sorted(maps.Keys(k.named)))
	if refused {
		// An ACL without UNLINK, a renamed command: the namespace is
		// scanned instead, as before.
		m, err := DeleteKeys(c, string(k.prefix))
		return n + m, err
	}
	return n, err
}

// Unlink sends UNLINK of names on c, unlinkBatch names a call, and returns
// how many keys it removed; refused is set when the server answered
// anything but an integer (an ACL without UNLINK, a renamed command), and
// the names after that call were not sent.
func Unlink(c *Conn, names []string) (n int, refused bool, err error) {
	for len(names) > 0 {
		batch := names[:min(len(names), unlinkBatch)]
		names = names[len(batch):]
		v, err := c.Do(append([]string{"UNLINK"}, batch...)...)
		if err != nil {
			return n, false, err
		}
		if v.Kind != resp.Integer {
			return n, true, nil
		}
		n += int(v.Int)
	}
	return n, false, nil
}

// DeleteLiteral deletes the keys a literal_keys case sent outside its
// namespace (Literal), one DEL per hash slot on the node that serves it,
// so that the case's run in the other protocol, or the next literal_keys
// case, starts without them. It is for a server of the run's own (a
// user's server keeps what the case wrote, as the case wrote it). ctx
// bounds the dials (each DEL, the connection's round-trip deadline);
// errors are ignored.
func (k *CaseKeys) DeleteLiteral(ctx context.Context) {
	bySlot := map[int][]string{}
	for name := range k.Literal {
		s := Slot([]byte(name))
		bySlot[s] = append(bySlot[s], name)
	}
	for slot, names := range bySlot {
		if ctx.Err() != nil {
			return
		}
		c, _, err := k.t.DialSlot(ctx, 2, slot, "")
		if err != nil {
			continue
		}
		c.Do(append([]string{"DEL"}, names...)...)
		c.Close()
	}
}

// debugKeys returns the key positions of DEBUG OBJECT, DIGEST-VALUE and
// LISTPACK, which COMMAND INFO does not give (DEBUG has no key
// specification: COMMAND GETKEYS DEBUG OBJECT k answers "ERR The command
// has no key arguments" on redis-8.6.3), or nil for another command.
func debugKeys(args [][]byte) []int {
	if len(args) < 3 || !strings.EqualFold(string(args[0]), "DEBUG") {
		return nil
	}
	switch strings.ToUpper(string(args[1])) {
	case "OBJECT", "LISTPACK":
		return []int{2}
	case "DIGEST-VALUE":
		pos := make([]int, 0, len(args)-2)
		for i := 2; i < len(args); i++ {
			pos = append(pos, i)
		}
		return pos
	}
	return nil
}

// scriptKeys are the key positions of EVAL, EVALSHA, FCALL and their _RO
// forms (NAME script numkeys key... arg...: the numkeys arguments after
// numkeys), and false for another command or a numkeys that is not a
// count of the arguments there.
func scriptKeys(args [][]byte) ([]int, bool) {
	switch strings.ToUpper(string(args[0])) {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
	default:
		return nil, false
	}
	if len(args) < 3 {
		return nil, false
	}
	n, err := strconv.Atoi(string(args[2]))
	if err != nil || n < 0 || 3+n > len(args) {
		return nil, false
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = 3 + i
	}
	return pos, true
}
