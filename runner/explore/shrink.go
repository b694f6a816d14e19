package explore

import (
	"context"
	"strings"
)

// shrink reduces seq, whose first difference has signature sig, to a
// shorter sequence with the same first difference: delta debugging
// (Zeller's ddmin) over the commands before the differing one, which is
// kept last, then each of its arguments dropped where the difference
// stays.
func (e *explorer) shrink(ctx context.Context, proto int, seq [][]string, sig string) [][]string {
	return e.shrinkBy(seq, func(s [][]string) bool {
		if ctx.Err() != nil {
			return false
		}
		d, err := e.diff(ctx, proto, s)
		return err == nil && d != nil && d.sig == sig && d.i == len(s)-1
	})
}

// shrinkBy reduces seq, for which holds is true, keeping its last command
// last: ddmin over the commands before it, then each of its arguments
// dropped where holds stays true.
func (e *explorer) shrinkBy(seq [][]string, holds func([][]string) bool) [][]string {
	last := seq[len(seq)-1]
	prefix := ddmin(seq[:len(seq)-1], func(p [][]string) bool { return holds(append(clone(p), last)) })
	// The name's words stay (and a script's EVAL, script and numkeys).
	cmd, head := last, 0
	if inner, _, ok := unwrapEval(last); ok {
		cmd, head = inner, evalHead
	}
	n := head + len(strings.Fields(e.name(cmd)))
	c, known := e.cmds[e.name(cmd)]
	for i := len(last) - 1; i >= n; i-- {
		cand := append(append([]string(nil), last[:i]...), last[i+1:]...)
		// Dropping a key moves the next argument to its place: only a
		// command that names no key outside the keyspace is sent.
		if known && !c.Safe(cand[head:]) {
			continue
		}
		if holds(append(clone(prefix), cand)) {
			last = cand
		}
	}
	return append(clone(prefix), last)
}

// ddmin returns a subsequence of s for which holds is true, from which no
// single command can be removed with holds still true when s is short;
// holds(s) is assumed true. It tries to remove chunks of halving size.
func ddmin(s [][]string, holds func([][]string) bool) [][]string {
	if holds(nil) {
		return nil
	}
	n := 2
	for len(s) >= 2 {
		chunk := (len(s) + n - 1) / n
		removed := false
		for start := 0; start < len(s); start += chunk {
			end := min(start+chunk, len(s))
			cand := append(clone(s[:start]), s[end:]...)
			if holds(cand) {
				s, n, removed = cand, max(n-1, 2), true
				break
			}
		}
		if !removed {
			if chunk == 1 {
				break
			}
			n = min(n*2, len(s))
		}
	}
	if len(s) == 1 && holds(nil) {
		return nil
	}
	return s
}

func clone(s [][]string) [][]string { return append([][]string(nil), s...) }
