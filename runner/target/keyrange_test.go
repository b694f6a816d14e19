package target

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestKeyRangeMatchesGetkeys checks, for every command and subcommand of
// each pinned build that COMMAND INFO gives keys without movablekeys, that
// its legacy key range (CommandInfo.KeyRange) names the arguments COMMAND
// GETKEYS names, for the command's smallest argument count and two more.
func TestKeyRangeMatchesGetkeys(t *testing.T) {
	for _, b := range []string{"redis-7.0.15", "valkey-8.0.1", "redis-8.6.3", "valkey-9.1.2"} {
		t.Run(b, func(t *testing.T) {
			ctx := context.Background()
			tg, c := serverForKeys(t, b)
			all, err := c.Do("COMMAND")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range all.Elems {
				names = append(names, strings.ToLower(string(e.Elems[0].Str)))
				if len(e.Elems) >= 10 {
					for _, s := range e.Elems[9].Elems {
						names = append(names, strings.ToLower(string(s.Elems[0].Str)))
					}
				}
			}
			checked := 0
			for _, name := range names {
				info, err := tg.CommandInfo(ctx, name)
				if err != nil {
					t.Fatal(err)
				}
				if info.Movable || info.FirstKey == 0 {
					continue
				}
				words := strings.Split(name, "|")
				argcs := []int{info.Arity}
				if info.Arity < 0 {
					argcs = []int{-info.Arity, -info.Arity + 1, -info.Arity + 2}
				}
				for _, argc := range argcs {
					args := slices.Clone(words)
					for len(args) < argc {
						args = append(args, fmt.Sprintf("a%d", len(args)))
					}
					v, err := c.Do(append([]string{"COMMAND", "GETKEYS"}, args...)...)
					if err != nil {
						t.Fatal(err)
					}
					if v.Kind != resp.Array {
						continue // an argument the server parses (a number, a keyword)
					}
					var want, got []string
					for _, k := range v.Elems {
						want = append(want, string(k.Str))
					}
					for _, p := range info.KeyRange(argc) {
						got = append(got, args[p])
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s %v: key range %v, GETKEYS %v", name, args, got, want)
					}
					checked++
				}
			}
			if checked < 150 {
				t.Errorf("only %d commands checked", checked)
			}
			t.Logf("%d command shapes checked", checked)
		})
	}
}
