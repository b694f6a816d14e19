package resp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestRestartOffset: after RestartOffset the next frame starts at offset 0,
// and a syntax error in it names its offset from there.
func TestRestartOffset(t *testing.T) {
	r := resp.NewReader(strings.NewReader("+PONG\r\n$3\r\nabcd\r\n"))
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	r.RestartOffset()
	if r.Offset() != 0 {
		t.Errorf("Offset after RestartOffset = %d, want 0", r.Offset())
	}
	_, err := r.Read()
	var se *resp.SyntaxError
	if !errors.As(err, &se) || se.Offset != 0 {
		t.Errorf("error %v, want a SyntaxError at offset 0", err)
	}
}
