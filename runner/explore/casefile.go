package explore

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/cases"
)

// Sides name the two targets of a case file: Name is how a case's name
// calls each ("redis 8.6.3"); BWhen is the selector that matches B and not
// A ("valkey", "miniredis", "redis>=8.6"), under which B's replies are
// expected.
type Sides struct {
	AName, BName, BWhen string
}

// CaseFile renders findings as one case file (a lost target's or a
// desync's as comments; the noise is rep's) in the
// project's format: each finding a case whose steps create the keys its
// sequence names (the keyspace's setup commands, keys as {key:NAME}
// templates), then send the sequence, each step expecting A's reply, and
// B's under sides.BWhen where they differ, in RESP2 and RESP3 as each
// target answered when the sequence ran again for this file. A command
// learned to be noise expects any reply. suite is the file's title;
// header is written as comment lines first.
func CaseFile(ctx context.Context, a, b Exec, findings []*Finding, rep *Report, sides Sides, suite, header string) ([]byte, error) {
	noise, unordered := map[string]bool{}, map[string]bool{}
	for _, n := range rep.Noise {
		noise[n] = true
	}
	for _, n := range rep.Unordered {
		unordered[n] = true
	}
	e := &explorer{words: rep.words}
	var buf bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		fmt.Fprintf(&buf, "# %s\n", l)
	}
	fmt.Fprintf(&buf, "suite: %s\ncases:\n", quote(suite))
	n := 0
	names := map[string]int{}
	for _, f := range findings {
		if f.Lost != "" || f.Desync || f.Schema != "" {
			// A crash, a freeze, a reply count off or a reply its schema
			// rejects: the report's reproducer, not a case of two servers.
			fmt.Fprintf(&buf, "\n  # not a case: %s\n", f.Signature)
			for _, args := range f.Seq {
				fmt.Fprintf(&buf, "  #   %s\n", sendList(args))
			}
			continue
		}
		ra, rb, err := again(ctx, a, b, f.Seq)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// It did not run again as it ran (a server lost on it):
			// not a case that could run in a suite.
			fmt.Fprintf(&buf, "\n  # not a case: %s: %v\n", f.Signature, err)
			continue
		}
		n++
		fmt.Fprintf(&buf, "\n  # %s (seen in %d sequences; shrunk from %d commands)\n", f.Signature, f.Seen, f.Original)
		// Two findings of one command with replies of the same classes
		// (a plain EVAL's error and the script layer's, folded under
		// EVAL) get "#2" on the second name: names are unique in a file.
		name := CaseName(f, sides)
		names[name]++
		if k := names[name]; k > 1 {
			name += fmt.Sprintf(" #%d", k)
		}
		fmt.Fprintf(&buf, "  - name: %s\n", quote(name))
		writeSteps(&buf, f.Seq, func(i int) string { return expectation(e, f.Seq[i], ra, rb, i, noise, unordered, sides) })
	}
	if n == 0 {
		return nil, nil
	}
	return buf.Bytes(), nil
}

// writeSteps writes the steps (and cleanup) of a case that sends seq:
// the keyspace's setup of the keys it names, then each command with the
// expectation expect gives for it (its lines, indented under the step).
// A busy block (busy.go) becomes the bundled suite's busy-script steps:
// the threshold lowered for the case and set back in cleanup, the script
// sent async on connection busy, a sleep past the threshold, the block's
// commands, its kill, and the script's reply read.
func writeSteps(buf *bytes.Buffer, seq [][]string, expect func(i int) string) {
	busy := nextBusy(seq, 0) < len(seq)
	if busy {
		buf.WriteString("    exclusive: true\n")
	}
	buf.WriteString("    steps:\n")
	for _, k := range keyspace {
		if k.Setup != nil && usesKey(seq, k.Name) {
			args := append([]string(nil), k.Setup...)
			args[1] = KeyPrefix + k.Name
			fmt.Fprintf(buf, "      - send: %s\n", sendList(args))
		}
	}
	if busy {
		buf.WriteString("      - send: [CONFIG, GET, lua-time-limit]\n        capture: {name: threshold, match: 'lua-time-limit\\r\\n\\$\\d+\\r\\n(\\d+)'}\n")
		buf.WriteString("      - {send: [CONFIG, SET, lua-time-limit, \"10\"], reply: \"+OK\\r\\n\"}\n")
	}
	for i := 0; i < len(seq); {
		kill := busyKill(seq[i])
		if kill == "" {
			fmt.Fprintf(buf, "      - send: %s\n%s", sendList(seq[i]), expect(i))
			i++
			continue
		}
		if kill == "FUNCTION" {
			fmt.Fprintf(buf, "      - send: %s\n        reply: \"$%d\\r\\n%s\\r\\n\"\n", sendList([]string{"FUNCTION", "LOAD", "REPLACE", busyLibrary}), len(busyFunction), busyFunction)
		}
		fmt.Fprintf(buf, "      - conn: busy\n        async: true\n        send: %s\n      - sleep: 200ms\n", sendList(seq[i]))
		end := blockEnd(seq, i)
		for j := i + 1; j < end; j++ {
			fmt.Fprintf(buf, "      - send: %s\n%s", sendList(seq[j]), expect(j))
		}
		if end == i+1 || !isKill(seq[end-1], kill) {
			fmt.Fprintf(buf, "      - send: [%s, KILL]\n        any: true\n", kill)
		}
		fmt.Fprintf(buf, "      - conn: busy\n        read: true\n%s", expect(i))
		i = end
	}
	if busy {
		buf.WriteString("    cleanup:\n      - {send: [CONFIG, SET, lua-time-limit, \"{cap:threshold}\"], reply: \"+OK\\r\\n\"}\n")
		fmt.Fprintf(buf, "      - {send: [FUNCTION, DELETE, %s], any: true}\n", busyFunction)
	}
}

// expectation is the lines that expect the replies ra and rb (by
// protocol) of command i, args: A's, and B's under sides.BWhen where they
// differ. A command learned to be noise expects any reply, but for an
// error (compared: see sameError).
func expectation(e *explorer, args []string, ra, rb [4][][]byte, i int, noise, unordered map[string]bool, sides Sides) string {
	if noise[e.name(args)] && !(isError(ra[2][i]) && isError(ra[3][i])) {
		return "        any: true\n"
	}
	un := unordered[e.name(args)]
	field, want := expectOf(ra[2][i], ra[3][i], un)
	if bytes.Equal(ra[2][i], rb[2][i]) && bytes.Equal(ra[3][i], rb[3][i]) {
		return fmt.Sprintf("        %s: %s\n", field, want)
	}
	bfield, bwant := expectOf(rb[2][i], rb[3][i], un)
	return fmt.Sprintf("        expect:\n          - {when: %s, %s: %s}\n          - {%s: %s}\n", quote(sides.BWhen), bfield, bwant, field, want)
}

// CaseName is the name of f's case in CaseFile: its command and the two
// replies' classes, unique as signatures are.
func CaseName(f *Finding, sides Sides) string {
	last := f.Seq[len(f.Seq)-1]
	return fmt.Sprintf("%s: %s on %s, %s on %s", f.Command, class(f.A, last), sides.AName, class(f.B, last), sides.BName)
}

// again runs seq on a and b in RESP2 and RESP3: the replies by protocol.
func again(ctx context.Context, a, b Exec, seq [][]string) (ra, rb [4][][]byte, err error) {
	for _, p := range []int{2, 3} {
		if ra[p], err = a(ctx, p, seq); err != nil {
			return ra, rb, fmt.Errorf("again on A in RESP%d: %w", p, err)
		}
		if rb[p], err = b(ctx, p, seq); err != nil {
			return ra, rb, fmt.Errorf("again on B in RESP%d: %w", p, err)
		}
	}
	return ra, rb, nil
}

// usesKey says whether a command of seq names the keyspace's key name.
func usesKey(seq [][]string, name string) bool {
	for _, args := range seq {
		for _, a := range args {
			if a == KeyPrefix+name {
				return true
			}
		}
	}
	return false
}

// expectOf is the expectation of a step answered r2 in RESP2 and r3 in
// RESP3: the exact bytes (field reply), or for a command whose replies
// have no order (unordered) a typed value whose elements may come in any
// order (field value), where both replies are aggregates of scalars.
func expectOf(r2, r3 []byte, unordered bool) (field, text string) {
	if unordered {
		v2, ok2 := cases.UnorderedValue(r2, quoteKeys)
		v3, ok3 := cases.UnorderedValue(r3, quoteKeys)
		switch {
		case ok2 && ok3 && v2 == v3:
			return "value", v2
		case ok2 && ok3:
			return "value", "{resp2: " + v2 + ", resp3: " + v3 + "}"
		}
	}
	return "reply", replyOf(r2, r3)
}

// quoteKeys is b as a quoted template, each keyspace key as {key:NAME}.
func quoteKeys(b []byte) string { return `"` + escape(b) + `"` }

// replyOf is the reply expectation of a step answered r2 in RESP2 and r3
// in RESP3: one literal, or a protocol selector map.
func replyOf(r2, r3 []byte) string {
	if bytes.Equal(r2, r3) {
		return replyTemplate(r2)
	}
	return "{resp2: " + replyTemplate(r2) + ", resp3: " + replyTemplate(r3) + "}"
}

// keyBlob is a blob string holding exactly one keyspace key.
var keyBlob = regexp.MustCompile(`\$\d+\r\n` + regexp.QuoteMeta(KeyPrefix) + `([a-z0-9]+)\r\n`)

// replyTemplate writes reply bytes as a quoted template: a blob string
// holding a key becomes ${len:{key:NAME}}, another mention of a key
// {key:NAME}.
func replyTemplate(r []byte) string {
	var out strings.Builder
	out.WriteByte('"')
	rest := r
	for len(rest) > 0 {
		loc := keyBlob.FindSubmatchIndex(rest)
		if loc == nil {
			out.WriteString(escape(rest))
			break
		}
		out.WriteString(escape(rest[:loc[0]]))
		name := string(rest[loc[2]:loc[3]])
		out.WriteString(`${len:{key:` + name + `}}\r\n{key:` + name + `}\r\n`)
		rest = rest[loc[1]:]
	}
	out.WriteByte('"')
	return out.String()
}

// sendList writes a command as a YAML flow list of quoted templates.
func sendList(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = `"` + escape([]byte(a)) + `"`
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// escape writes b for the inside of a double-quoted YAML template: the
// keyspace's keys as {key:NAME}, the rest as cases.QuoteBytes writes it.
func escape(b []byte) string {
	var out strings.Builder
	for len(b) > 0 {
		if bytes.HasPrefix(b, []byte(KeyPrefix)) {
			j := len(KeyPrefix)
			for j < len(b) && (b[j] >= 'a' && b[j] <= 'z' || b[j] >= '0' && b[j] <= '9') {
				j++
			}
			if j > len(KeyPrefix) {
				out.WriteString("{key:" + string(b[len(KeyPrefix):j]) + "}")
				b = b[j:]
				continue
			}
		}
		j := 0
		for j < len(b) && !bytes.HasPrefix(b[j:], []byte(KeyPrefix)) {
			j++
		}
		if j == 0 {
			j = 1 // a key prefix with no name after it: its first byte as is
		}
		q := cases.QuoteBytes(b[:j])
		out.WriteString(q[1 : len(q)-1])
		b = b[j:]
	}
	return out.String()
}

// quote is s as a double-quoted YAML string.
func quote(s string) string { return strconv.Quote(s) }
