package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/respcheck/respcheck/resp"
)

// MaxGetkeysArg bounds the arguments KeyPositions sends to COMMAND
// GETKEYS: longer ones (values, not key positions or counts) are replaced
// by "x", and are never found to be keys.
const MaxGetkeysArg = 1024

// maxShapes bounds the cache of KeyPositions.
const maxShapes = 4096

// KeyPositions returns the positions of the key arguments of args (the
// command name first): from the command's legacy key range in COMMAND INFO
// (CommandInfo.KeyRange; for a container such as OBJECT, its
// subcommand's), or for a command with movable keys from getKeys, which
// asks COMMAND GETKEYS (nil keys for an error reply), mapped to positions
// by keyIndexes. Movable results are cached by the command's shape: its
// arguments with those under prefix (the case's keys, whose names do not
// move positions) and those over MaxGetkeysArg replaced. A command that is
// unknown, has no keys or has the wrong arity has none. DEBUG OBJECT,
// DIGEST-VALUE and LISTPACK, which have no key specification, have theirs
// (debugKeys).
func (t *Target) KeyPositions(ctx context.Context, args [][]byte, prefix []byte, getKeys func([][]byte) ([][]byte, error)) ([]int, error) {
	pos, _, err := t.keyPositions(ctx, args, prefix, getKeys)
	if errors.Is(err, ErrKeysUnknown) {
		return nil, nil
	}
	return pos, err
}

// keyPositions is KeyPositions, and whether the positions are all of the
// command's keys as far as the server's command table tells: false for a
// command the server does not list (unknown, or a table that cannot say)
// and for a command with movable keys whose table cannot be asked
// (CommandInfo.Listed). A command with movable keys for which COMMAND
// GETKEYS was refused is an ErrKeysUnknown (KeyPositions: no positions).
func (t *Target) keyPositions(ctx context.Context, args [][]byte, prefix []byte, getKeys func([][]byte) ([][]byte, error)) (_ []int, exact bool, _ error) {
	if len(args) < 2 {
		return nil, true, nil
	}
	if pos := debugKeys(args); pos != nil {
		return pos, true, nil
	}
	info, err := t.CommandOf(ctx, args)
	if err != nil {
		return nil, false, err
	}
	if !info.Known && !info.Listed {
		return nil, false, nil
	}
	if (info.Arity > 0 && len(args) != info.Arity) || (info.Arity < 0 && len(args) < -info.Arity) {
		return nil, true, nil // refused by the server: it touches no key
	}
	if !info.Movable {
		return info.KeyRange(len(args)), true, nil
	}
	if info.Listed {
		// A table that cannot say (miniredis): the script commands'
		// layout is fixed (numkeys, then the keys).
		if pos, ok := scriptKeys(args); ok {
			return pos, true, nil
		}
		return nil, false, nil
	}
	if pos, ok := specKeys(info.Specs, args); ok {
		return pos, true, nil // the key specifications answer: no call
	}
	q := make([][]byte, len(args))
	var shape []byte
	exact = true
	for i, a := range args {
		switch {
		case len(a) > MaxGetkeysArg:
			// Never found to be a key: if it is one, the positions are
			// not all of them.
			a = []byte("x")
			shape = append(shape, "\x00L"...)
			exact = false
		case len(prefix) > 0 && bytes.HasPrefix(a, prefix):
			shape = append(shape, "\x00K"...)
		default:
			shape = append(append(shape, "\x00="...), a...)
		}
		q[i] = a
	}
	t.mu.Lock()
	pos, found := t.shapes[string(shape)]
	t.mu.Unlock()
	if found {
		return pos, exact, nil
	}
	keys, err := getKeys(q)
	if err == nil {
		pos, err = keyIndexes(q, keys, getKeys)
	}
	if err != nil {
		// An ErrKeysUnknown is not remembered: the next ask may answer.
		return nil, false, err
	}
	t.mu.Lock()
	if t.shapes == nil {
		t.shapes = map[string][]int{}
	}
	if len(t.shapes) < maxShapes {
		t.shapes[string(shape)] = pos
	}
	t.mu.Unlock()
	return pos, exact, nil
}

// keyIndexes maps the key names COMMAND GETKEYS gave for args to their
// positions. A name found at as many positions as it was given is a key
// at each; when it is found at more (EVAL s 1 1: the count is also "1"),
// each of those positions is asked again with that argument changed, and
// is a key when the changed name comes back.
func keyIndexes(args, keys [][]byte, getKeys func([][]byte) ([][]byte, error)) ([]int, error) {
	want := map[string]int{}
	for _, k := range keys {
		want[string(k)]++
	}
	var pos []int
	for i := 1; i < len(args); i++ {
		n, ok := want[string(args[i])]
		if !ok {
			continue
		}
		found := 0
		for _, a := range args[1:] {
			if bytes.Equal(a, args[i]) {
				found++
			}
		}
		if found <= n {
			pos = append(pos, i)
			continue
		}
		probe := slices.Clone(args)
		probe[i] = append(slices.Clip(args[i]), "\x00respcheck"...)
		got, err := getKeys(probe)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(got, func(k []byte) bool { return bytes.Equal(k, probe[i]) }) {
			pos = append(pos, i)
		}
	}
	return pos, nil
}

// ErrKeysUnknown is GetKeys' error for an error reply that does not say
// the command touches no key: a refusal (NOPERM from an ACL without
// COMMAND GETKEYS, BUSY while another client's script runs, LOADING, a
// proxy without the subcommand). KeyPositions then knows no positions,
// and does not remember that for the command's shape.
var ErrKeysUnknown = errors.New("COMMAND GETKEYS did not say which keys")

// noKeysReplies are the error replies of COMMAND GETKEYS that say the
// command touches no key (redis-7.0.15, redis-8.6.3, valkey-8.0.1 and
// valkey-9.1.2: "ERR The command has no key arguments", "ERR Invalid
// command specified", "ERR Invalid number of arguments specified for
// command", "ERR Invalid arguments specified for command", "ERR wrong
// number of arguments for 'command|getkeys' command").
var noKeysReplies = []string{"no key arguments", "Invalid command specified", "Invalid number of arguments", "Invalid arguments specified", "wrong number of arguments"}

// GetKeys asks COMMAND GETKEYS which keys args would touch through do (a
// round trip on some connection), for KeyPositions: an error reply that
// says the command has none (no key arguments, an unknown command, bad
// arity) is no keys; another error reply is ErrKeysUnknown.
func GetKeys(do func(args ...string) (resp.Value, error), args [][]byte) ([][]byte, error) {
	q := make([]string, 0, len(args)+2)
	q = append(q, "COMMAND", "GETKEYS")
	for _, a := range args {
		q = append(q, string(a))
	}
	v, err := do(q...)
	if err != nil {
		return nil, fmt.Errorf("COMMAND GETKEYS: %w", err)
	}
	if v.Kind != resp.Array {
		if IsError(v) && !slices.ContainsFunc(noKeysReplies, func(m string) bool { return bytes.Contains(v.Str, []byte(m)) }) {
			return nil, fmt.Errorf("%w: %.200s", ErrKeysUnknown, v.Str)
		}
		return nil, nil
	}
	keys := make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		keys[i] = append([]byte(nil), e.Str...)
	}
	return keys, nil
}
