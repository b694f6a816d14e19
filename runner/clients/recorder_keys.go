package clients

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// KeyBefore is a key as it was on the upstream just before the first
// captured command that names it, and the commands that build it again
// on another server (of any version: no DUMP payload, which other
// versions refuse).
type KeyBefore struct {
	Key []byte
	// Conn and Seq are the connection and the event (Exchange.SentAt)
	// of the command that named it first: a key whose command the
	// server refused (NOPERM: respcheck's user may read what the
	// application's may not) is left out of a case file.
	Conn int
	Seq  uint64
	// Type is TYPE's answer ("string", "list", "set", "zset", "hash",
	// "stream"); "none" for a key that did not exist.
	Type string
	// Rebuild are the commands that make the key again, each with the
	// reply a server answers it (RPUSH's count, XADD's ID): empty for
	// none, and for a type KeyBefore cannot rebuild (Note says so).
	Rebuild []Rebuild
	// Note says why a key that existed (or may have) is not rebuilt (a
	// module type, a key of over maxRebuilt elements, another database,
	// an error reading it).
	Note string
}

// Rebuild is one command of KeyBefore.Rebuild and its expected reply.
type Rebuild struct {
	Args  [][]byte
	Reply []byte
}

// maxRebuilt is the most elements a key may hold to be rebuilt (a
// string: maxRebuiltBytes): a capture's setup, not a data migration.
const (
	maxRebuilt      = 10000
	maxRebuiltBytes = 1 << 20
)

// KeysClientName is the name (CLIENT SETNAME) of the connection on which
// a capture reads the keys found before (RecorderOptions.KeysBefore): the
// application's CLIENT LIST through the proxy shows it.
const KeysClientName = "respcheck-capture-keys"

// keyKeeper reads the keys a capture touches first, on a connection of
// its own to the upstream (keepKeys).
type keyKeeper struct {
	mu       sync.Mutex
	ctx      context.Context
	upstream target.Config
	cn       *target.Conn // nil after an error: dialled again
	keys     *target.CaseKeys
	seen     map[string]bool
	before   []KeyBefore
	// moved are the connections that left their first database (SELECT
	// other than 0, SWAPDB, MOVE): their keys are not read.
	moved map[int]bool
	// closed ends the reads; cnMu guards cn for close, which does not
	// wait for a read in progress (k.mu) to end it.
	closed atomic.Bool
	cnMu   sync.Mutex
	// held is the connection's writer of frames not yet forwarded while
	// see runs (do flushes it first).
	held *bufio.Writer
	// call bounds what one command's lookup asks the upstream (callCtx).
	call       context.Context
	callCancel context.CancelFunc
	callEnd    time.Time
}

// callCtx is a context with 4 to 5 s left for one command's lookup,
// made again at most once a second: a timer per command cost the proxy a
// sixth of its CPU under redis-benchmark -P 16 (BenchmarkCaptureOverhead's
// pipelined/capture-keys profile, 2026-12-07). k.mu is held. The last
// one is not cancelled at close (which does not wait for k.mu): it
// expires within 5 s.
func (k *keyKeeper) callCtx() context.Context {
	if k.call == nil || time.Until(k.callEnd) < 4*time.Second {
		if k.callCancel != nil {
			k.callCancel()
		}
		k.callEnd = time.Now().Add(5 * time.Second)
		k.call, k.callCancel = context.WithDeadline(k.ctx, k.callEnd)
	}
	return k.call
}

// keepKeys makes the recorder read, before forwarding each command, the
// keys it names that no earlier command named (their positions as the
// guard reads them: COMMAND INFO, GETKEYS for movable keys), as
// KeysBefore returns them.
func (r *Recorder) keepKeys(ctx context.Context, upstream target.Config) error {
	t, err := target.Open(ctx, upstream)
	if err != nil {
		return err
	}
	k := &keyKeeper{ctx: ctx, upstream: upstream, seen: map[string]bool{}, moved: map[int]bool{}}
	k.keys = t.CaseKeys("", true, func(args [][]byte) ([][]byte, error) {
		v, err := k.do(append([][]byte{[]byte("COMMAND"), []byte("GETKEYS")}, args...)...)
		if err != nil || v.Kind != resp.Array {
			return nil, fmt.Errorf("COMMAND GETKEYS: %v %q", err, v.Raw)
		}
		var out [][]byte
		for _, e := range v.Elems {
			out = append(out, e.Str)
		}
		return out, nil
	})
	r.keys = k
	r.p.beforeSend = k.see
	return nil
}

// close ends the keeper's connection (a read in progress fails at once)
// and its reads.
func (k *keyKeeper) close() {
	k.closed.Store(true)
	k.cnMu.Lock()
	if k.cn != nil {
		k.cn.NC.SetDeadline(time.Unix(1, 0))
	}
	k.cnMu.Unlock()
}

// do sends args on the keeper's connection (dialled again after an
// error: a reply not read would be the next command's) and returns the
// reply, cloned. k.mu is held.
func (k *keyKeeper) do(args ...[]byte) (resp.Value, error) {
	if k.closed.Load() {
		return resp.Value{}, errors.New("the capture ended")
	}
	if k.held != nil && k.held.Buffered() > 0 {
		k.held.Flush() // a write error ends the connection's pump anyway
	}
	if k.cn == nil {
		ctx, cancel := context.WithTimeout(k.ctx, 5*time.Second)
		cn, err := k.upstream.Dial(ctx, 2)
		cancel()
		if err != nil {
			return resp.Value{}, err
		}
		// Reads that touch no key's access time (Redis 7.2+; an error
		// reply elsewhere), on a connection the application's CLIENT
		// LIST names (KeysClientName). A reply not read would be the
		// next command's.
		cn.NC.SetDeadline(time.Now().Add(5 * time.Second))
		for _, args := range [][]string{{"CLIENT", "NO-TOUCH", "ON"}, {"CLIENT", "SETNAME", KeysClientName}} {
			if _, err := cn.Do(args...); err != nil {
				cn.Close()
				return resp.Value{}, err
			}
		}
		k.cnMu.Lock()
		k.cn = cn
		k.cnMu.Unlock()
	}
	k.cn.NC.SetDeadline(time.Now().Add(5 * time.Second))
	v, err := k.cn.DoBytes(resp.AppendCommand(nil, args...))
	if err != nil {
		k.cnMu.Lock()
		k.cn.Close()
		k.cn = nil
		k.cnMu.Unlock()
		return resp.Value{}, err
	}
	// Its bytes are the connection's buffer's until the next read.
	return v.Clone(), nil
}

// KeysBefore returns the keys the captured commands named, as they were
// before the first of them, in the order they were first named (none
// unless the Recorder was made with RecorderOptions.KeysBefore).
func (r *Recorder) KeysBefore() []KeyBefore {
	if r.keys == nil {
		return nil
	}
	r.keys.mu.Lock()
	defer r.keys.mu.Unlock()
	return append([]KeyBefore(nil), r.keys.before...)
}

// see reads the keys of args (the command of connection conn recorded as
// event seq) that no command named before.
func (k *keyKeeper) see(conn int, seq uint64, args [][]byte, held *bufio.Writer) {
	if len(args) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// The frames before this one go on before a read makes it wait: held
	// back, a pipeline's INCR reached the server after another
	// connection's INCR sent later, and the replay, which sends in the
	// proxy's order, got the other counts.
	k.held = held
	defer func() { k.held = nil }()
	if k.closed.Load() {
		return
	}
	// (No upper-case copy of every command's name: an allocation per
	// command.)
	is := func(name string) bool { return bytes.EqualFold(args[0], []byte(name)) }
	switch {
	case is("SELECT") && len(args) == 2 && string(args[1]) != "0", is("SWAPDB"), is("MOVE"):
		k.moved[conn] = true
	case is("RESET"), is("SELECT") && len(args) == 2 && string(args[1]) == "0":
		delete(k.moved, conn)
	}
	pos, err := k.keys.Positions(k.callCtx(), args)
	if err != nil {
		// Which keys it names is not known: said once, in the file.
		if !k.seen["\x00"+string(args[0])] {
			k.seen["\x00"+string(args[0])] = true
			k.before = append(k.before, KeyBefore{Key: bytes.Clone(args[0]), Conn: conn, Seq: seq, Type: "unknown",
				Note: "the keys this command names could not be had (" + err.Error() + "): not read"})
		}
		return
	}
	for _, i := range pos {
		if i >= len(args) || k.seen[string(args[i])] {
			continue
		}
		key := bytes.Clone(args[i])
		k.seen[string(key)] = true
		if k.moved[conn] {
			k.before = append(k.before, KeyBefore{Key: key, Conn: conn, Seq: seq, Type: "unknown", Note: "named in another database than the first (SELECT, SWAPDB, MOVE): not read"})
			continue
		}
		kb := k.read(key)
		kb.Conn, kb.Seq = conn, seq
		k.before = append(k.before, kb)
	}
}

// read is key as the upstream holds it now. k.mu is held.
func (k *keyKeeper) read(key []byte) KeyBefore {
	kb := KeyBefore{Key: key}
	do := func(args ...string) (resp.Value, error) { return k.do(bytesArgs(args...)...) }
	name := string(key)
	// OBJECT ENCODING tells a missing key without a keymiss event (TYPE
	// sends one, which the application may be subscribed to).
	if v, err := do("OBJECT", "ENCODING", name); err == nil && (v.Kind == resp.Null || v.Kind == resp.NilBlobString) {
		kb.Type = "none"
		return kb
	}
	v, err := do("TYPE", name)
	if err != nil || v.Kind == resp.SimpleError {
		kb.Type, kb.Note = "unknown", fmt.Sprintf("TYPE: %v %s", err, resp.Escape(v.Raw))
		return kb
	}
	kb.Type = string(v.Str)
	if kb.Type == "none" {
		return kb
	}
	limit := int64(maxRebuilt)
	if kb.Type == "string" {
		limit = maxRebuiltBytes
	}
	if n, err := do(lengthCommand(kb.Type), name); err == nil && n.Kind == resp.Integer && n.Int > limit {
		kb.Note = fmt.Sprintf("not rebuilt: a %s of %d (more than %d)", kb.Type, n.Int, limit)
		return kb
	}
	var rebuild []Rebuild
	switch kb.Type {
	case "string":
		rebuild, err = rebuildWith(do, []string{"GET", name}, "SET", name, 0, func(int) []byte { return []byte("+OK\r\n") })
	case "list":
		rebuild, err = rebuildWith(do, []string{"LRANGE", name, "0", "-1"}, "RPUSH", name, 1, count)
	case "set":
		rebuild, err = rebuildWith(do, []string{"SMEMBERS", name}, "SADD", name, 1, count)
	case "zset":
		rebuild, err = rebuildWith(do, []string{"ZRANGE", name, "0", "-1", "WITHSCORES"}, "ZADD", name, 2, count)
	case "hash":
		rebuild, err = rebuildWith(do, []string{"HGETALL", name}, "HSET", name, 2, count)
		if err == nil {
			kb.Note = hashFieldTTLs(do, name)
		}
	case "stream":
		rebuild, err = rebuildStream(do, name)
		if err == nil {
			if g, gerr := do("XINFO", "GROUPS", name); gerr == nil && len(g.Elems) > 0 {
				kb.Note = fmt.Sprintf("its %d consumer groups are not built again", len(g.Elems))
			}
		}
	default:
		kb.Note = "not rebuilt: a key of type " + kb.Type
		return kb
	}
	if err != nil {
		kb.Note = "not rebuilt: " + err.Error()
		return kb
	}
	if pttl, err := do("PTTL", name); err == nil && pttl.Kind == resp.Integer && pttl.Int > 0 {
		rebuild = append(rebuild, Rebuild{Args: bytesArgs("PEXPIRE", name, strconv.FormatInt(pttl.Int, 10)), Reply: []byte(":1\r\n")})
	}
	kb.Rebuild = rebuild
	return kb
}

// hashFieldTTLs is a note when a field of hash key has a TTL of its own
// (HPEXPIRE, Redis 7.4+): not built again.
func hashFieldTTLs(do func(...string) (resp.Value, error), key string) string {
	fields, err := do("HKEYS", key)
	if err != nil || len(fields.Elems) == 0 {
		return ""
	}
	args := []string{"HPTTL", key, "FIELDS", strconv.Itoa(len(fields.Elems))}
	for _, f := range fields.Elems {
		args = append(args, string(f.Str))
	}
	v, err := do(args...)
	if err != nil {
		return ""
	}
	for _, e := range v.Elems {
		if e.Kind == resp.Integer && e.Int > 0 {
			return "the TTLs of its fields are not built again"
		}
	}
	return ""
}

// lengthCommand is the command that counts a key of type typ's elements
// (STRLEN for a string: its bytes, against maxRebuilt*100).
func lengthCommand(typ string) string {
	switch typ {
	case "list":
		return "LLEN"
	case "set":
		return "SCARD"
	case "zset":
		return "ZCARD"
	case "hash":
		return "HLEN"
	case "stream":
		return "XLEN"
	}
	return "STRLEN"
}

// count is the reply of a command that added n elements.
func count(n int) []byte { return fmt.Appendf(nil, ":%d\r\n", n) }

// rebuildWith reads a key with read and returns the one command (cmd key,
// then the values read: a string's value when per is 0, else the array's
// elements, per at a time as cmd takes them; ZRANGE WITHSCORES' member
// score pairs swapped into ZADD's score member) that makes it again, with
// reply(n) for its n elements.
func rebuildWith(do func(...string) (resp.Value, error), read []string, cmd, key string, per int, reply func(int) []byte) ([]Rebuild, error) {
	v, err := do(read...)
	if err != nil || v.Kind == resp.SimpleError {
		return nil, fmt.Errorf("%s: %v %s", read[0], err, resp.Escape(v.Raw))
	}
	args := bytesArgs(cmd, key)
	if per == 0 {
		return []Rebuild{{Args: append(args, v.Str), Reply: reply(1)}}, nil
	}
	if len(v.Elems) == 0 || len(v.Elems)%per != 0 {
		return nil, fmt.Errorf("%s: %d elements", read[0], len(v.Elems))
	}
	for i := 0; i < len(v.Elems); i += per {
		if cmd == "ZADD" {
			args = append(args, v.Elems[i+1].Str, v.Elems[i].Str)
			continue
		}
		for _, e := range v.Elems[i : i+per] {
			args = append(args, e.Str)
		}
	}
	return []Rebuild{{Args: args, Reply: reply(len(v.Elems) / per)}}, nil
}

// rebuildStream is an XADD per entry of the stream key, with its ID.
func rebuildStream(do func(...string) (resp.Value, error), key string) ([]Rebuild, error) {
	v, err := do("XRANGE", key, "-", "+")
	if err != nil || v.Kind != resp.Array {
		return nil, fmt.Errorf("XRANGE: %v %s", err, resp.Escape(v.Raw))
	}
	var out []Rebuild
	for _, e := range v.Elems {
		if len(e.Elems) != 2 {
			return nil, fmt.Errorf("XRANGE: an entry of %d elements", len(e.Elems))
		}
		id := e.Elems[0].Str
		args := append(bytesArgs("XADD", key), id)
		for _, f := range e.Elems[1].Elems {
			args = append(args, f.Str)
		}
		out = append(out, Rebuild{Args: args, Reply: fmt.Appendf(nil, "$%d\r\n%s\r\n", len(id), id)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("an empty stream (its groups only)")
	}
	return out, nil
}

func bytesArgs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}
