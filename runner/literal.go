package runner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
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
// prefix*. Script bodies are not rewritten (pass keys in KEYS). The
// expectations of the steps whose reply can name a key (keyEchoes, and
// every raw, read and push step) read an expected string equal to a renamed
// literal as its namespaced name (cases.Env.Renamed).

// keyEchoes are the commands whose replies name keys: KEYS and SCAN
// results, the key of a blocking or multi-key pop, XREAD's stream names,
// what a script or a transaction returns, CLUSTER GETKEYSINSLOT.
var keyEchoes = map[string]bool{
	"KEYS": true, "SCAN": true, "RANDOMKEY": true, "BLPOP": true, "BRPOP": true, "BLMPOP": true,
	"LMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "ZMPOP": true, "XREAD": true,
	"XREADGROUP": true, "EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true,
	"FCALL": true, "FCALL_RO": true, "EXEC": true, "CLUSTER": true,
}

// prepare returns the command args as it is sent: its literal keys in the
// namespace (namespace), checked by the guard of shared runs.
func (x *caseRun) prepare(ctx context.Context, args [][]byte) ([][]byte, error) {
	args, keys, err := x.namespace(ctx, args)
	if err != nil {
		return nil, err
	}
	return args, x.guard([][][]byte{args}, [][]int{keys})
}

// namespacing reports whether the case's literal keys are moved into its
// namespace: always, unless it says literal_keys: true.
func (x *caseRun) namespacing() bool { return !x.c.LiteralKeys }

// namespace returns args with its literal keys and key patterns moved into
// the case's namespace (args itself when nothing changes; without
// namespacing, always), and the positions of its key arguments. Each
// renamed literal is noted in x.env.Renamed.
func (x *caseRun) namespace(ctx context.Context, args [][]byte) ([][]byte, []int, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	keys, err := x.keyPositions(ctx, args)
	prefix := []byte(x.env.KeyPrefix)
	if err != nil || !x.namespacing() {
		for _, i := range keys {
			if !bytes.HasPrefix(args[i], prefix) {
				if x.literal == nil {
					x.literal = map[string]bool{}
				}
				x.literal[string(args[i])] = true
			}
		}
		return args, keys, err
	}
	out := args
	put := func(i int, b []byte) {
		if len(out) > 0 && &out[0] == &args[0] {
			out = slices.Clone(args)
		}
		out[i] = b
	}
	under := func(i int) bool { return bytes.HasPrefix(args[i], prefix) }
	for _, i := range keys {
		if !under(i) {
			named := append(slices.Clip(prefix), args[i]...)
			put(i, named)
			if x.env.Renamed == nil {
				x.env.Renamed = map[string]string{}
			}
			if len(args[i]) > 0 {
				x.env.Renamed[string(args[i])] = string(named)
			}
		}
	}
	for _, i := range patternPositions(args) {
		if !under(i) {
			put(i, append(slices.Clip(prefix), args[i]...))
		}
	}
	if len(args) >= 2 && strings.EqualFold(string(args[0]), "SCAN") && !slices.ContainsFunc(args[1:], func(a []byte) bool { return strings.EqualFold(string(a), "MATCH") }) {
		out = append(slices.Clip(out), []byte("MATCH"), append(slices.Clip(prefix), '*'))
	}
	return out, keys, nil
}

// patternPositions returns the positions of args that are key patterns:
// KEYS's pattern, SCAN's MATCH, SORT and SORT_RO's BY and GET (but BY
// nosort and GET #).
func patternPositions(args [][]byte) []int {
	var pos []int
	switch strings.ToUpper(string(args[0])) {
	case "KEYS":
		if len(args) == 2 {
			pos = append(pos, 1)
		}
	case "SCAN":
		for i := 2; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "MATCH") {
				pos = append(pos, i+1)
			}
		}
	case "SORT", "SORT_RO":
		for i := 2; i+1 < len(args); i++ {
			word, next := strings.ToUpper(string(args[i])), string(args[i+1])
			if word == "BY" && !strings.EqualFold(next, "nosort") || word == "GET" && next != "#" {
				pos = append(pos, i+1)
				i++
			}
		}
	}
	return pos
}

// keyPositions returns the positions of the key arguments of args: from
// the command's (or, for a container such as OBJECT, its subcommand's)
// legacy key range in COMMAND INFO, cached by the target, or for a command
// with movable keys from COMMAND GETKEYS on a side connection of the case
// (keyIndexes). A command that is unknown, has no keys or has the wrong
// arity has none.
func (x *caseRun) keyPositions(ctx context.Context, args [][]byte) ([]int, error) {
	if len(args) < 2 {
		return nil, nil
	}
	info, err := x.t.CommandInfo(ctx, string(args[0]))
	if err != nil {
		return nil, err
	}
	if info.Container && len(args) > 1 && len(args[1]) <= 64 && !bytes.ContainsAny(args[1], " |") {
		sub, err := x.t.CommandInfo(ctx, string(args[0])+"|"+string(args[1]))
		if err != nil {
			return nil, err
		}
		if sub.Known {
			info = sub
		}
	}
	if !info.Known || (info.Arity > 0 && len(args) != info.Arity) || (info.Arity < 0 && len(args) < -info.Arity) {
		return nil, nil
	}
	if !info.Movable {
		return info.KeyRange(len(args)), nil
	}
	q := make([][]byte, len(args))
	for i, a := range args {
		if len(a) > maxGetkeysArg {
			a = []byte("x") // a value, not a key position or a count
		}
		q[i] = a
	}
	getKeys := func(args [][]byte) ([][]byte, error) { return x.getKeys(ctx, args) }
	keys, err := getKeys(q)
	if err != nil {
		return nil, err
	}
	return keyIndexes(q, keys, getKeys)
}

// getKeys asks COMMAND GETKEYS which keys args would touch, on the case's
// side connection (opened on first use). An error reply (no key
// arguments, bad arity) is no keys.
func (x *caseRun) getKeys(ctx context.Context, args [][]byte) ([][]byte, error) {
	if x.keysConn == nil {
		c, err := dial(ctx, x.t, x.slot, "", "getkeys", 2)
		if err != nil {
			return nil, err
		}
		x.keysConn = c
	}
	q := make([]string, 0, len(args)+2)
	q = append(q, "COMMAND", "GETKEYS")
	for _, a := range args {
		q = append(q, string(a))
	}
	v, err := x.keysConn.roundTrip(x.opts.StepTimeout, q...)
	if err != nil {
		return nil, fmt.Errorf("COMMAND GETKEYS: %w", err)
	}
	if v.Kind != resp.Array {
		return nil, nil
	}
	keys := make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		keys[i] = append([]byte(nil), e.Str...)
	}
	return keys, nil
}

// keyIndexes maps the key names COMMAND GETKEYS gave for args to their
// positions. A name found at as many positions as it was given is a key
// at each; when it is found at more (SET foo foo: the value is also
// "foo"), each of those positions is asked again with that argument
// changed, and is a key when the changed name comes back.
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

// rawSpans is rawCommands with where each command is in b: b[spans[i][0]:
// spans[i][1]] holds command i (an inline line with its end of line).
func rawSpans(b []byte) (cmds [][][]byte, spans [][2]int, ok bool) {
	off := 0
	for off < len(b) {
		rest := b[off:]
		if rest[0] == '*' {
			n, v, err := resp.Parse(rest)
			if err != nil || n == 0 || v.Kind != resp.Array {
				return cmds, spans, false
			}
			args := make([][]byte, len(v.Elems))
			for i, e := range v.Elems {
				args[i] = e.Str
			}
			cmds = append(cmds, args)
			spans = append(spans, [2]int{off, off + n})
			off += n
			continue
		}
		line, _, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			return cmds, spans, false
		}
		if f := bytes.Fields(bytes.TrimRight(line, "\r")); len(f) > 0 {
			for i := range f {
				f[i] = bytes.Trim(f[i], `"'`)
			}
			cmds = append(cmds, f)
			spans = append(spans, [2]int{off, off + len(line) + 1})
		}
		off += len(line) + 1
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

// expectEnv is the environment a step's reply is matched in: with the
// renamed literal keys (cases.Env.Renamed) for a step whose reply can name
// a key (a send of a keyEchoes command or of a templated command name, and
// every raw, read and push step), else without them.
func (x *caseRun) expectEnv(st *cases.Step) *cases.Env {
	if len(x.env.Renamed) == 0 || st.Action != cases.ActSend || len(st.Send) == 0 {
		return x.env
	}
	if name, lit := st.Send[0].Literal(); lit && !keyEchoes[strings.ToUpper(name)] {
		e := *x.env
		e.Renamed = nil
		return &e
	}
	return x.env
}

// deleteLiteral deletes the keys a literal_keys case named literally (on
// a server that is not shared: a shared one never received them), one
// DEL per hash slot on the node that serves it, so that the case's run in
// the other protocol, or the next literal_keys case, starts without them.
// Errors are ignored: the server is the run's own.
func (x *caseRun) deleteLiteral() {
	ctx, cancel := budgeted(context.Background(), x.w, x.opts.StepTimeout, 2*x.opts.StepTimeout)
	defer cancel()
	bySlot := map[int][]string{}
	for k := range x.literal {
		s := target.Slot([]byte(k))
		bySlot[s] = append(bySlot[s], k)
	}
	for slot, keys := range bySlot {
		c, _, err := x.t.DialSlot(ctx, 2, slot, "")
		if err != nil {
			continue
		}
		c.Do(append([]string{"DEL"}, keys...)...)
		c.Close()
	}
}
