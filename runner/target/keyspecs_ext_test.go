package target_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/explore"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// movableShapes are commands with movable keys outside explore's data
// groups (scripts, functions, blocking reads, MIGRATE), in forms valid and
// not (a key count that is not a number, too large, zero).
var movableShapes = [][]string{
	{"EVAL", "return 1", "0"}, {"EVAL", "return 1", "0", "a1"}, {"FCALL", "f", "0"}, {"EVAL", "return 1", "2", "k1", "k2", "a1"}, {"EVAL", "return 1", "1", "1"},
	{"EVAL", "return 1", "x", "k1"}, {"EVAL", "return 1", "3", "k1"}, {"EVAL_RO", "return 1", "1", "k1", "a"},
	{"EVALSHA", "0123456789012345678901234567890123456789", "2", "k1", "k2"}, {"FCALL", "f", "1", "k1", "a"},
	{"FCALL_RO", "f", "2", "k1", "k2"}, {"XREAD", "COUNT", "1", "STREAMS", "s1", "s2", "0", "0"},
	{"XREAD", "STREAMS", "s1", "0"}, {"XREAD", "BLOCK", "0", "STREAMS", "s1", "s2", "s3", "0", "0", "0"},
	{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", ">"}, {"XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s1", "s2", ">", ">"},
	{"BLMPOP", "0", "2", "l1", "l2", "LEFT"}, {"BZMPOP", "0", "1", "z1", "MIN", "COUNT", "2"},
	{"MIGRATE", "127.0.0.1", "1", "k1", "0", "100"}, {"MIGRATE", "127.0.0.1", "1", "", "0", "100", "KEYS", "k1", "k2"},
	{"SORT", "l1", "STORE", "d1"}, {"SORT", "l1", "BY", "w_*", "GET", "o_*"}, {"SORT_RO", "l1"},
	{"GEORADIUS", "g1", "0", "0", "1", "km", "STORE", "d1"}, {"GEORADIUS", "g1", "0", "0", "1", "km", "STOREDIST", "d1"},
	{"GEORADIUSBYMEMBER", "g1", "m", "1", "km", "STORE", "d1"},
	{"ZUNIONSTORE", "d", "2", "z1", "z2", "WEIGHTS", "1", "2"}, {"ZINTER", "2", "z1", "z2"}, {"ZDIFF", "1", "z1"},
	{"LMPOP", "2", "l1", "l2", "RIGHT", "COUNT", "3"}, {"SINTERCARD", "2", "s1", "s2", "LIMIT", "1"},
	{"ZUNIONSTORE", "d", "0", "z1"}, {"ZINTERCARD", "9", "z1"},
	// Keywords as C's strcasecmp reads them: up to a NUL, ASCII only.
	{"GEORADIUS", "g1", "0", "0", "1", "km", "STORE\x00", "d1"}, {"GEORADIUS", "g1", "0", "0", "1", "km", "store\x00x", "d1"},
	{"XREAD", "COUNT", "\u017ftreams", "STREAMS", "s1", "0"}, {"XREAD", "STREAMS\x00", "s1", "0"}, {"XREAD", "streams", "s1", "0"},
	{"EVAL", "return 1", "1\x00", "k1"}, {"EVAL", "return 1", "+1", "k1"}, {"EVAL", "return 1", "01", "k1"},
}

// TestKeySpecsMatchGetkeys: for every command with movable keys that the
// explorer's generator draws (200 shapes per build) and the shapes above,
// the key positions the command's key specifications give (COMMAND INFO,
// no call) name the keys COMMAND GETKEYS names; a shape the specs cannot
// answer (SORT's BY and GET patterns, MIGRATE's KEYS, a key count that is
// not a number) is asked of COMMAND GETKEYS as before.
func TestKeySpecsMatchGetkeys(t *testing.T) {
	for _, b := range []string{"redis-7.0.15", "valkey-8.0.1", "redis-8.6.3", "valkey-9.1.2"} {
		t.Run(b, func(t *testing.T) {
			ctx := context.Background()
			srv := servers.ForTest(t, b)
			tg := target.New(target.Config{Addr: srv.Addr()}, target.Server{})
			c, err := tg.Config.Dial(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			grammar, err := explore.LoadGrammar(c)
			if err != nil {
				t.Fatal(err)
			}
			shapes := slices.Clone(movableShapes)
			g := explore.NewGenerator(grammar, 42)
			for drawn := 0; drawn < 20000 && len(shapes) < len(movableShapes)+200; drawn++ {
				args := g.Command()
				if info, err := tg.CommandInfo(ctx, args[0]); err == nil && info.Movable {
					shapes = append(shapes, args)
				}
			}
			getKeys := func(q [][]byte) ([][]byte, error) {
				return target.GetKeys(func(a ...string) (resp.Value, error) { return c.Do(a...) }, q)
			}
			fromSpecs, asked := 0, 0
			for _, shape := range shapes {
				args := make([][]byte, len(shape))
				for i, a := range shape {
					args[i] = []byte(a)
				}
				calls := 0
				pos, err := tg.KeyPositions(ctx, args, nil, func(q [][]byte) ([][]byte, error) { calls++; return getKeys(q) })
				if err != nil {
					t.Fatal(err)
				}
				if calls > 0 {
					asked++
					continue
				}
				fromSpecs++
				want, err := getKeys(args)
				if err != nil {
					t.Fatal(err)
				}
				var got, wantNames []string
				for _, p := range pos {
					got = append(got, string(args[p]))
				}
				for _, k := range want {
					wantNames = append(wantNames, string(k))
				}
				slices.Sort(got)
				slices.Sort(wantNames)
				if !slices.Equal(got, wantNames) {
					t.Errorf("%s: key specs name %q, COMMAND GETKEYS %q", strings.Join(shape, " "), got, wantNames)
				}
			}
			t.Logf("%d shapes answered by the key specs, %d asked of COMMAND GETKEYS", fromSpecs, asked)
			if fromSpecs < 100 {
				t.Errorf("only %d shapes answered by the key specs", fromSpecs)
			}
		})
	}
}
