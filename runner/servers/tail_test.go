package servers

import (
	"strings"
	"testing"
)

// TestTail: a Tail keeps its last Max bytes, and Since gives what came
// after a mark, cut to what is kept.
func TestTail(t *testing.T) {
	tl := &Tail{Max: 8}
	tl.Write([]byte("abcd"))
	m := tl.Mark()
	tl.Write([]byte("efgh"))
	if got := tl.Since(m); got != "efgh" {
		t.Errorf("Since = %q, want efgh", got)
	}
	tl.Write([]byte("ijklmn"))
	if got := tl.String(); got != "ghijklmn" {
		t.Errorf("String = %q, want the last 8 bytes", got)
	}
	if got := tl.Since(m); got != "ghijklmn" {
		t.Errorf("Since a mark older than what is kept = %q, want all that is kept", got)
	}
	if got := tl.Since(1 << 40); got != "ghijklmn" {
		t.Errorf("Since another Tail's mark = %q, want all that is kept", got)
	}
	var zero Tail
	zero.Write([]byte(strings.Repeat("x", 20<<10)))
	if n := len(zero.String()); n != 16<<10 {
		t.Errorf("the zero Tail keeps %d bytes, want 16 KiB", n)
	}
}
