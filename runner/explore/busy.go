package explore

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// A busy block is a script that runs past the server's busy-reply
// threshold on a second connection while the sequence's connection sends
// commands: what every other client is answered then (PING, GET: "-BUSY
// Redis is busy running a script..." or "Valkey is busy..."), what the
// kill that does not fit answers (FUNCTION KILL of an EVAL, SCRIPT KILL of
// an FCALL), and the script's own error once killed — the paths the
// bundled suite declares per server for PING, SCRIPT, FUNCTION and EVAL
// (cases/suite/scripting.yaml, "busy scripts"). A server runs nothing
// else meanwhile, for up to busyLimit: only throwaway targets get busy
// blocks (Options.Busy).
//
// In a sequence a block is its script command (the marker: EVAL of
// busyScript, or FCALL of busyFunction), then the commands sent while it
// runs, up to and including its kill (SCRIPT KILL or FUNCTION KILL); a
// block the shrinker cut before its kill is killed by the Exec (the reply
// not the sequence's). The marker's reply is the script's, read once it
// is killed.

// busyLimit is how long a busy script runs when nothing kills it.
const busyLimit = "1500000" // microseconds

// busyThreshold is the busy-reply-threshold (lua-time-limit, its alias
// since Redis 7.0 and the name Redis 6 knows) a busy block sets, in
// milliseconds; the value the server had is set again after the block.
const busyThreshold = "10"

// busyLoop is the body of the busy script and function: TIME until
// busyLimit has passed, then 'done'.
const busyLoop = "local t0 = redis.call('TIME') local s = t0[1] * 1000000 + t0[2] while true do local t = redis.call('TIME') if t[1] * 1000000 + t[2] - s > " + busyLimit + " then break end end return 'done'"

// busyScript is the EVAL marker's script (numkeys 0); busyFunction the
// FCALL marker's function, of the library busyLibrary.
var (
	busyScript   = "-- respcheck busy block\n" + busyLoop
	busyFunction = "respcheck_busy"
	busyLibrary  = "#!lua name=" + busyFunction + "\nredis.register_function('" + busyFunction + "', function(keys, args) " + busyLoop + " end)"
)

// busyKill is the kill of the block args starts ("SCRIPT" or "FUNCTION"),
// "" when args is not a busy block's marker.
func busyKill(args []string) string {
	switch {
	case len(args) < 2:
		return ""
	case strings.EqualFold(args[0], "EVAL") && args[1] == busyScript:
		return "SCRIPT"
	case strings.EqualFold(args[0], "FCALL") && args[1] == busyFunction:
		return "FUNCTION"
	}
	return ""
}

// isKill says whether args is the kill named kill.
func isKill(args []string, kill string) bool {
	return len(args) == 2 && strings.EqualFold(args[0], kill) && strings.EqualFold(args[1], "KILL")
}

// nextBusy is the index of the first busy marker of seq at or after
// start, len(seq) if none.
func nextBusy(seq [][]string, start int) int {
	for i := start; i < len(seq); i++ {
		if busyKill(seq[i]) != "" {
			return i
		}
	}
	return len(seq)
}

// blockEnd is the index after the busy block whose marker is seq[m]: after
// its kill, or before the first command a block does not hold (see
// inBlock), or the end. A block drawn without its kill (or cut before it
// by the shrinker) is killed by the Exec there: the commands after it run
// as any others (each would otherwise be answered BUSY, a finding per
// command name).
func blockEnd(seq [][]string, m int) int {
	kill := busyKill(seq[m])
	for i := m + 1; i < len(seq); i++ {
		if isKill(seq[i], kill) {
			return i + 1
		}
		if !inBlock(seq[i]) {
			return i
		}
	}
	return len(seq)
}

// inBlock says whether args is a command busyBlock draws inside a block:
// PING, ECHO, GET, or a kill (the one that does not fit).
func inBlock(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch strings.ToUpper(args[0]) {
	case "PING", "ECHO", "GET":
		return true
	}
	return isKill(args, "SCRIPT") || isKill(args, "FUNCTION")
}

// replyOrder is the order in which seq's replies are compared: the order
// of seq but for a busy block's marker, whose reply (the killed script's)
// comes after its block's: what the server answered meanwhile is the
// first difference, not hidden behind the script's error (Redis 8.6.3 and
// Valkey 9.1.2 word it differently).
func replyOrder(seq [][]string) []int {
	order := make([]int, 0, len(seq))
	for i := 0; i < len(seq); {
		if busyKill(seq[i]) == "" {
			order = append(order, i)
			i++
			continue
		}
		end := blockEnd(seq, i)
		for j := i + 1; j < end; j++ {
			order = append(order, j)
		}
		order = append(order, i)
		i = end
	}
	return order
}

// busyBlock draws a busy block: its marker (an FCALL one when the grammar
// has FCALL, half of the time), up to three commands (PING, ECHO, GET,
// the kill that does not fit) and, nine times in ten, its kill.
func (g *Generator) busyBlock() [][]string {
	marker, kill, other := []string{"EVAL", busyScript, "0"}, "SCRIPT", "FUNCTION"
	if g.functions && g.busyRng.IntN(2) == 0 {
		marker, kill, other = []string{"FCALL", busyFunction, "0"}, "FUNCTION", "SCRIPT"
	}
	out := [][]string{marker}
	// None a time in four: the killed script's own error is then the
	// block's first difference.
	for range g.busyRng.IntN(4) {
		switch g.busyRng.IntN(4) {
		case 0:
			out = append(out, []string{"PING"})
		case 1:
			out = append(out, []string{other, "KILL"})
		case 2:
			out = append(out, []string{"ECHO", edgeStrings[g.busyRng.IntN(6)]})
		default:
			// Every data command is answered BUSY alike: one is enough
			// (each would be a finding of its own).
			out = append(out, []string{"GET", KeyPrefix + "str"})
		}
	}
	if g.busyRng.IntN(10) < 9 {
		out = append(out, []string{kill, "KILL"})
	}
	return out
}

// scriptConn is the second connection of a protocol, that runs busy
// blocks' scripts, and the busy-reply-threshold its server had.
type scriptConn struct {
	cn        *target.Conn
	threshold string
}

// dialScriptConn opens a scriptConn, with the server's threshold as
// known (threshold, when not nil) or as read now.
func dialScriptConn(ctx context.Context, cfg target.Config, proto int, timeout time.Duration, threshold *string) (*scriptConn, error) {
	cn, err := cfg.Dial(ctx, proto)
	if err != nil {
		return nil, err
	}
	if threshold != nil {
		return &scriptConn{cn: cn, threshold: *threshold}, nil
	}
	rs, err := roundTrip(cn, timeout, []string{"CONFIG", "GET", "lua-time-limit"})
	if err != nil {
		cn.Close()
		return nil, err
	}
	sc := &scriptConn{cn: cn}
	if _, v, err := resp.Parse(rs[0]); err == nil && len(v.Elems) == 2 {
		sc.threshold = string(v.Elems[1].Str)
	}
	return sc, nil
}

// roundTrip writes cmds on cn as one write and reads their replies
// (pushes left out).
func roundTrip(cn *target.Conn, timeout time.Duration, cmds ...[]string) ([][]byte, error) {
	var b []byte
	for _, c := range cmds {
		b = resp.AppendCommandString(b, c...)
	}
	cn.NC.SetDeadline(time.Now().Add(timeout))
	if _, err := cn.NC.Write(b); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(cmds))
	for len(out) < len(cmds) {
		v, err := cn.R.Read()
		if err != nil {
			return out, err
		}
		if v.Kind != resp.Push {
			out = append(out, bytes.Clone(v.Raw))
		}
	}
	return out, nil
}

// busyBlock runs block (a marker, the commands up to its kill) with the
// marker on sc and the rest on cn: the threshold lowered (and an FCALL's
// library loaded) on sc, the marker sent there, PING on cn until the
// server answers BUSY (or the script has ended: a marker that errs, a
// server without the threshold), the commands sent on cn, the kill if
// block has none, the script's reply read; then the threshold set back
// and the library deleted. The replies are block's, the marker's first.
func busyBlock(cn *target.Conn, sc *scriptConn, block [][]string, timeout time.Duration) ([][]byte, error) {
	kill := busyKill(block[0])
	setup := [][]string{{"CONFIG", "SET", "lua-time-limit", busyThreshold}}
	if kill == "FUNCTION" {
		setup = append(setup, []string{"FUNCTION", "LOAD", "REPLACE", busyLibrary})
	}
	if _, err := roundTrip(sc.cn, timeout, setup...); err != nil {
		return nil, &LostError{Err: err}
	}
	script := make(chan scriptReply, 1)
	go func() {
		// The script runs up to busyLimit when nothing kills it.
		r, err := roundTrip(sc.cn, max(timeout, busyWait), block[0])
		if err != nil {
			script <- scriptReply{err: err}
			return
		}
		script <- scriptReply{reply: r[0]}
	}()
	waitErr := waitBusy(cn, script, timeout)
	cmds := block[1:]
	if len(cmds) == 0 || !isKill(cmds[len(cmds)-1], kill) {
		cmds = append(cmds[:len(cmds):len(cmds)], []string{kill, "KILL"})
	}
	var rs [][]byte
	if waitErr == nil {
		rs, waitErr = roundTrip(cn, timeout, cmds...)
	}
	sr := <-script // the deadline of sc bounds it
	out := [][]byte{sr.reply}
	if waitErr != nil || sr.err != nil {
		return nil, &LostError{Err: errors.Join(waitErr, sr.err)}
	}
	out = append(out, rs[:len(block)-1]...)
	restore := [][]string{{"CONFIG", "SET", "lua-time-limit", sc.threshold}}
	if kill == "FUNCTION" {
		restore = append(restore, []string{"FUNCTION", "DELETE", busyFunction})
	}
	if sc.threshold == "" {
		restore = restore[1:]
	}
	if len(restore) > 0 {
		if _, err := roundTrip(sc.cn, timeout, restore...); err != nil {
			return out, &LostError{Err: err}
		}
	}
	return out, nil
}

// busyWait bounds the wait for a busy script's reply: past busyLimit,
// whatever the sequence's timeout.
const busyWait = 4 * time.Second

// busyCleanup undoes, on a connection of its own, what a busy block that
// failed may have left on the server reached with cfg (a script still
// running, the threshold lowered, the function loaded): each command
// tried once, its reply not looked at. A server that is gone answers
// nothing, and nothing is waited for past timeout.
func busyCleanup(ctx context.Context, cfg target.Config, threshold string, timeout time.Duration) {
	cn, err := cfg.Dial(ctx, 2)
	if err != nil {
		return
	}
	defer cn.Close()
	// A killed script ends at its next check: what comes meanwhile is
	// answered BUSY.
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r, err := roundTrip(cn, timeout, []string{"SCRIPT", "KILL"}, []string{"FUNCTION", "KILL"}, []string{"PING"})
		if err != nil || len(r) == 3 && !bytes.HasPrefix(r[2], []byte("-BUSY")) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cmds := [][]string{{"FUNCTION", "DELETE", busyFunction}}
	if threshold != "" {
		cmds = append(cmds, []string{"CONFIG", "SET", "lua-time-limit", threshold})
	}
	roundTrip(cn, timeout, cmds...)
}

// scriptReply is what the script connection read: the marker's reply.
type scriptReply struct {
	reply []byte
	err   error
}

// waitBusy sends PING on cn until the server answers BUSY, or the script
// has ended (its reply is then left in script for the caller), within
// timeout.
func waitBusy(cn *target.Conn, script chan scriptReply, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case sr := <-script:
			script <- sr
			return nil
		default:
		}
		r, err := roundTrip(cn, timeout, []string{"PING"})
		if err != nil {
			return err
		}
		if bytes.HasPrefix(r[0], []byte("-BUSY")) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return errors.New("the busy script neither ended nor made the server busy")
}
