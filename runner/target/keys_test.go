package target

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/respcheck/respcheck/runner/servers"
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

// TestKeyRange gives the positions of COMMAND INFO's legacy key range.
func TestKeyRange(t *testing.T) {
	for _, tc := range []struct {
		info CommandInfo
		argc int
		want []int
	}{
		{CommandInfo{FirstKey: 1, LastKey: 1, Step: 1}, 2, []int{1}},        // GET k
		{CommandInfo{FirstKey: 1, LastKey: -1, Step: 2}, 5, []int{1, 3}},    // MSET a 1 b 2
		{CommandInfo{FirstKey: 1, LastKey: 2, Step: 1}, 5, []int{1, 2}},     // LMOVE s d LEFT RIGHT
		{CommandInfo{FirstKey: 1, LastKey: -2, Step: 1}, 5, []int{1, 2, 3}}, // BLPOP a b c 0
		{CommandInfo{}, 3, nil},
	} {
		if got := tc.info.KeyRange(tc.argc); !slices.Equal(got, tc.want) {
			t.Errorf("%+v argc %d: %v, want %v", tc.info, tc.argc, got, tc.want)
		}
	}
}

// TestKeyPositionsShapes: a movable-key command whose key specifications
// answer (EVAL's key count) costs no COMMAND GETKEYS; one they cannot
// answer (SORT, whose STORE, BY and GET specs are incomplete; a key count
// that is no number) is asked once per shape: the case's keys (under the
// prefix) do not make a new shape, a literal argument does; a
// fixed-position command needs no GETKEYS, a container's keys are its
// subcommand's.
func TestKeyPositionsShapes(t *testing.T) {
	ctx := context.Background()
	tg, c := serverForKeys(t, "redis-8.6.3")
	asked := 0
	getKeys := func(q [][]byte) ([][]byte, error) { asked++; return GetKeys(c.Do, q) }
	prefix := []byte("rc:{01234567}:")
	for _, tc := range []struct {
		args  string
		want  []int
		asked int
	}{
		{"EVAL s 2 rc:{01234567}:a rc:{01234567}:b v", []int{3, 4}, 0},
		{"EVAL s 1 foo v", []int{3}, 0},
		{"EVAL s 1 1", []int{3}, 0},
		{"EVAL s 0", nil, 0},
		{"EVAL s x foo", nil, 1}, // the server answers an error: no key
		{"SORT rc:{01234567}:a STORE rc:{01234567}:d", []int{1, 3}, 2},
		{"SORT rc:{01234567}:b STORE rc:{01234567}:e", []int{1, 3}, 2}, // the same shape
		{"SORT foo STORE bar", []int{1, 3}, 3},
		{"MSET a 1 b 2", []int{1, 3}, 3},
		{"OBJECT ENCODING foo", []int{2}, 3},
		{"GET", nil, 3},
	} {
		got, err := tg.KeyPositions(ctx, bytes.Fields([]byte(tc.args)), prefix, getKeys)
		if err != nil || !slices.Equal(got, tc.want) || asked != tc.asked {
			t.Errorf("%s: %v %v, %d GETKEYS so far; want %v, %d", tc.args, got, err, asked, tc.want, tc.asked)
		}
	}
}

// serverForKeys starts a throwaway server of build and returns its Target
// and a RESP2 connection to it (closed with the test).
func serverForKeys(t *testing.T, build string) (*Target, *Conn) {
	t.Helper()
	srv := servers.ForTest(t, build)
	tg := New(Config{Addr: srv.Addr()}, Server{})
	c, err := tg.Config.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tg, c
}
