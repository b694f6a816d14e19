package cases

import (
	"bytes"
	"fmt"
	"strconv"
)

// checkFrame reports whether b is exactly one complete RESP2/RESP3 frame
// (an attribute prefix included). It is a static sanity check of byte-exact
// expectations, so that a forgotten "\r\n" is a load error rather than a
// reply that can never match.
func checkFrame(b []byte) error {
	n, err := frameLen(b, 0, 0)
	if err != nil {
		return err
	}
	if n != len(b) {
		return fmt.Errorf("%d unexpected bytes after the end of the frame: %q", len(b)-n, clip(b[n:]))
	}
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 24 {
		return append(b[:24:24], "..."...)
	}
	return b
}

var errIncomplete = fmt.Errorf("incomplete frame (missing \"\\r\\n\"?)")

// line returns the end of the line starting at i (the index of '\r').
func line(b []byte, i int) (int, error) {
	k := bytes.IndexByte(b[i:], '\n')
	if k < 0 {
		return 0, errIncomplete
	}
	end := i + k
	if end == i || b[end-1] != '\r' {
		return 0, fmt.Errorf("line %q ends in a bare \"\\n\" (want \"\\r\\n\")", clip(b[i:end]))
	}
	if j := bytes.IndexByte(b[i:end-1], '\r'); j >= 0 {
		return 0, fmt.Errorf("stray \"\\r\" in line %q", clip(b[i:end]))
	}
	return end - 1, nil
}

func isInt(s []byte) bool {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// frameLen returns the offset just past the frame starting at i.
func frameLen(b []byte, i, depth int) (int, error) {
	if depth > 64 {
		return 0, fmt.Errorf("frame nested too deep")
	}
	if i >= len(b) {
		return 0, errIncomplete
	}
	t := b[i]
	end, err := line(b, i+1)
	if err != nil {
		return 0, err
	}
	head := b[i+1 : end]
	next := end + 2
	switch t {
	case '+', '-':
		return next, nil
	case ':', '(':
		if !isInt(head) {
			return 0, fmt.Errorf("bad number %q after %q", head, t)
		}
		return next, nil
	case ',':
		if len(head) == 0 {
			return 0, fmt.Errorf("empty double")
		}
		return next, nil
	case '#':
		if string(head) != "t" && string(head) != "f" {
			return 0, fmt.Errorf("bad boolean %q (want t or f)", head)
		}
		return next, nil
	case '_':
		if len(head) != 0 {
			return 0, fmt.Errorf("bad null %q (want \"_\\r\\n\")", b[i:next])
		}
		return next, nil
	case '$', '!', '=':
		if t == '$' && string(head) == "?" {
			return streamedBlob(b, next)
		}
		if t == '$' && string(head) == "-1" {
			return next, nil
		}
		n, err := strconv.Atoi(string(head))
		if err != nil || n < 0 || !isInt(head) {
			return 0, fmt.Errorf("bad length %q after %q", head, t)
		}
		if next+n+2 > len(b) {
			return 0, fmt.Errorf("%q frame declares %d bytes but only %d follow (length or \"\\r\\n\" wrong?)", t, n, max(0, len(b)-next-2))
		}
		if b[next+n] != '\r' || b[next+n+1] != '\n' {
			return 0, fmt.Errorf("%q frame of declared length %d is not followed by \"\\r\\n\" (wrong length?)", t, n)
		}
		if t == '=' && (n < 4 || b[next+3] != ':') {
			return 0, fmt.Errorf("verbatim string without a 3-byte format and ':'")
		}
		return next + n + 2, nil
	case '*', '~', '%', '|', '>':
		mult := 1
		if t == '%' || t == '|' {
			mult = 2
		}
		if string(head) == "?" && t != '|' && t != '>' {
			for j := next; ; {
				if j+3 <= len(b) && string(b[j:j+3]) == ".\r\n" {
					return j + 3, nil
				}
				if j, err = frameLen(b, j, depth+1); err != nil {
					return 0, err
				}
			}
		}
		if t == '*' && string(head) == "-1" {
			return next, nil
		}
		n, err := strconv.Atoi(string(head))
		if err != nil || n < 0 || !isInt(head) {
			return 0, fmt.Errorf("bad count %q after %q", head, t)
		}
		j := next
		for k := 0; k < n*mult; k++ {
			if j, err = frameLen(b, j, depth+1); err != nil {
				return 0, err
			}
		}
		if t == '|' {
			// An attribute is followed by the value it annotates.
			return frameLen(b, j, depth+1)
		}
		return j, nil
	}
	return 0, fmt.Errorf("unknown RESP type byte %q", t)
}

func streamedBlob(b []byte, i int) (int, error) {
	for {
		if i >= len(b) || b[i] != ';' {
			return 0, fmt.Errorf("streamed string chunk does not start with ';'")
		}
		end, err := line(b, i+1)
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(string(b[i+1 : end]))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad chunk length %q", b[i+1:end])
		}
		i = end + 2
		if n == 0 {
			return i, nil
		}
		if i+n+2 > len(b) || b[i+n] != '\r' || b[i+n+1] != '\n' {
			return 0, errIncomplete
		}
		i += n + 2
	}
}
