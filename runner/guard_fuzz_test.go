package runner

import (
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// FuzzGuardParsers feeds arbitrary text to the guard's readers of inline
// lines and Lua scripts: none may panic, and luaNext always moves on.
func FuzzGuardParsers(f *testing.F) {
	for _, s := range []string{
		`SET "a\x41" 'b\'c' d`, "a\vb\x00c", `"unbalanced`, `x"y z"`,
		"return redis.call('GET', KEYS[1])", "redis.call(", "redis.", "--[[", "[==[x]==]", "KEYS[", "redis . pcall ( 'x' , ARGV[1] )",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		resp.ReadCommand([]byte(s + "\n"))
		luaArgs(s)
		for i := 0; i < len(s); {
			j, _ := luaNext(s, i)
			if j <= i {
				t.Fatalf("luaNext(%q, %d) = %d: no progress", s, i, j)
			}
			i = j
		}
		luaClose(s, '(', ')')
		_ = guardScript([]byte(s))
	})
}
