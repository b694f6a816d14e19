package explore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Exec runs a sequence on one target in proto, from the prepared
// keyspace, and returns the exact bytes of each command's reply (pushes
// left out). An error means the target did not answer every command: the
// replies read before it are returned with it.
type Exec func(ctx context.Context, proto int, seq [][]string) ([][]byte, error)

// sentinel ends every sequence: its reply (the same blob string in RESP2
// and RESP3) is the last, so a command answered twice, or not at all, is
// seen (a desyncError), not taken for the next command's reply.
var sentinel = []string{"ECHO", "respcheck-explore-end"}

var sentinelReply = []byte("$21\r\nrespcheck-explore-end\r\n")

// desyncError is a target that sent another number of replies than the
// sequence had commands: Replies are what it sent before the sentinel's
// (Redis 8.6.3 answers SET k v IFDNE 3 GET twice: the old value, then
// "-ERR must be exactly 16 hexadecimal characters").
type desyncError struct {
	Commands int
	Replies  [][]byte
}

func (e *desyncError) Error() string {
	return fmt.Sprintf("%d replies to %d commands", len(e.Replies), e.Commands)
}

// LostError is a target that closed the connection, or sent nothing within
// the deadline, after Answered of a sequence's commands.
type LostError struct {
	Answered int
	Err      error
}

func (e *LostError) Error() string {
	return fmt.Sprintf("no reply to command %d: %v", e.Answered+1, e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// ConnExec is the Exec of a server reached with cfg: one connection per
// protocol, kept between sequences and opened again after an error. Each
// sequence is one pipelined write: UNLINK of the keyspace, its setup, the
// commands (a busy block, see busyBlock, splits it in parts and uses a
// second connection of the protocol). timeout bounds a sequence's round
// trip, and each part's. The returned func removes the keyspace's keys and
// closes the connections.
func ConnExec(cfg target.Config, timeout time.Duration) (Exec, func()) {
	conns := map[int]*target.Conn{}
	seconds := map[int]*scriptConn{}
	// threshold is the server's lua-time-limit, read once (a block that
	// failed may have left 10 ms for a while: see busyCleanup).
	var threshold *string
	closeAll := func() {
		for p, cn := range conns {
			// The keyspace is left as it was found: nothing under {rx}:.
			cn.NC.SetDeadline(time.Now().Add(timeout))
			cn.NC.Write(resp.AppendCommandString(nil, keyspaceUnlink()...))
			cn.R.Read()
			cn.Close()
			delete(conns, p)
		}
		for p, sc := range seconds {
			sc.cn.Close()
			delete(seconds, p)
		}
	}
	return func(ctx context.Context, proto int, seq [][]string) ([][]byte, error) {
		cn := conns[proto]
		if cn == nil {
			var err error
			if cn, err = cfg.Dial(ctx, proto); err != nil {
				return nil, &LostError{Err: err}
			}
			conns[proto] = cn
		}
		second := func() (*scriptConn, error) {
			if sc := seconds[proto]; sc != nil {
				return sc, nil
			}
			sc, err := dialScriptConn(ctx, cfg, proto, timeout, threshold)
			if err == nil {
				seconds[proto], threshold = sc, &sc.threshold
			}
			return sc, err
		}
		out, err := runOn(cn, second, seq, timeout)
		if err != nil {
			cn.Close()
			delete(conns, proto)
			if sc := seconds[proto]; sc != nil {
				sc.cn.Close()
				delete(seconds, proto)
			}
			if threshold != nil && nextBusy(seq, 0) < len(seq) {
				busyCleanup(ctx, cfg, *threshold, timeout)
			}
		}
		return out, err
	}, closeAll
}

// keyspaceUnlink is UNLINK of every key of the keyspace.
func keyspaceUnlink() []string {
	del := []string{"UNLINK"}
	for _, k := range keyspace {
		del = append(del, KeyPrefix+k.Name)
	}
	return del
}

// preamble is the reset and setup of the keyspace, as one pipelined write.
func preamble() ([]byte, int) {
	b := resp.AppendCommandString(nil, keyspaceUnlink()...)
	n := 1
	for _, k := range keyspace {
		if k.Setup == nil {
			continue
		}
		args := append([]string(nil), k.Setup...)
		args[1] = KeyPrefix + k.Name
		b = resp.AppendCommandString(b, args...)
		n++
	}
	return b, n
}

// runOn sends the preamble and seq on cn and reads the replies: one
// pipelined write, or, when seq holds busy blocks, the parts between them
// one after the other, each ended by the sentinel, and each block as
// busyBlock runs it (second gives the connection that runs its script).
func runOn(cn *target.Conn, second func() (*scriptConn, error), seq [][]string, timeout time.Duration) ([][]byte, error) {
	pre, skip := preamble()
	out := make([][]byte, 0, len(seq))
	for start := 0; ; {
		m := nextBusy(seq, start)
		var extra [][]string
		switch {
		case m == len(seq):
			// What the sequence may leave on the connection is removed
			// before the last sentinel (closers); their replies are not
			// the sequence's.
			extra = closers(seq)
		case slices.ContainsFunc(seq[start:m], func(a []string) bool { return len(a) > 0 && strings.EqualFold(a[0], "MULTI") }):
			// A block the shrinker cut before its EXEC would queue the
			// sentinel, and the busy block's commands.
			extra = [][]string{{"DISCARD"}}
		}
		if m > start || pre != nil || m == len(seq) {
			r, err := pipeline(cn, pre, skip, seq[start:m], extra, timeout)
			out = append(out, r...)
			if err != nil {
				return out, partErr(err, len(seq), out)
			}
		}
		if m == len(seq) {
			return out, nil
		}
		pre, skip = nil, 0
		end := blockEnd(seq, m)
		sc, err := second()
		if err != nil {
			return out, &LostError{Answered: len(out), Err: err}
		}
		r, err := busyBlock(cn, sc, seq[m:end], timeout)
		out = append(out, r...)
		if err != nil {
			return out, partErr(err, len(seq), out)
		}
		start = end
	}
}

// partErr is a part's error as the whole sequence's (of n commands, out
// its replies read so far): a LostError counts every command answered
// before, a desyncError holds every reply.
func partErr(err error, n int, out [][]byte) error {
	var le *LostError
	if errors.As(err, &le) {
		return &LostError{Answered: len(out), Err: le.Err}
	}
	var de *desyncError
	if errors.As(err, &de) {
		return &desyncError{Commands: n, Replies: out}
	}
	return err
}

// pipeline writes pre (skip commands whose replies are not returned),
// cmds, extra (replies not returned either) and the sentinel on cn as one
// write, and returns the replies to cmds; a reply count off is a
// desyncError, a reply not read a LostError.
func pipeline(cn *target.Conn, pre []byte, skip int, cmds, extra [][]string, timeout time.Duration) ([][]byte, error) {
	b := pre
	for _, args := range cmds {
		b = resp.AppendCommandString(b, args...)
	}
	for _, c := range extra {
		b = resp.AppendCommandString(b, c...)
	}
	b = resp.AppendCommandString(b, sentinel...)
	cn.NC.SetDeadline(time.Now().Add(timeout))
	if _, err := cn.NC.Write(b); err != nil {
		return nil, &LostError{Err: err}
	}
	out := make([][]byte, 0, len(cmds)+len(extra))
	for i := 0; ; {
		v, err := cn.R.Read()
		if err != nil {
			return out[:min(len(out), len(cmds))], &LostError{Err: err}
		}
		switch {
		case v.Kind == resp.Push:
			continue
		case i >= skip && bytes.Equal(v.Raw, sentinelReply):
			if len(out) != len(cmds)+len(extra) {
				return out, &desyncError{Commands: len(cmds), Replies: out}
			}
			return out[:len(cmds)], nil
		case i >= skip:
			out = append(out, bytes.Clone(v.Raw))
		}
		i++
	}
}

// closers are the commands that undo what seq may leave on its
// connection, in this order: a DISCARD after any MULTI (a block the
// shrinker cut before its EXEC, or whose DISCARD a mutation gave an
// argument, would queue the sentinel; outside a transaction it is an
// error), an UNWATCH after any WATCH, a CLIENT SETNAME "" after any
// CLIENT SETNAME (a mutation may send a valid name). Each sequence starts
// from the same connection state on every target, whichever reconnected.
func closers(seq [][]string) [][]string {
	var multi, watch, name bool
	for _, args := range seq {
		if len(args) == 0 {
			continue
		}
		switch strings.ToUpper(args[0]) {
		case "MULTI":
			multi = true
		case "WATCH":
			watch = true
		case "CLIENT":
			name = name || len(args) > 1 && strings.EqualFold(args[1], "SETNAME")
		}
	}
	var out [][]string
	if multi {
		out = append(out, []string{"DISCARD"})
	}
	if watch {
		out = append(out, []string{"UNWATCH"})
	}
	if name {
		out = append(out, []string{"CLIENT", "SETNAME", ""})
	}
	return out
}

// sameUnordered says whether a and b are aggregates with the same elements
// (a map's, or RESP2's flat array of one when pairs: the same pairs) in
// another order.
func sameUnordered(a, b []byte, pairs bool) bool {
	_, va, err1 := resp.Parse(a)
	_, vb, err2 := resp.Parse(b)
	if err1 != nil || err2 != nil || va.Kind != vb.Kind || len(va.Elems) != len(vb.Elems) {
		return false
	}
	switch va.Kind {
	case resp.Array, resp.Set, resp.Map, resp.Push:
	default:
		return false // a scalar has no order: it is equal or not
	}
	return bytes.Equal(elemKey(va, pairs), elemKey(vb, pairs))
}

// elemKey is the sorted concatenation of v's elements' (or pairs') bytes.
func elemKey(v resp.Value, pairs bool) []byte {
	step := 1
	if v.Kind == resp.Map || v.Kind == resp.Attribute || pairs && v.Kind == resp.Array {
		step = 2
	}
	var parts [][]byte
	for i := 0; i+step <= len(v.Elems); i += step {
		var p []byte
		for _, e := range v.Elems[i : i+step] {
			p = append(p, canon(e)...)
		}
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return bytes.Compare(parts[i], parts[j]) < 0 })
	return bytes.Join(parts, []byte{0})
}

// class is a reply's part of a difference's signature (args the command
// it answers): its RESP type and, for an error, the first three words of
// its text with digits blanked and the command's arguments left out (GEOADD's "ERR invalid longitude,latitude pair 1.5,inf" and
// "... pair inf,inf" are one difference; "ERR syntax error" and "ERR
// value is not an integer" two).
func class(b []byte, args []string) string {
	_, v, err := resp.Parse(b)
	if err != nil {
		return "malformed"
	}
	k := v.Kind.String()
	if v.Kind == resp.SimpleError || v.Kind == resp.BlobError {
		t := bytes.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, v.Str)
		words := firstN(strings.Fields(string(t)), 3)
		for i, w := range words {
			// An argument the text quotes ("ERR member x") is not part
			// of what differs.
			if slices.Contains(args[1:], strings.Trim(w, "'\"`,:")) {
				words[i] = "…"
			} else if len(w) > 20 {
				words[i] = w[:20] + "…"
			}
		}
		return k + " " + strings.Join(words, " ")
	}
	return k
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
