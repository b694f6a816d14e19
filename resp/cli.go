package resp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// CLIMode is one of redis-cli's reply formats (src/redis-cli.c
// cliFormatReply, the same in redis 7.0.15 and 8.6.3 and valkey-cli 9.1.2).
type CLIMode uint8

// The formats.
const (
	// CLIStandard is cliFormatReplyTTY: the default when stdout is a
	// terminal, or --no-raw.
	CLIStandard CLIMode = iota
	// CLIRaw is cliFormatReplyRaw followed by the command delimiter
	// ("\n"): the default when stdout is not a terminal, or --raw.
	CLIRaw
	// CLIVerbatim is cliFormatReplyRaw alone, in either mode: the replies
	// of the commands redis-cli prints verbatim (INFO, CLIENT LIST, ...:
	// cliSendCommand's output_raw).
	CLIVerbatim
)

// CLIUnprintableError says that redis-cli cannot print a reply: its
// formatters have no case for the type (big numbers: "Unknown reply type:
// 13" on stderr, then exit 1), or its reader refuses it (attributes).
type CLIUnprintableError struct {
	Kind Kind
}

func (e *CLIUnprintableError) Error() string {
	return fmt.Sprintf("redis-cli cannot print a %s (cliFormatReplyTTY and cliFormatReplyRaw have no case for it)", e.Kind)
}

// CLIOutput returns exactly the bytes redis-cli writes to stdout for the
// reply v in mode, final newline included, or a *CLIUnprintableError when
// v holds a type redis-cli cannot print (a big number or an attribute,
// anywhere in it). The rules, from src/redis-cli.c cliFormatReplyTTY and
// cliFormatReplyRaw (redis 7.0.15 and 8.6.3; valkey-cli 9.1.2 has the same
// code) and hiredis, which hands redis-cli a verbatim string without its
// "fmt:" and a double as the server's text:
//
//	                   CLIStandard                    CLIRaw
//	simple string      OK (up to a NUL byte)          OK
//	error              (error) ERR x (up to a NUL)    ERR x + "\n"
//	integer            (integer) 42                   42
//	double             (double) 3.14 (server text)    3.14
//	blob string        "a\n\x00" (sdscatrepr)         the bytes as they are
//	verbatim string    the text after "fmt:"          the same
//	nil, null          (nil)                          nothing
//	boolean            (true) / (false)               (true) / (false)
//	array, set, push   1) ..., 1~ ... (set), index    elements, one per line
//	                   right-aligned, nested under
//	                   their index
//	map                1# key => value (a value of    key value, one pair
//	                   several lines starts on the    per line
//	                   next line)
//	empty aggregates   (empty array), (empty hash),   nothing
//	                   (empty set), (empty push)
//
// Every format but CLIVerbatim ends the reply with "\n".
func (v Value) CLIOutput(mode CLIMode) ([]byte, error) {
	p := cliPrinter{raw: mode != CLIStandard}
	out := p.reply(nil, &v, nil)
	if p.err != nil {
		return nil, p.err
	}
	if mode == CLIRaw {
		out = append(out, '\n')
	}
	return out, nil
}

// CLI renders v the way redis-cli prints it in its standard (terminal)
// format, without the final newline, for reports: CLIOutput(CLIStandard),
// except for what redis-cli cannot print, shown here in a form of
// respcheck's own: a big number as "(big number) 12345", and an attribute
// as its pairs `|1) key => value`, one line each, before the value.
func (v Value) CLI() string {
	p := cliPrinter{display: true}
	return strings.TrimSuffix(string(p.reply(nil, &v, nil)), "\n")
}

// cliPrinter is one rendering: raw or standard; display renders what
// redis-cli cannot print instead of failing (err).
type cliPrinter struct {
	raw, display bool
	err          error
	multi        map[*Value]bool // multiline's answers
}

func (p *cliPrinter) reply(out []byte, v *Value, prefix []byte) []byte {
	if v.Attr != nil && v.Attr.Kind == Attribute {
		if !p.display {
			p.err = &CLIUnprintableError{Kind: Attribute}
			return out
		}
		out = p.attribute(out, v.Attr, prefix)
	}
	if p.raw {
		return p.rawReply(out, v)
	}
	switch v.Kind {
	case SimpleString:
		out = append(out, upToNUL(v.Str)...)
	case SimpleError, BlobError:
		out = append(out, "(error) "...)
		out = append(out, upToNUL(v.Str)...)
	case Integer:
		out = append(out, "(integer) "...)
		out = strconv.AppendInt(out, v.Int, 10)
	case Double:
		out = append(out, "(double) "...)
		out = append(out, upToNUL(textOf(v))...)
	case BlobString:
		out = appendEscaped(out, v.Str, quoteCLI)
	case VerbatimString:
		out = append(out, v.Str...)
	case NilBlobString, NilArray, Null:
		out = append(out, "(nil)"...)
	case Boolean:
		out = append(out, boolText(v.Bool)...)
	case Array, Map, Set, Push, Attribute:
		return p.aggregate(out, v, prefix)
	default:
		return p.unprintable(out, v)
	}
	return append(out, '\n')
}

// unprintable is a type redis-cli's formatters have no case for.
func (p *cliPrinter) unprintable(out []byte, v *Value) []byte {
	if !p.display {
		p.err = &CLIUnprintableError{Kind: v.Kind}
		return out
	}
	if v.Kind == BigNumber {
		out = append(out, "(big number) "...)
		out = append(out, v.Str...)
	} else {
		out = append(out, "(unknown)"...)
	}
	if !p.raw {
		out = append(out, '\n')
	}
	return out
}

// rawReply is cliFormatReplyRaw: no type markers, no quoting, elements one
// per line (config.mb_delim), a map's key and value on one line.
func (p *cliPrinter) rawReply(out []byte, v *Value) []byte {
	switch v.Kind {
	case NilBlobString, NilArray, Null:
	case SimpleError, BlobError:
		out = append(out, v.Str...)
		out = append(out, '\n')
	case SimpleString, BlobString, VerbatimString:
		out = append(out, v.Str...)
	case Boolean:
		out = append(out, boolText(v.Bool)...)
	case Integer:
		out = strconv.AppendInt(out, v.Int, 10)
	case Double:
		out = append(out, upToNUL(textOf(v))...)
	case Array, Set, Push:
		for i := range v.Elems {
			if i > 0 {
				out = append(out, '\n')
			}
			out = p.reply(out, &v.Elems[i], nil)
		}
	case Map:
		for i := 0; i+1 < len(v.Elems); i += 2 {
			if i > 0 {
				out = append(out, '\n')
			}
			out = p.reply(out, &v.Elems[i], nil)
			out = append(out, ' ')
			out = p.reply(out, &v.Elems[i+1], nil)
		}
	default:
		return p.unprintable(out, v)
	}
	return out
}

func boolText(b bool) string {
	if b {
		return "(true)"
	}
	return "(false)"
}

// upToNUL is what a C string function (sdscat, %s) keeps of b.
func upToNUL(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// attribute is respcheck's display of an attribute (redis-cli has none).
func (p *cliPrinter) attribute(out []byte, a *Value, prefix []byte) []byte {
	for i := 0; i+1 < len(a.Elems); i += 2 {
		if i > 0 {
			out = append(out, prefix...)
		}
		out = append(out, '|')
		out = strconv.AppendInt(out, int64(i/2+1), 10)
		out = append(out, ')', ' ')
		out = p.reply(out, &a.Elems[i], indent(prefix, 4))
		out = trimNL(out)
		out = append(out, " => "...)
		out = p.reply(out, &a.Elems[i+1], indent(prefix, 4))
	}
	if len(a.Elems) > 1 {
		out = append(out, prefix...)
	}
	return out
}

func trimNL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b[:len(b)-1]
	}
	return b
}

// indent is prefix and n spaces. It appends to prefix's array: the
// prefixes of a rendering share one buffer, each level's a longer slice of
// it (a level's own bytes are never written again while it renders), so
// a reply nested n deep costs n bytes of prefix, not n²/2.
func indent(prefix []byte, n int) []byte {
	for range n {
		prefix = append(prefix, ' ')
	}
	return prefix
}

// multiline is cliIsMultilineValueTTY: whether the standard format
// renders v on several lines (a map's value then starts on a line of its
// own). The answer depends on the chain of single-element aggregates
// below v; it is kept for every node of the chain, so that the map values
// of maps nested n deep cost n steps, not n²/2.
func (p *cliPrinter) multiline(v *Value) bool {
	var chain []*Value
	res := false
	for v != nil {
		res = false
		if r, ok := p.multi[v]; ok {
			res = r
			break
		}
		chain = append(chain, v)
		var next *Value
		switch v.Kind {
		case Array, Set, Push:
			res = len(v.Elems) > 1
			if len(v.Elems) == 1 {
				next = &v.Elems[0]
			}
		case Map:
			res = len(v.Elems) > 2
			if len(v.Elems) == 2 {
				next = &v.Elems[1]
			}
		}
		v = next
	}
	if p.multi == nil {
		p.multi = map[*Value]bool{}
	}
	for _, c := range chain {
		p.multi[c] = res
	}
	return res
}

var emptyAggregate = map[Kind]string{Array: "(empty array)\n", Map: "(empty hash)\n", Set: "(empty set)\n", Push: "(empty push)\n"}

// aggregate is cliFormatReplyTTY's array, map, set and push case.
func (p *cliPrinter) aggregate(out []byte, v *Value, prefix []byte) []byte {
	if len(v.Elems) == 0 {
		if s, ok := emptyAggregate[v.Kind]; ok {
			return append(out, s...)
		}
		return append(out, "(empty aggregate type)\n"...)
	}
	n := len(v.Elems)
	pairs := v.Kind.isPairs()
	if pairs {
		n /= 2
	}
	width := len(strconv.Itoa(n))
	sub := indent(prefix, width+2)
	sep := byte(')')
	switch v.Kind {
	case Set:
		sep = '~'
	case Map:
		sep = '#'
	case Attribute:
		sep = '|'
	}
	for i := 0; i < len(v.Elems); i++ {
		idx := i + 1
		if pairs {
			idx = i/2 + 1
		}
		if i > 0 {
			out = append(out, prefix...)
		}
		s := strconv.Itoa(idx)
		for j := len(s); j < width; j++ {
			out = append(out, ' ')
		}
		out = append(out, s...)
		out = append(out, sep, ' ')
		out = p.reply(out, &v.Elems[i], sub)
		if pairs && i+1 < len(v.Elems) {
			i++
			out = trimNL(out)
			out = append(out, " => "...)
			if p.multiline(&v.Elems[i]) {
				out = append(out, '\n')
				out = append(out, sub...)
			}
			out = p.reply(out, &v.Elems[i], sub)
		}
	}
	return out
}
