package runner

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/target"
)

// TestKeyIndexes maps COMMAND GETKEYS names to positions, asking again
// (with a changed argument) only where a name is found at more positions
// than it was given.
func TestKeyIndexes(t *testing.T) {
	// getKeys stands for EVAL's: the keys are the numkeys arguments after
	// the count, and a count that is not a number is an error (no keys).
	asked := 0
	evalKeys := func(args [][]byte) ([][]byte, error) {
		asked++
		var n int
		if _, err := fmt.Sscanf(string(args[2]), "%d", &n); err != nil || bytes.ContainsRune(args[2], 0) || 3+n > len(args) {
			return nil, nil
		}
		return args[3 : 3+n], nil
	}
	split := func(s string) [][]byte { return bytes.Fields([]byte(s)) }
	for _, tc := range []struct {
		args  string
		want  []int
		asked int
	}{
		{"EVAL s 2 a b x", []int{3, 4}, 0},
		{"EVAL s 1 1", []int{3}, 2},        // numkeys and key are both "1"
		{"EVAL s 1 a a", []int{3}, 2},      // ARGV[1] is the key's name too
		{"EVAL s 2 a a x", []int{3, 4}, 0}, // the same key twice
		{"EVAL s 0 a", nil, 0},
	} {
		args := split(tc.args)
		keys, _ := evalKeys(args)
		asked = 0
		got, err := keyIndexes(args, keys, evalKeys)
		if err != nil || !slices.Equal(got, tc.want) || asked != tc.asked {
			t.Errorf("%s: %v %v after %d questions, want %v after %d", tc.args, got, err, asked, tc.want, tc.asked)
		}
	}
}

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
		if got := patternPositions(bytes.Fields([]byte(tc.args))); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestKeyRange gives the positions of COMMAND INFO's legacy key range.
func TestKeyRange(t *testing.T) {
	for _, tc := range []struct {
		info target.CommandInfo
		argc int
		want []int
	}{
		{target.CommandInfo{FirstKey: 1, LastKey: 1, Step: 1}, 2, []int{1}},        // GET k
		{target.CommandInfo{FirstKey: 1, LastKey: -1, Step: 2}, 5, []int{1, 3}},    // MSET a 1 b 2
		{target.CommandInfo{FirstKey: 1, LastKey: 2, Step: 1}, 5, []int{1, 2}},     // LMOVE s d LEFT RIGHT
		{target.CommandInfo{FirstKey: 1, LastKey: -2, Step: 1}, 5, []int{1, 2, 3}}, // BLPOP a b c 0
		{target.CommandInfo{}, 3, nil},
	} {
		if got := tc.info.KeyRange(tc.argc); !slices.Equal(got, tc.want) {
			t.Errorf("%+v argc %d: %v, want %v", tc.info, tc.argc, got, tc.want)
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
