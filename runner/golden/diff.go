package golden

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// Change is one difference between two golden directories.
type Change struct {
	File string // suite file base name ("strings")
	Case string // case name; empty for a whole-file change
	// Proto is the protocol of the case (0 for a whole-file change).
	Proto int
	// Step is the step index, or -1 for a whole-case change.
	Step int
	// What says what differs: "only in A", "status", "reply", "sent", "push".
	What string
	// A and B are the two sides: escaped bytes or a short text.
	A, B string
	// CLIA and CLIB are the redis-cli renderings of replies (empty when the
	// bytes are not one RESP frame or not a reply).
	CLIA, CLIB string
	// Command is the step's sent bytes (from A, else B), escaped.
	Command string
	// Line is the step's case-file line.
	Line int
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// Volatile includes steps that either recording marks volatile; by
	// default their replies are not compared (they differ from run to run).
	Volatile bool
}

// Diff lists the differences between two golden directories: files, cases
// and steps present in one only, case statuses, and the bytes of steps
// present in both. Changes come grouped by file (sorted), then in A's case
// order (cases only in B last), then by step.
func Diff(a, b *Dir, opt DiffOptions) []Change {
	var out []Change
	bases := map[string]bool{}
	for k := range a.Files {
		bases[k] = true
	}
	for k := range b.Files {
		bases[k] = true
	}
	var names []string
	for k := range bases {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, base := range names {
		fa, fb := a.Files[base], b.Files[base]
		switch {
		case fb == nil:
			out = append(out, Change{File: base, Step: -1, What: "only in A", A: fa.Path})
			continue
		case fa == nil:
			out = append(out, Change{File: base, Step: -1, What: "only in B", B: fb.Path})
			continue
		}
		if fa.SHA256 != fb.SHA256 {
			out = append(out, Change{File: base, Step: -1, What: "case file",
				A: "sha256 " + fa.SHA256, B: "sha256 " + fb.SHA256})
		}
		out = append(out, diffFile(base, fa, fb, opt)...)
	}
	return out
}

func diffFile(base string, fa, fb *File, opt DiffOptions) []Change {
	var out []Change
	seen := map[string]bool{}
	key := func(c *Case) string { return fmt.Sprintf("%s\x00%d", c.Name, c.Proto) }
	for _, ca := range fa.Cases {
		seen[key(ca)] = true
		cb := fb.Find(ca.Name, ca.Proto)
		if cb == nil {
			out = append(out, Change{File: base, Case: ca.Name, Proto: ca.Proto, Step: -1, What: "only in A", A: statusText(ca)})
			continue
		}
		out = append(out, diffCase(base, ca, cb, opt)...)
	}
	for _, cb := range fb.Cases {
		if !seen[key(cb)] {
			out = append(out, Change{File: base, Case: cb.Name, Proto: cb.Proto, Step: -1, What: "only in B", B: statusText(cb)})
		}
	}
	return out
}

func statusText(c *Case) string {
	s := c.Status
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return fmt.Sprintf("%s (%d steps)", s, len(c.Steps))
}

func diffCase(base string, ca, cb *Case, opt DiffOptions) []Change {
	var out []Change
	mk := func(step int, what string) Change {
		return Change{File: base, Case: ca.Name, Proto: ca.Proto, Step: step, What: what}
	}
	if ca.Status != cb.Status {
		ch := mk(-1, "status")
		ch.A, ch.B = statusText(ca), statusText(cb)
		out = append(out, ch)
	}
	idx := map[int]bool{}
	for _, s := range ca.Steps {
		idx[s.Index] = true
	}
	for _, s := range cb.Steps {
		idx[s.Index] = true
	}
	var order []int
	for i := range idx {
		order = append(order, i)
	}
	sort.Ints(order)
	for _, i := range order {
		sa, sb := ca.Step(i), cb.Step(i)
		switch {
		case sb == nil:
			ch := mk(i, "only in A")
			ch.Command, ch.Line = sentText(sa), sa.CaseLine
			ch.A, ch.CLIA = replyText(sa.Reply)
			out = append(out, ch)
			continue
		case sa == nil:
			ch := mk(i, "only in B")
			ch.Command, ch.Line = sentText(sb), sb.CaseLine
			ch.B, ch.CLIB = replyText(sb.Reply)
			out = append(out, ch)
			continue
		}
		cmd, line := sentText(sa), sa.CaseLine
		if sa.Sent != nil && sb.Sent != nil && !sa.Sent.Equal(*sb.Sent) {
			ch := mk(i, "sent")
			ch.Command, ch.Line = cmd, line
			ch.A, ch.B = blobText(*sa.Sent), blobText(*sb.Sent)
			out = append(out, ch)
		}
		if (sa.Volatile || sb.Volatile) && !opt.Volatile {
			continue
		}
		if !sameReply(sa, sb) {
			what := "reply"
			if (sa.Reply == nil) == (sb.Reply == nil) && (sa.Reply == nil || sa.Reply.Equal(*sb.Reply)) {
				what = "push"
			}
			ch := mk(i, what)
			ch.Command, ch.Line = cmd, line
			if what == "push" {
				ch.A, ch.B = pushesText(sa.Pushes), pushesText(sb.Pushes)
			} else {
				ch.A, ch.CLIA = replyText(sa.Reply)
				ch.B, ch.CLIB = replyText(sb.Reply)
			}
			out = append(out, ch)
		}
	}
	return out
}

func sentText(s *Step) string {
	if s.Sent == nil {
		return s.Action
	}
	if !s.Sent.Full() {
		return blobText(*s.Sent)
	}
	if _, v, err := resp.Parse(s.Sent.Data); err == nil && v.Kind == resp.Array {
		var parts []string
		for _, e := range v.Elems {
			if bytes.ContainsAny(e.Str, " \"\\") || len(e.Str) == 0 || strings.IndexFunc(string(e.Str), func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
				parts = append(parts, resp.Escape(e.Str))
			} else {
				parts = append(parts, string(e.Str))
			}
		}
		return strings.Join(parts, " ")
	}
	return resp.Escape(s.Sent.Data)
}

func replyText(b *Blob) (string, string) {
	if b == nil {
		return "(no reply read)", ""
	}
	if !b.Full() {
		return blobText(*b), ""
	}
	cli := ""
	if n, v, err := resp.Parse(b.Data); err == nil && n == len(b.Data) {
		cli = v.CLI()
	}
	return resp.Escape(b.Data), cli
}

func pushesText(ps []Blob) string {
	if len(ps) == 0 {
		return "(no push frames)"
	}
	var s []string
	for _, p := range ps {
		s = append(s, blobText(p))
	}
	return strings.Join(s, ", ")
}

// WriteDiff prints changes as a table a reviewer can read: grouped by file
// and case, each step with its command, both sides escaped and as redis-cli
// shows them. nameA and nameB label the sides.
func WriteDiff(w io.Writer, changes []Change, nameA, nameB string) {
	width := max(len(nameA), len(nameB))
	label := func(n string) string { return n + ":" + strings.Repeat(" ", width-len(n)) }
	pad := strings.Repeat(" ", width+1)
	lastFile, lastCase := "", ""
	for _, c := range changes {
		if c.File != lastFile {
			fmt.Fprintf(w, "\n== %s\n", c.File)
			lastFile, lastCase = c.File, ""
		}
		if c.Case == "" {
			fmt.Fprintf(w, "  file %s\n", c.What)
			if c.A != "" {
				fmt.Fprintf(w, "    %s %s\n", label(nameA), c.A)
			}
			if c.B != "" {
				fmt.Fprintf(w, "    %s %s\n", label(nameB), c.B)
			}
			continue
		}
		ck := fmt.Sprintf("%s [RESP%d]", c.Case, c.Proto)
		if ck != lastCase {
			fmt.Fprintf(w, "  case %q [RESP%d]\n", c.Case, c.Proto)
			lastCase = ck
		}
		if c.Step < 0 {
			fmt.Fprintf(w, "    %s\n", c.What)
		} else {
			loc := ""
			if c.Line > 0 {
				loc = fmt.Sprintf(" (line %d)", c.Line)
			}
			fmt.Fprintf(w, "    step %d%s %s: %s\n", c.Step, loc, c.What, c.Command)
		}
		side := func(name, text, cli string) {
			if text == "" {
				fmt.Fprintf(w, "      %s (absent)\n", label(name))
				return
			}
			fmt.Fprintf(w, "      %s %s\n", label(name), text)
			if cli != "" {
				for _, l := range strings.Split(cli, "\n") {
					fmt.Fprintf(w, "      %s %s\n", pad, l)
				}
			}
		}
		side(nameA, c.A, c.CLIA)
		side(nameB, c.B, c.CLIB)
	}
}
