package cases

import (
	"bytes"
	"fmt"

	"github.com/respcheck/respcheck/resp"
)

// rename returns the namespaced name of b when b is a literal key name the
// runner renamed (Env.Renamed), else b.
func (env *Env) rename(b []byte) []byte {
	if env == nil || len(env.Renamed) == 0 {
		return b
	}
	if n, ok := env.Renamed[string(b)]; ok {
		return []byte(n)
	}
	return b
}

// matchRenamedBytes is matchBytes for an env with renamed keys: the
// expected bytes are expanded, their strings renamed (RenameFrame) and
// compared with the reply.
func matchRenamedBytes(e *Expect, v resp.Value, env *Env) (*Mismatch, error) {
	want, err := e.Bytes.Expand(env)
	if err != nil {
		return nil, err
	}
	if env.RenamedIn != nil {
		want = renameElements(want, env)
	} else {
		want = RenameFrame(want, env.Renamed)
	}
	if bytes.Equal(want, v.Raw) {
		return nil, nil
	}
	off := resp.FirstDiff(want, v.Raw)
	return &Mismatch{ExpectedBytes: want, Expected: resp.Escape(want), Offset: off,
		Message: fmt.Sprintf("reply differs at byte %d", off)}, nil
}

// RenameFrame returns the RESP frame b with every blob, simple or verbatim
// string whose whole text is a key of names replaced by its value, at any
// depth (attributes included), re-encoded with the new lengths. b itself is
// returned when nothing is renamed, or when b is not exactly one frame.
func RenameFrame(b []byte, names map[string]string) []byte {
	if len(names) == 0 {
		return b
	}
	v, err := resp.ParseExactLimits(b, resp.AnyDepth(b))
	if err != nil {
		return b
	}
	if !renameValue(&v, names) {
		return b
	}
	return resp.Append(nil, v)
}

// renameElements is RenameFrame of an array frame b whose element i is
// renamed only where env.RenamedIn[i]; any other frame is not renamed.
func renameElements(b []byte, env *Env) []byte {
	v, err := resp.ParseExactLimits(b, resp.AnyDepth(b))
	if err != nil || v.Kind != resp.Array && v.Kind != resp.Push {
		return b
	}
	elems := append([]resp.Value(nil), v.Elems...)
	changed := false
	for i := range elems {
		if i < len(env.RenamedIn) && env.RenamedIn[i] {
			changed = renameValue(&elems[i], env.Renamed) || changed
		}
	}
	if !changed {
		return b
	}
	v.Elems = elems
	return resp.Append(nil, v)
}

// renameValue renames the strings of v in place (v's slices are fresh
// copies where they change) and reports whether any changed.
func renameValue(v *resp.Value, names map[string]string) bool {
	changed := false
	if v.Attr != nil {
		a := *v.Attr
		if renameValue(&a, names) {
			v.Attr, changed = &a, true
		}
	}
	switch v.Kind {
	case resp.BlobString, resp.SimpleString, resp.VerbatimString:
		if n, ok := names[string(v.Str)]; ok {
			v.Str, changed = []byte(n), true
		}
	case resp.Array, resp.Set, resp.Push, resp.Map, resp.Attribute:
		elems := append([]resp.Value(nil), v.Elems...)
		sub := false
		for i := range elems {
			sub = renameValue(&elems[i], names) || sub
		}
		if sub {
			v.Elems, changed = elems, true
		}
	}
	return changed
}

// pubsubChannels are the kinds of pub/sub frame (their first element) and
// the positions of their elements that name a channel or pattern.
var pubsubChannels = map[string][]int{
	"message": {1}, "smessage": {1}, "pmessage": {1, 2},
	"subscribe": {1}, "unsubscribe": {1}, "psubscribe": {1}, "punsubscribe": {1}, "ssubscribe": {1}, "sunsubscribe": {1},
}

// forReply is env for matching v: for a pub/sub frame (a message or an
// (un)subscribe confirmation), renaming only its channels, by Channels
// and Renamed (a channel may be named as a key); for any other reply,
// env (Channels unused).
func (env *Env) forReply(v resp.Value) *Env {
	if env == nil || len(env.Channels) == 0 && len(env.Renamed) == 0 || v.Kind != resp.Array && v.Kind != resp.Push || len(v.Elems) < 3 {
		return env
	}
	pos, ok := pubsubChannels[string(v.Elems[0].Str)]
	if !ok || !isString(v.Elems[0].Kind) {
		return env
	}
	e := *env
	e.Renamed = make(map[string]string, len(env.Renamed)+len(env.Channels))
	for k, n := range env.Renamed {
		e.Renamed[k] = n
	}
	for k, n := range env.Channels {
		e.Renamed[k] = n
	}
	e.RenamedIn = make([]bool, len(v.Elems))
	for _, i := range pos {
		if i < len(v.Elems) {
			e.RenamedIn[i] = true
		}
	}
	return &e
}
