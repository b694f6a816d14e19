package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// sendBig sends a large command (see bigCommand) by streaming it, with its
// literal keys in the namespace, after the guard of shared runs (prepare,
// which sees the command's small arguments).
func (x *caseRun) sendBig(ctx context.Context, c *conn, timeout time.Duration, st *cases.Step, sr *StepResult) error {
	small := x.smallArgs(st)
	for i := range small {
		if x.long(st, i) {
			// A long argument is an "x" to prepare: if it is a key, its
			// name is not the one prepare notes for the case's cleanup.
			x.caseKeys(ctx).Open()
			break
		}
	}
	args, err := x.prepare(ctx, c, small)
	if err != nil {
		return err
	}
	var over map[int][]byte
	for i, a := range args {
		if i < len(small) && !bytes.Equal(a, small[i]) && x.long(st, i) && x.guarded() {
			return &refusal{fmt.Sprintf("sends %s with a key argument over %d bytes outside the case's namespace", resp.Escape(args[0]), target.MaxGetkeysArg)}
		}
		// A key over target.MaxGetkeysArg bytes (an "x" in small) keeps its name.
		if i >= len(small) || !bytes.Equal(a, small[i]) && !x.long(st, i) {
			if over == nil {
				over = map[int][]byte{}
			}
			over[i] = a
		}
	}
	sr.Args, sr.Sent, sr.SentSize, sr.SentSHA256, err = x.streamCommand(c, timeout, st, over)
	return writeError(err)
}

// long reports whether argument i of st expands to more than
// target.MaxGetkeysArg bytes (smallArgs replaces it).
func (x *caseRun) long(st *cases.Step, i int) bool {
	n, err := st.Send[i].Size(x.env)
	return err == nil && n > target.MaxGetkeysArg
}

// smallArgs expands the arguments of a large command for the guard, each
// longer than target.MaxGetkeysArg replaced by "x", or by the key prefix
// and "x" when it starts with the prefix (a key of the case): a long
// argument that namespace renames is a key outside the namespace.
func (x *caseRun) smallArgs(st *cases.Step) [][]byte {
	args := make([][]byte, len(st.Send))
	for i := range st.Send {
		if x.long(st, i) {
			head := &headWriter{capWriter{max: len(x.env.KeyPrefix)}}
			st.Send[i].WriteTo(x.env, head)
			args[i] = []byte("x")
			if string(head.b) == x.env.KeyPrefix {
				args[i] = []byte(x.env.KeyPrefix + "x")
			}
			continue
		}
		args[i], _ = st.Send[i].Expand(x.env)
	}
	return args
}

// bigCommand reports whether a send step's command is larger than maxKept
// and so is streamed (streamCommand) rather than built in memory.
func (x *caseRun) bigCommand(st *cases.Step) (bool, error) {
	var total int64
	for i := range st.Send {
		n, err := st.Send[i].Size(x.env)
		if err != nil {
			return false, err
		}
		total += n + 16
	}
	return total > maxKept, nil
}

// streamCommand sends a large command as an array of blob strings,
// generating each argument straight onto the socket (a 64 MiB generated
// value costs no 64 MiB buffer). It returns the argument prefixes and the
// first 4 KiB of the command for reports, the command's size, and its
// SHA-256 with the key prefix normalised (for goldens). over holds the
// arguments namespace changed (literal keys moved into the namespace) or
// added (SCAN's MATCH), by position: those are sent instead of the step's.
func (x *caseRun) streamCommand(c *conn, timeout time.Duration, st *cases.Step, over map[int][]byte) (args [][]byte, kept []byte, size int, sum string, err error) {
	c.extend(timeout)
	h := sha256.New()
	head := &capWriter{max: 4096}
	out := &countWriter{w: io.MultiWriter(c.w, &prefixHasher{h: h, prefix: []byte(x.env.KeyPrefix)}, head)}
	argc := len(st.Send)
	for argc < len(st.Send)+len(over) && over[argc] != nil {
		argc++
	}
	fmt.Fprintf(out, "*%d\r\n", argc)
	for i := range argc {
		if a, ok := over[i]; ok {
			fmt.Fprintf(out, "$%d\r\n%s\r\n", len(a), a)
			args = append(args, x.keep(a))
			continue
		}
		t := &st.Send[i]
		n, err := t.Size(x.env)
		if err != nil {
			return nil, nil, 0, "", err
		}
		fmt.Fprintf(out, "$%d\r\n", n)
		argHead := &capWriter{max: 4096}
		if _, err := t.WriteTo(x.env, io.MultiWriter(out, argHead)); err != nil {
			return nil, nil, 0, "", err
		}
		io.WriteString(out, "\r\n")
		args = append(args, x.keep(argHead.b))
	}
	if err := c.w.Flush(); err != nil {
		return nil, nil, 0, "", err
	}
	return args, x.keep(head.b), out.n, hex.EncodeToString(h.Sum(nil)), nil
}

// capWriter keeps the first max bytes written to it.
type capWriter struct {
	b   []byte
	max int
}

// Write keeps what fits of p and reports it all written.
func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// headWriter is a capWriter that fails once full, which ends a
// template's WriteTo: smallArgs reads the first bytes of a long argument
// without generating the rest.
type headWriter struct{ capWriter }

// errFull ends a headWriter's writes.
var errFull = errors.New("full")

func (w *headWriter) Write(p []byte) (int, error) {
	n, _ := w.capWriter.Write(p)
	if len(w.b) >= w.max {
		return n, errFull
	}
	return n, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int
}

// Write writes p through and counts it.
func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += n
	return n, err
}

// prefixHasher hashes what is written with the key prefix replaced by
// KeyPlaceholder within each write (Template.WriteTo writes a key in one
// piece), as hexSHA256 does for a whole buffer.
type prefixHasher struct {
	h      hash.Hash
	prefix []byte
}

// Write hashes p with the prefix replaced and reports it all written.
func (w *prefixHasher) Write(p []byte) (int, error) {
	q := p
	if len(w.prefix) > 0 && bytes.Contains(q, w.prefix) {
		q = bytes.ReplaceAll(q, w.prefix, []byte(KeyPlaceholder))
	}
	w.h.Write(q)
	return len(p), nil
}
