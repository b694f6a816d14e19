package runner

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/target"
)

// TestPatternPositions finds the key patterns of KEYS, SCAN and SORT.
func TestPatternPositions(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []int
	}{
		{"KEYS *", []int{1}},
		{"KEYS", nil},
		{"SCAN 0 MATCH a* COUNT 10", []int{3}},
		{"SCAN 0 COUNT 10", nil},
		{"HSCAN h 0 MATCH f*", nil}, // fields, not keys
		{"SORT l BY w_* GET o_* GET # STORE d", []int{3, 5}},
		{"SORT l BY nosort", nil},
		{"sort_ro l by w_*", []int{3}},
	} {
		if got := target.PatternPositions(bytes.Fields([]byte(tc.args))); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestRawSpans keeps what is between and after commands.
func TestRawSpans(t *testing.T) {
	b := []byte("\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n  \r\n")
	cmds, spans, ok := rawSpans(b)
	if !ok || len(cmds) != 2 {
		t.Fatalf("%q: %d commands, ok %v", b, len(cmds), ok)
	}
	var parts []string
	for _, s := range spans {
		parts = append(parts, string(b[s[0]:s[1]]))
	}
	if got := strings.Join(parts, "|"); got != "PING\r\n|*2\r\n$3\r\nGET\r\n$1\r\nk\r\n" {
		t.Errorf("spans %q", got)
	}
}
