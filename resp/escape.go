package resp

const hexDigits = "0123456789abcdef"

// Escape renders b as a double-quoted, printable, unambiguous string for
// diffs and error messages: printable ASCII (0x20-0x7e) as is except `"` and
// `\`, which become \" and \\; \r, \n and \t as those escapes; every other
// byte (UTF-8 multibyte sequences included) as \xNN with lowercase hex.
// Example: Escape([]byte("$8\r\noriginal\r\n")) is `"$8\r\noriginal\r\n"`.
func Escape(b []byte) string {
	return string(appendEscaped(make([]byte, 0, len(b)+2), b, false))
}

// appendEscaped appends the quoted rendering of b. With cli set it follows
// redis-cli's sdscatrepr, which additionally writes \a and \b.
func appendEscaped(dst, b []byte, cli bool) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case cli && c == '\a':
			dst = append(dst, '\\', 'a')
		case cli && c == '\b':
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
