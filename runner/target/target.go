package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Target is one identified server and the answers of gate checks, cached for
// the length of a run. Its methods are safe for concurrent use.
type Target struct {
	Config
	Server Server
	// Topology is the cluster's shards as Open discovered them, nil for a
	// standalone server (one whose INFO server says redis_mode other than
	// cluster). Routing uses Current, which Refresh updates.
	Topology *Topology

	current   atomic.Pointer[Topology]
	mu        sync.Mutex
	infos     map[string]CommandInfo
	shapes    map[string][]int // KeyPositions of movable-key commands, by shape
	probes    map[string]probeResult
	refreshed map[string]bool // addresses Refresh was called for
}

// Open identifies the server at cfg (see Identify) and, for a cluster
// node, discovers the cluster's topology from it (see Discover).
func Open(ctx context.Context, cfg Config) (*Target, error) {
	srv, err := Identify(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t := New(cfg, srv)
	if srv.Mode == "cluster" {
		if t.Topology, err = Discover(ctx, cfg); err != nil {
			return nil, fmt.Errorf("cluster topology: %w", err)
		}
	}
	return t, nil
}

// Error means the target could not be reached or identified at the start
// of a run (Open failed, or a cluster's nodes could not be reached): no
// case ran. run, record, clients and bench return it, and respcheck exits
// 3 for it.
type Error struct{ Err error }

// Error returns "target: " and the cause.
func (e *Error) Error() string { return "target: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns a Target for a server already identified.
func New(cfg Config, srv Server) *Target {
	return &Target{Config: cfg, Server: srv, infos: map[string]CommandInfo{}, probes: map[string]probeResult{}}
}

// CommandInfo is what COMMAND INFO says of a command's arguments.
type CommandInfo struct {
	// Known is false when COMMAND INFO has no entry (an unknown command).
	Known bool
	// Arity is > 0 for exactly that many arguments (the name included), < 0
	// for at least -Arity.
	Arity int
	// FirstKey is the position of the first key argument; 0 for none.
	FirstKey int
	// LastKey is the position of the last key argument, or when negative
	// its place from the end (-1: the last argument); Step is the distance
	// between key arguments. Without Movable, these three give every key
	// position (COMMAND INFO's legacy key range: for every command and
	// subcommand without the movablekeys flag it names what COMMAND GETKEYS
	// names on Redis 7.0.15 and 8.6.3 and Valkey 8.0.1 and 9.1.2,
	// TestKeyRangeMatchesGetkeys).
	LastKey, Step int
	// Movable reports the movablekeys flag: key positions depend on the
	// arguments, found from Specs where they can answer, else asked of
	// COMMAND GETKEYS.
	Movable bool
	// Flags are the command's flags as COMMAND INFO names them ("write",
	// "fast", "movablekeys"; "blocking" on Redis 7.0+ and Valkey for BLPOP,
	// XREAD, WAIT and the other commands that may wait on another
	// connection), nil for an unknown command.
	Flags []string
	// Specs are the command's key specifications (Redis 7.0+, Valkey
	// 7.2+), nil on servers without them.
	Specs []KeySpec
	// Categories are the command's ACL categories as COMMAND INFO names
	// them ("@write", "@string", "@connection"; Redis 6.0+), nil without.
	Categories []string
	// Tips are the command's tips as COMMAND INFO names them
	// ("nondeterministic_output_order", "request_policy:all_shards";
	// Redis 7.0+, Valkey 7.2+), nil without.
	Tips []string
	// Container reports a command with subcommands (OBJECT, XINFO,
	// MEMORY): its keys are its subcommand's ("object|encoding").
	Container bool
	// Listed is set when the server answered COMMAND INFO with its whole
	// command table (miniredis v2.40.0 answers every COMMAND subcommand
	// so) and the table has the command: the key range above is the
	// table's, but Known stays false (a table that lists commands the
	// server lacks, SORT and BITFIELD among them, cannot tell which it
	// has) and movable keys are not asked for (COMMAND GETKEYS answers the
	// table too).
	Listed bool
}

// ParseCommandInfo reads one entry of a COMMAND or COMMAND INFO reply
// (name, arity, flags, first key, last key, step, ...).
func ParseCommandInfo(e []resp.Value) CommandInfo {
	var info CommandInfo
	fillInfo(&info, e)
	return info
}

// fillInfo reads one COMMAND INFO entry into info.
func fillInfo(info *CommandInfo, e []resp.Value) {
	if len(e) < 6 {
		return
	}
	info.Arity, info.FirstKey = int(e[1].Int), int(e[3].Int)
	info.LastKey, info.Step = int(e[4].Int), int(e[5].Int)
	info.Container = len(e) >= 10 && len(e[9].Elems) > 0
	info.Specs = parseKeySpecs(e)
	if len(e) >= 7 {
		for _, c := range e[6].Elems {
			info.Categories = append(info.Categories, string(c.Str))
		}
	}
	if len(e) >= 8 {
		for _, t := range e[7].Elems {
			info.Tips = append(info.Tips, string(t.Str))
		}
	}
	for _, f := range e[2].Elems {
		info.Flags = append(info.Flags, string(f.Str))
	}
	info.Movable = slices.Contains(info.Flags, "movablekeys")
}

// tableEntry returns the entry named name of a whole command table (a
// COMMAND INFO reply of more than one entry), or nil.
func tableEntry(v resp.Value, name string) []resp.Value {
	if v.Kind != resp.Array || len(v.Elems) < 2 {
		return nil
	}
	for _, e := range v.Elems {
		if e.Kind == resp.Array && len(e.Elems) >= 6 && strings.EqualFold(string(e.Elems[0].Str), name) {
			return e.Elems
		}
	}
	return nil
}

// KeyRange returns the key positions of a command of argc arguments (its
// name included) that its legacy key range gives (FirstKey, LastKey,
// Step), or nil for none.
func (i CommandInfo) KeyRange(argc int) []int {
	if i.FirstKey <= 0 || i.Step <= 0 {
		return nil
	}
	last := i.LastKey
	if last < 0 {
		last += argc
	}
	var pos []int
	for p := i.FirstKey; p <= last && p < argc; p += i.Step {
		pos = append(pos, p)
	}
	return pos
}

// CommandInfo returns (and caches) COMMAND INFO of a command or subcommand
// ("CONFIG|GET" or "CONFIG GET"). A known command gives *1 with its entry;
// an unknown one *1 holding a nil ($-1 in RESP2 on Redis 7.0.15 and Valkey
// 8.0.1).
func (t *Target) CommandInfo(ctx context.Context, name string) (CommandInfo, error) {
	t.mu.Lock()
	info, found := t.infos[name] // as written before, without a lower-case copy
	t.mu.Unlock()
	if found {
		return info, nil
	}
	key := strings.ToLower(strings.ReplaceAll(name, " ", "|"))
	t.mu.Lock()
	info, found = t.infos[key]
	t.mu.Unlock()
	if found {
		t.remember(name, info)
		return info, nil
	}
	c, err := t.Dial(ctx, 2)
	if err != nil {
		return info, err
	}
	defer c.Close()
	v, err := c.Do("COMMAND", "INFO", key)
	if err != nil {
		return info, err
	}
	if v.Kind == resp.SimpleError && (bytes.HasPrefix(v.Str, []byte("BUSY ")) || bytes.HasPrefix(v.Str, []byte("LOADING "))) {
		// A busy script, a dataset loading: no answer about the
		// command yet, not kept (any other error is: the command is
		// not known, as a replay server without it says).
		return info, fmt.Errorf("COMMAND INFO %s: %s", key, resp.Escape(v.Raw))
	}
	switch {
	case v.Kind == resp.Array && len(v.Elems) == 1 && v.Elems[0].Kind == resp.Array:
		info.Known = true
		fillInfo(&info, v.Elems[0].Elems)
	case tableEntry(v, key) != nil:
		info.Listed = true
		fillInfo(&info, tableEntry(v, key))
	}
	t.mu.Lock()
	t.infos[key] = info
	t.mu.Unlock()
	t.remember(name, info)
	return info, nil
}

// CommandOf returns CommandInfo of the command args sends: its
// subcommand's for a container (OBJECT ENCODING, CONFIG GET) whose
// subcommand COMMAND INFO knows, else the command's own.
func (t *Target) CommandOf(ctx context.Context, args [][]byte) (CommandInfo, error) {
	info, err := t.commandInfo(ctx, args[0])
	if err != nil || !info.Container || len(args) < 2 || len(args[1]) > 64 || bytes.ContainsAny(args[1], " |") {
		return info, err
	}
	sub, err := t.CommandInfo(ctx, string(args[0])+"|"+string(args[1]))
	if err != nil {
		return info, err
	}
	if sub.Known {
		return sub, nil
	}
	return info, nil
}

// remember caches info under name as written too (at most 4096 names),
// so that the next lookup of that spelling costs no lower-case copy.
func (t *Target) remember(name string, info CommandInfo) {
	t.mu.Lock()
	if len(t.infos) < 4096 {
		t.infos[name] = info
	}
	t.mu.Unlock()
}

// commandInfo is CommandInfo of a command name given as bytes: a name
// looked up before as written costs no allocation.
func (t *Target) commandInfo(ctx context.Context, name []byte) (CommandInfo, error) {
	t.mu.Lock()
	info, found := t.infos[string(name)]
	t.mu.Unlock()
	if found {
		return info, nil
	}
	return t.CommandInfo(ctx, string(name))
}

// HasCommand reports whether COMMAND INFO knows name.
func (t *Target) HasCommand(ctx context.Context, name string) (bool, error) {
	info, err := t.CommandInfo(ctx, name)
	return info.Known, err
}

type probeResult struct {
	ok     bool
	detail string
	err    error
}

// probe runs a probe once per protocol and caches the outcome: the feature
// is present iff the reply is not an error.
func (t *Target) probe(ctx context.Context, p *cases.Probe, proto int) probeResult {
	key := fmt.Sprint(proto, probeText(p))
	t.mu.Lock()
	r, found := t.probes[key]
	t.mu.Unlock()
	if found {
		return r
	}
	r = t.runProbe(ctx, p, proto)
	t.mu.Lock()
	t.probes[key] = r
	t.mu.Unlock()
	return r
}

// MoveKeys prefixes, in place, each key argument of args (at the
// positions keys) that is not under prefix: a probe's literal key names
// moved into the probe's namespace (the guard checks them moved, and
// runProbe sends them moved).
func MoveKeys(args [][]byte, keys []int, prefix []byte) {
	for _, i := range keys {
		if !bytes.HasPrefix(args[i], prefix) {
			args[i] = append(slices.Clip(prefix), args[i]...)
		}
	}
}

// ProbeEnv is the environment a probe is expanded and sent in: a key
// prefix of its own (made from its position), no captures.
func ProbeEnv(p *cases.Probe) *cases.Env {
	return &cases.Env{KeyPrefix: cases.KeyPrefix("probe " + p.Pos.String()), Captures: map[string][]byte{}}
}

// ProbeArgs expands probe p in its environment (ProbeEnv): the command
// it sends, its literal keys not moved yet (MoveKeys).
func ProbeArgs(p *cases.Probe) (*cases.Env, [][]byte, error) {
	env := ProbeEnv(p)
	args := make([][]byte, len(p.Send))
	for i, tm := range p.Send {
		b, err := tm.Expand(env)
		if err != nil {
			return env, nil, err
		}
		args[i] = b
	}
	return env, args, nil
}

func (t *Target) runProbe(ctx context.Context, p *cases.Probe, proto int) probeResult {
	env, args, err := ProbeArgs(p)
	if err != nil {
		return probeResult{err: err}
	}
	c, _, err := t.DialSlot(ctx, proto, KeySlot(env.KeyPrefix), "")
	if err != nil {
		return probeResult{err: err}
	}
	defer c.Close()
	// A literal key of a probe is moved into the probe's namespace, as a
	// case's are: a probe must not write a key of the user's.
	prefix := []byte(env.KeyPrefix)
	keys, err := t.KeyPositions(ctx, args, prefix, func(q [][]byte) ([][]byte, error) { return GetKeys(c.Do, q) })
	if err != nil {
		return probeResult{err: err}
	}
	MoveKeys(args, keys, prefix)
	v, err := c.doAny(resp.AppendCommand(nil, args...))
	if err != nil {
		return probeResult{err: err}
	}
	r := probeResult{ok: !IsError(v), detail: string(v.Str)}
	// Remove whatever the probe wrote.
	if _, err := DeleteKeys(c, env.KeyPrefix); err != nil {
		return probeResult{err: err}
	}
	return r
}

// doAny is DoBytes that takes the first frame, a push included (SUBSCRIBE's
// reply in RESP3 is one).
func (cn *Conn) doAny(cmd []byte) (resp.Value, error) {
	if err := cn.send(cmd); err != nil {
		return resp.Value{}, err
	}
	return cn.R.Read()
}

func probeText(p *cases.Probe) string {
	var s []string
	for _, t := range p.Send {
		s = append(s, t.Source())
	}
	return "[" + strings.Join(s, " ") + "]"
}

// Skip returns why case c must be skipped in proto, or "": the gates of its
// file, then its own (cases.Gates: protocol, server selectors, DEBUG,
// commands present and absent, probes), and whether the server accepts
// HELLO 3. An error means a gate could not be checked (the server did not
// answer COMMAND INFO or a probe): not a skip.
func (t *Target) Skip(ctx context.Context, c *cases.Case, proto int) (string, error) {
	if proto == 3 && !t.Server.Proto3 {
		return "the server does not accept HELLO 3", nil
	}
	for _, g := range []*cases.Gates{c.File.Requires, c.Requires} {
		if g == nil {
			continue
		}
		if reason, err := t.skipGates(ctx, g, proto); reason != "" || err != nil {
			return reason, err
		}
	}
	return "", nil
}

func (t *Target) skipGates(ctx context.Context, g *cases.Gates, proto int) (string, error) {
	if g.Proto != 0 && g.Proto != proto {
		return fmt.Sprintf("runs in RESP%d only", g.Proto), nil
	}
	if reason := t.topologyGate(g); reason != "" {
		return reason, nil
	}
	if len(g.Servers) > 0 {
		info := t.Server.Info(proto)
		ok := false
		var want []string
		for _, s := range g.Servers {
			ok = ok || s.Match(info)
			want = append(want, s.Text)
		}
		if !ok {
			return fmt.Sprintf("requires %s (server is %s %s)", strings.Join(want, " or "), t.Server.Family, t.Server.Version), nil
		}
	}
	if g.Since != nil && !g.Since.Match(t.Server.Info(proto)) {
		rv := t.Server.RedisVersion
		if rv == "" {
			rv = "unknown: INFO server has none"
		}
		return fmt.Sprintf("requires %s (server is %s %s, redis_version %s)", g.Since.Text, t.Server.Family, t.Server.Version, rv), nil
	}
	if g.Debug && !t.Server.Debug {
		return "requires DEBUG (enable-debug-command is off)", nil
	}
	for _, name := range g.Commands {
		if ok, err := t.HasCommand(ctx, name); err != nil || !ok {
			return commandGate(name, err, "requires command %s (COMMAND INFO has no entry)")
		}
	}
	for _, name := range g.Absent {
		if ok, err := t.HasCommand(ctx, name); err != nil || ok {
			return commandGate(name, err, "requires command %s to be absent (COMMAND INFO knows it)")
		}
	}
	for _, p := range g.Probes {
		pr := t.probe(ctx, p, proto)
		if pr.err != nil {
			return "", fmt.Errorf("probe at %s could not run: %w", p.Pos, pr.err)
		}
		if !pr.ok {
			return fmt.Sprintf("feature probe %s failed: %s", probeText(p), pr.detail), nil
		}
	}
	return "", nil
}

func commandGate(name string, err error, format string) (string, error) {
	if err != nil {
		return "", fmt.Errorf("could not check command %s: %w", name, err)
	}
	return fmt.Sprintf(format, name), nil
}

// Alive reports whether the server still answers PING, twice, 200 ms
// apart: a process that is crashing (printing its panic, say) can still
// accept and answer for a moment. Any reply counts, even an error
// (-NOAUTH): the question is whether the process answers. A ping that
// times out (a second) is tried again, up to three times: on a loaded
// machine a live server's answer took longer (a 10-minute run of
// clients --generate, 48 library sessions at once on 2 CPUs, was ended
// as "the server stopped answering" after 5 minutes, the server
// serving). A refused connection is final; a frozen server is found so
// within about seven seconds.
func (t *Target) Alive() bool {
	if !t.pingAgain() {
		return false
	}
	time.Sleep(200 * time.Millisecond)
	return t.pingAgain()
}

// pingAgain is ping, tried again after a timeout (pingTries in all).
func (t *Target) pingAgain() bool {
	for i := 0; ; i++ {
		err := t.ping()
		if err == nil {
			return true
		}
		if i+1 == pingTries || !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
			return false
		}
	}
}

// pingTries is how many times Alive's ping is tried after timeouts.
const pingTries = 3

func (t *Target) ping() error {
	probe := t.Config
	probe.Timeout, probe.Password, probe.DB = time.Second, "", 0
	c, err := probe.Dial(context.Background(), 2)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Do("PING")
	return err
}

// DBSize returns DBSIZE of the configured database; on a cluster, the sum
// of every primary's.
func (t *Target) DBSize(ctx context.Context) (int64, error) {
	cfgs := []Config{t.Config}
	if topo := t.Current(); topo != nil {
		cfgs = cfgs[:0]
		for _, s := range topo.Shards {
			cfgs = append(cfgs, t.NodeConfig(s.Primary.Addr))
		}
	}
	var total int64
	for _, cfg := range cfgs {
		n, err := dbSize(ctx, cfg)
		if err != nil {
			return -1, err
		}
		total += n
	}
	return total, nil
}

func dbSize(ctx context.Context, cfg Config) (int64, error) {
	c, err := cfg.Dial(ctx, 2)
	if err != nil {
		return -1, err
	}
	defer c.Close()
	v, err := c.Do("DBSIZE")
	if err != nil {
		return -1, err
	}
	if v.Kind != resp.Integer {
		return -1, &ReplyError{Cmd: "DBSIZE", Reply: v.Clone()}
	}
	return v.Int, nil
}

// KeysByDB counts the keys of every database of the server (of every
// primary in a cluster), from INFO keyspace: "db0:keys=3,...". FLUSHALL,
// SWAPDB and MOVE reach databases other than the selected one, so an
// empty selected database does not make an existing server empty. A
// server whose INFO keyspace is refused (a proxy) counts the selected
// database alone (DBSIZE), under its number.
func (t *Target) KeysByDB(ctx context.Context) (map[int]int64, error) {
	cfgs := []Config{t.Config}
	if topo := t.Current(); topo != nil {
		cfgs = cfgs[:0]
		for _, s := range topo.Shards {
			cfgs = append(cfgs, t.NodeConfig(s.Primary.Addr))
		}
	}
	keys := map[int]int64{}
	for _, cfg := range cfgs {
		c, err := cfg.Dial(ctx, 2)
		if err != nil {
			return nil, err
		}
		v, err := c.Do("INFO", "keyspace")
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("INFO keyspace: %w", err)
		}
		if v.Kind != resp.BlobString && v.Kind != resp.VerbatimString {
			n, err := dbSize(ctx, cfg)
			if err != nil {
				return nil, fmt.Errorf("DBSIZE: %w", err)
			}
			keys[cfg.DB] += n
			continue
		}
		for _, line := range strings.Split(string(v.Str), "\n") {
			var db int
			var n int64
			if _, err := fmt.Sscanf(strings.TrimSpace(line), "db%d:keys=%d", &db, &n); err == nil && n > 0 {
				keys[db] += n
			}
		}
	}
	return keys, nil
}

// DeleteCaseKeys removes every key under a case's key prefix (DeleteKeys)
// on a connection of its own to the node that serves the prefix's slot
// (the server itself, off a cluster), and returns how many it removed.
// ctx bounds the whole of it: its end breaks off the dial or the
// round trip under way.
func (t *Target) DeleteCaseKeys(ctx context.Context, prefix string) (int, error) {
	return t.onKeySlot(ctx, prefix, func(c *Conn) (int, error) { return DeleteKeys(c, prefix) })
}

// onKeySlot runs f on a connection of its own (RESP2) to the node that
// serves the slot of a case's key prefix, closed after; ctx's end breaks
// off the dial or the round trip under way.
func (t *Target) onKeySlot(ctx context.Context, prefix string, f func(*Conn) (int, error)) (int, error) {
	c, _, err := t.DialSlot(ctx, 2, KeySlot(prefix), "")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.NC.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	return f(c)
}

// DeleteKeys removes every key whose name starts with prefix, with SCAN
// MATCH and UNLINK, and returns how many it removed. Keys that SCAN returns
// without the prefix (a server or proxy that ignores MATCH) are never
// deleted.
func DeleteKeys(c *Conn, prefix string) (int, error) {
	pattern := globEscape(prefix) + "*"
	cursor := "0"
	n := 0
	// A SCAN that never returns cursor 0 (a broken server or proxy) must
	// not keep the run forever: 100,000 rounds of COUNT 1000 is far more
	// than any keyspace a case makes.
	for round := 0; round < 100000; round++ {
		v, err := c.Do("SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return n, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return n, &ReplyError{Cmd: "SCAN", Reply: v.Clone()}
		}
		cursor = string(v.Elems[0].Str)
		args := []string{"UNLINK"}
		for _, k := range v.Elems[1].Elems {
			if strings.HasPrefix(string(k.Str), prefix) {
				args = append(args, string(k.Str))
			}
		}
		if len(args) > 1 {
			d, err := c.Do(args...)
			if err != nil {
				return n, err
			}
			if d.Kind == resp.Integer {
				n += int(d.Int)
			}
		}
		if cursor == "0" {
			return n, nil
		}
	}
	return n, fmt.Errorf("SCAN MATCH %s did not finish", pattern)
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// prefetchBatch bounds the names of one COMMAND INFO of Prefetch.
const prefetchBatch = 256

// Prefetch asks COMMAND INFO of every name in names (command names, or
// "container|subcommand") in one call per prefetchBatch names and caches
// the answers as CommandInfo would, so that a run pays one call for the
// commands its cases send instead of one per distinct command (issue 36:
// 261 COMMAND INFO calls for a corpus of 352 small cases). For each name
// that turns out to be a container command (CONFIG, CLIENT, OBJECT, ...),
// subs gives the subcommands wanted, asked in a second round. A reply
// that is not one entry (or nil) per name, in order, caches nothing:
// CommandInfo then asks name by name, as before. Errors are the
// connection's.
func (t *Target) Prefetch(ctx context.Context, names []string, subs map[string][]string) error {
	known, err := t.prefetch(ctx, names)
	if err != nil {
		return err
	}
	var more []string
	for _, name := range known {
		if info, _ := t.cached(name); info.Container {
			for _, sub := range subs[name] {
				more = append(more, name+"|"+sub)
			}
		}
	}
	_, err = t.prefetch(ctx, more)
	return err
}

// cached returns the cached CommandInfo of a lower-case name.
func (t *Target) cached(name string) (CommandInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	info, found := t.infos[name]
	return info, found
}

// prefetch is one round of Prefetch: the names not cached yet, lower-cased,
// asked prefetchBatch at a time; it returns the names it cached as known.
func (t *Target) prefetch(ctx context.Context, names []string) ([]string, error) {
	var ask []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.ToLower(n)
		if _, found := t.cached(n); !found && !seen[n] && n != "" {
			seen[n] = true
			ask = append(ask, n)
		}
	}
	if len(ask) == 0 {
		return nil, nil
	}
	c, err := t.Dial(ctx, 2)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var known []string
	for len(ask) > 0 {
		batch := ask[:min(len(ask), prefetchBatch)]
		ask = ask[len(batch):]
		v, err := c.Do(append([]string{"COMMAND", "INFO"}, batch...)...)
		if err != nil {
			return known, err
		}
		infos, ok := entries(v, batch)
		if !ok {
			return known, nil // asked name by name later
		}
		t.mu.Lock()
		for i, name := range batch {
			t.infos[name] = infos[i]
			if infos[i].Known {
				known = append(known, name)
			}
		}
		t.mu.Unlock()
	}
	return known, nil
}

// entries reads a COMMAND INFO reply to names: one entry (named as asked)
// or nil per name, in order; ok is false for any other shape.
func entries(v resp.Value, names []string) (_ []CommandInfo, ok bool) {
	if v.Kind != resp.Array || len(v.Elems) != len(names) {
		return nil, false
	}
	infos := make([]CommandInfo, len(names))
	for i, e := range v.Elems {
		switch {
		case e.Kind == resp.Null || e.Kind == resp.NilBlobString || e.Kind == resp.NilArray:
		case e.Kind == resp.Array && len(e.Elems) >= 6 && strings.EqualFold(string(e.Elems[0].Str), names[i]):
			infos[i].Known = true
			fillInfo(&infos[i], e.Elems)
		default:
			return nil, false
		}
	}
	return infos, true
}

// Sibling returns a Target for another server of the same build as t (a
// pool's, or one started again in its place): cfg reaches it, and it
// starts with t's cached command table (COMMAND INFO answers), which the
// build decides.
func (t *Target) Sibling(cfg Config) *Target {
	s := New(cfg, t.Server)
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range t.infos {
		s.infos[k] = v
	}
	return s
}
