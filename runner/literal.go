package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Literal keys. A case without literal_keys: true that names a key
// literally (send: [SET, foo, bar]) has it moved into its namespace before
// the command is sent: every key argument (COMMAND INFO's key range, or
// COMMAND GETKEYS for a command whose keys move with its arguments) that is
// not under the case's key prefix gets the prefix, so foo is sent as
// {key:foo} would be. KEYS and SCAN MATCH patterns and SORT's BY and GET
// patterns get the prefix too, and a SCAN without MATCH gets MATCH
// prefix*; pub/sub channels and channel patterns are moved with them.
// Script bodies are not rewritten (pass keys in KEYS). The expectations
// of the steps whose reply can name a key (keyEchoes, a read of one's
// async send, and every raw and push step) read an expected string equal to a renamed literal as
// its namespaced name (cases.Env.Renamed); an EXEC's replies each as its
// queued command's.

// keyEchoes are the commands whose replies name keys: KEYS and SCAN
// results, the key of a blocking or multi-key pop, XREAD's stream names,
// what a script or a transaction returns, CLUSTER GETKEYSINSLOT; and
// channels moved into the namespace (target.ChannelPositions): the
// (un)subscribe confirmations, PUBSUB CHANNELS and NUMSUB.
var keyEchoes = map[string]bool{
	"KEYS": true, "SCAN": true, "RANDOMKEY": true, "BLPOP": true, "BRPOP": true, "BLMPOP": true,
	"LMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "ZMPOP": true, "XREAD": true,
	"XREADGROUP": true, "EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true,
	"FCALL": true, "FCALL_RO": true, "EXEC": true, "CLUSTER": true,
	// their confirmations name the channels
	"SUBSCRIBE": true, "UNSUBSCRIBE": true, "PSUBSCRIBE": true, "PUNSUBSCRIBE": true,
	"SSUBSCRIBE": true, "SUNSUBSCRIBE": true, "PUBSUB": true,
}

// prepare returns the command args as it is sent: its literal keys in the
// namespace (namespace), checked by the guard of shared runs for the
// connection c it goes on.
func (x *caseRun) prepare(ctx context.Context, c *conn, args [][]byte) ([][]byte, error) {
	args, keys, err := x.namespace(ctx, args)
	if err != nil {
		return nil, err
	}
	return args, x.guard(ctx, c, [][][]byte{args}, [][]int{keys})
}

// caseKeys returns the case's keys (target.CaseKeys), made on first use:
// COMMAND GETKEYS is asked on the case's side connection (getKeys).
func (x *caseRun) caseKeys(ctx context.Context) *target.CaseKeys {
	if x.keys == nil {
		x.keys = x.t.CaseKeys(x.env.KeyPrefix, x.c.LiteralKeys, func(q [][]byte) ([][]byte, error) { return x.getKeys(ctx, q) })
		if x.opts.Shared {
			x.keys.Track() // close deletes them (deleteKeys)
		}
	}
	return x.keys
}

// namespace returns args as the case sends it and the positions of its
// key arguments (target.CaseKeys.Prepare): its literal keys and key
// patterns moved into the case's namespace, each renamed literal noted
// in x.env.Renamed; or for a literal_keys case, as written. A command
// whose keys the server would not name (COMMAND GETKEYS refused) goes out
// as written, or on a guarded shared target is refused.
func (x *caseRun) namespace(ctx context.Context, args [][]byte) ([][]byte, []int, error) {
	k := x.caseKeys(ctx)
	out, keys, err := k.Prepare(ctx, args)
	x.env.Renamed, x.env.Channels = k.Renamed, k.Channels
	if errors.Is(err, target.ErrKeysUnknown) {
		if x.guarded() {
			// Its literal names would go out as written.
			return nil, nil, unknownKeys(args, err)
		}
		return out, keys, nil
	}
	return out, keys, err
}

// unknownKeys is the guard's refusal of a command whose keys the server
// would not name (target.ErrKeysUnknown: COMMAND GETKEYS refused).
func unknownKeys(args [][]byte, err error) *refusal {
	return &refusal{fmt.Sprintf("sends %s, whose keys the server would not name to this user (%v): they could be outside the case's namespace (an ACL user needs +command|getkeys)", resp.Escape(args[0]), err)}
}

// keyPositions returns the positions of the key arguments of args
// (target.KeyPositions, asking COMMAND GETKEYS on a side connection of the
// case).
//
// A command whose keys the server would not name has none, or on a
// guarded shared target is refused (unknownKeys): the guard and a probe
// would let its literal names through as written.
func (x *caseRun) keyPositions(ctx context.Context, args [][]byte) ([]int, error) {
	pos, err := x.caseKeys(ctx).Positions(ctx, args)
	if errors.Is(err, target.ErrKeysUnknown) {
		if x.guarded() {
			return nil, unknownKeys(args, err)
		}
		return nil, nil
	}
	return pos, err
}

// getKeys asks COMMAND GETKEYS which keys args would touch
// (target.GetKeys), on the case's side connection (opened on first use).
func (x *caseRun) getKeys(ctx context.Context, args [][]byte) ([][]byte, error) {
	if err := x.sideConn(ctx); err != nil {
		return nil, err
	}
	return target.GetKeys(func(q ...string) (resp.Value, error) { return x.keysConn.roundTrip(x.opts.StepTimeout, q...) }, args)
}

// sideConn opens the case's side connection (keysConn) unless it is
// open: the guard's and the namespacing's questions to the server go
// there, never on a connection of the case.
func (x *caseRun) sideConn(ctx context.Context) error {
	if x.keysConn != nil {
		return nil
	}
	c, err := dial(ctx, x.t, x.slot, "", "getkeys", 2)
	if err != nil {
		return err
	}
	x.keysConn = c
	return nil
}

// rawSpans is rawCommands with where each command is in b: b[spans[i][0]:
// spans[i][1]] holds command i (an inline line with its end of line). The
// commands are read as the server reads them (resp.ReadCommand); a command
// the server refuses (unbalanced quotes, an array of other types) is read
// as well as it can be, and ok is false when b ends inside a command or
// holds bytes that are not one.
func rawSpans(b []byte) (cmds [][][]byte, spans [][2]int, ok bool) {
	off := 0
	for off < len(b) {
		args, n, err := resp.ReadCommand(b[off:])
		if n == 0 || err != nil && !errors.Is(err, resp.ErrUnbalancedQuotes) && !errors.Is(err, resp.ErrNotBlobStrings) {
			return cmds, spans, false
		}
		if len(args) > 0 {
			cmds = append(cmds, args)
			spans = append(spans, [2]int{off, off + n})
		}
		off += n
	}
	return cmds, spans, true
}

// namespaceRaw is namespace for the bytes of a raw step that parse as
// complete commands (RESP arrays of blob strings, inline lines): a
// command that changes is written again, as an array of blob strings or
// an inline line of its words (an inline line holding a quote is left as
// it is); every other byte is kept. It returns the bytes, the commands
// and their key positions; bytes that are not whole commands are
// returned as they are, with the commands that parsed.
func (x *caseRun) namespaceRaw(ctx context.Context, b []byte) ([]byte, [][][]byte, [][]int, error) {
	cmds, spans, complete := rawSpans(b)
	keys := make([][]int, len(cmds))
	if !complete {
		return b, cmds, keys, nil
	}
	got := make([][][]byte, len(cmds))
	for i, args := range cmds {
		var err error
		if got[i], keys[i], err = x.namespace(ctx, args); err != nil {
			return nil, nil, nil, err
		}
	}
	b = rewriteRaw(b, spans, func(i int) [][]byte {
		orig := b[spans[i][0]:spans[i][1]]
		if sameArgs(got[i], cmds[i]) || orig[0] != '*' && bytes.ContainsAny(orig, `"'`) {
			return nil
		}
		cmds[i] = got[i]
		return got[i]
	})
	return b, cmds, keys, nil
}

// rewriteRaw returns b with each command i (at spans[i], see rawSpans) for
// which change returns an argument list written again with it: a RESP
// array as an array of blob strings, an inline line as the words joined by
// spaces; every other byte is kept, and b itself is returned when change
// always returns nil.
func rewriteRaw(b []byte, spans [][2]int, change func(i int) [][]byte) []byte {
	var out []byte
	changed, prev := false, 0
	for i, sp := range spans {
		args := change(i)
		if args == nil {
			continue
		}
		out = append(out, b[prev:sp[0]]...)
		if b[sp[0]] == '*' {
			out = resp.AppendCommand(out, args...)
		} else {
			out = append(append(out, bytes.Join(args, []byte(" "))...), '\r', '\n')
		}
		changed, prev = true, sp[1]
	}
	if !changed {
		return b
	}
	return append(out, b[prev:]...)
}

// sameArgs reports whether a and b are the same argument list (namespace
// returns its input when nothing changes).
func sameArgs(a, b [][]byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// expectEnv is the environment the reply of st, read on c, is matched
// in: with the renamed literal keys (cases.Env.Renamed) for a step whose
// reply can name a key (a send of a keyEchoes command or of a templated
// command name, a read of such a send's reply, and every raw and push
// step), else without them (a captured SMEMBERS read after its async send
// expected a member equal to a literal key name as the renamed key).
func (x *caseRun) expectEnv(st *cases.Step, c *conn) *cases.Env {
	read := st.Action == cases.ActRead && c.reading != nil
	if read {
		st = c.reading
	}
	if len(x.env.Renamed) == 0 && len(x.env.Channels) == 0 || st.Action != cases.ActSend || len(st.Send) == 0 {
		return x.env
	}
	name, lit := st.Send[0].Literal()
	switch {
	case lit && !keyEchoes[strings.ToUpper(name)]:
		e := *x.env
		e.Renamed, e.Channels = nil, nil
		return &e
	case lit && strings.EqualFold(name, "PUBSUB"):
		// Its replies name channels (CHANNELS, NUMSUB): read renamed.
		e := *x.env
		e.Renamed = maps.Clone(x.env.Renamed)
		if e.Renamed == nil {
			e.Renamed = map[string]string{}
		}
		maps.Copy(e.Renamed, x.env.Channels)
		return &e
	case lit && !read && strings.EqualFold(name, "EXEC") && c.execEchoes != nil:
		// An EXEC's replies are those of its queued commands: each is
		// read as its own command's (a queued SMEMBERS's member equal to
		// a literal key name stays the member).
		e := *x.env
		e.RenamedIn = c.execEchoes
		return &e
	}
	return x.env
}

// deleteLiteral deletes the keys a literal_keys case named literally
// (target.CaseKeys.DeleteLiteral), on a server that is not shared (a
// shared one never received them), within twice the step timeout.
func (x *caseRun) deleteLiteral() {
	ctx, cancel := budgeted(context.Background(), x.w, x.opts.StepTimeout, 2*x.opts.StepTimeout)
	defer cancel()
	x.keys.DeleteLiteral(ctx)
}
