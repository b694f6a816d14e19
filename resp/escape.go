package resp

import (
	"fmt"
	"strings"
)

const hexDigits = "0123456789abcdef"

// Escape renders b as a double-quoted, printable, unambiguous string for
// diffs and error messages: printable ASCII (0x20-0x7e) as is except `"` and
// `\`, which become \" and \\; \r, \n and \t as those escapes; every other
// byte (UTF-8 multibyte sequences included) as \xNN with lowercase hex.
// Example: Escape([]byte("$8\r\noriginal\r\n")) is `"$8\r\noriginal\r\n"`.
func Escape(b []byte) string {
	return string(appendEscaped(make([]byte, 0, len(b)+2), b, quoteDiff))
}

// quoting selects what appendEscaped writes for the bytes without a short
// escape (\" \\ \r \n \t, written by all).
type quoting int

const (
	quoteDiff quoting = iota // Escape: printable ASCII as is, other bytes \xNN
	quoteCLI                 // redis-cli's sdscatrepr: quoteDiff plus \a and \b
	quoteJSON                // a JSON string of valid UTF-8: control bytes \u00NN, others as is
)

// appendEscaped appends the quoted rendering of b under q.
func appendEscaped(dst, b []byte, q quoting) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		if esc := shortEscape(c); esc != 0 {
			dst = append(dst, '\\', esc)
			continue
		}
		switch {
		case q == quoteJSON && c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		case q == quoteJSON:
			dst = append(dst, c)
		case q == quoteCLI && c == '\a':
			dst = append(dst, '\\', 'a')
		case q == quoteCLI && c == '\b':
			dst = append(dst, '\\', 'b')
		case c >= 0x20 && c <= 0x7e:
			dst = append(dst, c)
		default:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return append(dst, '"')
}

// FirstDiff returns the offset of the first byte at which a and b differ,
// or the shorter length if one is a prefix of the other (so len(a) when
// they are equal): where a reply departs from the expected bytes.
func FirstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// shortEscape is the letter of the two-byte escape that every quoting
// writes for c (\" \\ \r \n \t), or 0 when c has none.
func shortEscape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case '\r':
		return 'r'
	case '\n':
		return 'n'
	case '\t':
		return 't'
	}
	return 0
}

// EscapeCommand renders a command's arguments for reports and logs, each
// Escape'd and separated by spaces; an argument over 64 bytes shows its
// first 48 and its size: `"SET" "k" "xxx…"…(1000 bytes)`.
func EscapeCommand(args [][]byte) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if len(a) > 64 {
			b.WriteString(Escape(a[:48]))
			fmt.Fprintf(&b, "…(%d bytes)", len(a))
			continue
		}
		b.WriteString(Escape(a))
	}
	return b.String()
}
