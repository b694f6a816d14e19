package resp

import (
	"bytes"
	"encoding/hex"
	"errors"
)

// Errors of ReadCommand for a command the server refuses with a protocol
// error (and then closes the connection); n still covers the command.
var (
	// ErrUnbalancedQuotes: an inline command whose quotes do not close, or
	// a closing quote followed by more of the word (Redis answers "-ERR
	// Protocol error: unbalanced quotes in request").
	ErrUnbalancedQuotes = errors.New("resp: unbalanced quotes in inline command")
	// ErrNotBlobStrings: a command array holding another type than blob
	// strings (Redis answers "-ERR Protocol error: expected '$', got
	// ...").
	ErrNotBlobStrings = errors.New("resp: command array of other types than blob strings")
)

// ReadCommand reads the first client command of b as Redis and Valkey read
// a query buffer: a RESP array of blob strings, or an inline command (a
// line that does not start with '*', up to its "\n", split into arguments
// as sdssplitargs does). It returns the arguments and n,
// the bytes the command takes, and:
//   - args nil and err nil for an inline line with no words (the server
//     skips it);
//   - n == 0 and err nil when b ends inside the command (more is to come);
//   - ErrUnbalancedQuotes (args split at spaces, quotes trimmed) or
//     ErrNotBlobStrings (args the elements' Value.Str) for a command the
//     server refuses;
//   - n == 0 and a *SyntaxError for bytes that are not RESP.
//
// The arguments alias b.
func ReadCommand(b []byte) (args [][]byte, n int, err error) {
	if len(b) == 0 {
		return nil, 0, nil
	}
	if b[0] != '*' {
		line, _, found := bytes.Cut(b, []byte("\n"))
		if !found {
			return nil, 0, nil
		}
		args, ok := splitInline(line)
		if !ok {
			args, err = quotesTrimmed(line), ErrUnbalancedQuotes
		}
		return args, len(line) + 1, err
	}
	n, v, err := Parse(b)
	switch {
	case err != nil:
		return nil, 0, err
	case n == 0:
		return nil, 0, nil
	case v.Kind != Array:
		return nil, 0, &SyntaxError{Err: ErrNotBlobStrings, Context: "a command is an array, not " + v.Kind.String()}
	}
	args = make([][]byte, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != BlobString {
			err = ErrNotBlobStrings
		}
		args[i] = e.Str
	}
	return args, n, err
}

// quotesTrimmed splits line at white space and trims quotes from the words:
// an approximation of a line with unbalanced quotes.
func quotesTrimmed(line []byte) [][]byte {
	f := bytes.Fields(bytes.TrimRight(line, "\r"))
	for i := range f {
		f[i] = bytes.Trim(f[i], `"'`)
	}
	return f
}

// splitInline splits an inline command line (without its "\n") into its
// arguments as the server does (sdssplitargs in Redis 7.0 to 8.6 and
// Valkey's src/sds.c): words end at a space, tab, CR, LF or NUL (a
// vertical tab or form feed inside a word is part of it), quotes may start
// inside a word, "..." reads \xHH and \n-style escapes, '...' reads \'.
// The server stops at a NUL (its line never ends: strchr finds no newline
// past it), so the words before it are returned. ok is false for
// unbalanced quotes, which the server refuses.
func splitInline(line []byte) (args [][]byte, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	isSpace := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return args, true
		}
		cur := []byte{}
		inq, insq := false, false
		for done := false; !done; p++ {
			c := at(p)
			switch {
			case c == 0:
				if inq || insq {
					return nil, false
				}
				done = true
			case inq && c == '\\' && at(p+1) == 'x' && p+3 < len(line) && hexByte(line[p+2:p+4]) >= 0:
				cur = append(cur, byte(hexByte(line[p+2:p+4])))
				p += 3
			case inq && c == '\\' && at(p+1) != 0:
				p++
				cur = append(cur, unescape(line[p]))
			case inq && c == '"', insq && c == '\'':
				if at(p+1) != 0 && !isSpace(at(p+1)) {
					return nil, false
				}
				done = true
			case insq && c == '\\' && at(p+1) == '\'':
				cur = append(cur, '\'')
				p++
			case inq || insq:
				cur = append(cur, c)
			case c == ' ' || c == '\n' || c == '\r' || c == '\t':
				done = true
			case c == '"':
				inq = true
			case c == '\'':
				insq = true
			default:
				cur = append(cur, c)
			}
		}
		args = append(args, cur)
	}
}

// unescape is the byte that \c stands for in a double-quoted inline
// argument: \n, \r, \t, \b and \a, else c itself.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

// hexByte is the byte two hex digits give, or -1.
func hexByte(b []byte) int {
	var out [1]byte
	if _, err := hex.Decode(out[:], b); err != nil {
		return -1
	}
	return int(out[0])
}
