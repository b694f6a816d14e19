package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestCaseKeys sends a case's commands as both executors send them, on a
// real server: literal keys and patterns moved into the namespace (and
// noted as renamed), DEBUG OBJECT's key too; a literal_keys case's keys
// sent as written, noted, and deleted afterwards, one DEL per slot.
func TestCaseKeys(t *testing.T) {
	ctx := context.Background()
	tg, c := serverForKeys(t, "redis-8.6.3")
	ask := func(q [][]byte) ([][]byte, error) { return GetKeys(c.Do, q) }
	prefix := "rc:{case}:"
	fields := func(s string) [][]byte { return bytes.Fields([]byte(s)) }
	join := func(args [][]byte) string { return string(bytes.Join(args, []byte(" "))) }

	k := tg.CaseKeys(prefix, false, ask)
	for _, tc := range []struct{ args, want string }{
		{"SET foo bar", "SET rc:{case}:foo bar"},
		{"SET rc:{case}:own v", "SET rc:{case}:own v"},
		{"MSET a 1 b 2", "MSET rc:{case}:a 1 rc:{case}:b 2"},
		{"KEYS f*", "KEYS rc:{case}:f*"},
		{"DEBUG OBJECT foo", "DEBUG OBJECT rc:{case}:foo"},
		{"PING x", "PING x"},
	} {
		args := fields(tc.args)
		got, _, err := k.Prepare(ctx, args)
		if err != nil || join(got) != tc.want {
			t.Errorf("Prepare(%s) = %s, %v; want %s", tc.args, join(got), err, tc.want)
		}
		if join(args) != tc.args {
			t.Errorf("Prepare(%s) wrote its argument: %s", tc.args, join(args))
		}
	}
	if want := map[string]string{"foo": "rc:{case}:foo", "a": "rc:{case}:a", "b": "rc:{case}:b"}; !maps.Equal(k.Renamed, want) || k.Literal != nil {
		t.Errorf("renamed %v, literal %v; want %v and none", k.Renamed, k.Literal, want)
	}

	lit := tg.CaseKeys(prefix, true, ask)
	for _, cmd := range []string{"SET lit:a 1", "SET lit:b 2", "SET {x}c 3", "SET rc:{case}:own 4"} {
		args := fields(cmd)
		got, keys, err := lit.Prepare(ctx, args)
		if err != nil || join(got) != cmd || !slices.Equal(keys, []int{1}) {
			t.Fatalf("literal Prepare(%s) = %s %v, %v; want it as written, key at 1", cmd, join(got), keys, err)
		}
		if v, err := c.DoBytes(resp.AppendCommand(nil, got...)); err != nil || IsError(v) {
			t.Fatalf("%s: %v %v", cmd, v, err)
		}
	}
	if want := map[string]bool{"lit:a": true, "lit:b": true, "{x}c": true}; !maps.Equal(lit.Literal, want) {
		t.Errorf("literal keys %v, want %v", lit.Literal, want)
	}
	lit.DeleteLiteral(ctx)
	if v, err := c.Do("EXISTS", "lit:a", "lit:b", "{x}c", "rc:{case}:own"); err != nil || v.Int != 1 {
		t.Errorf("after DeleteLiteral, EXISTS of the three literal keys and the namespaced one: %v %v, want 1 (the namespaced key is the case's cleanup's)", v, err)
	}
}

// TestKnownCrash finds a crash declared for either protocol, and only a
// crash.
func TestKnownCrash(t *testing.T) {
	sel := func(s string) cases.Selector {
		x, err := cases.ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	srv := Server{Family: "redis", Version: "8.6.3"}
	crash3 := &cases.Known{Server: sel("redis resp3"), Crash: true, Reason: "dies"}
	diff := &cases.Known{Server: sel("redis"), Reason: "differs"}
	c := &cases.Case{Known: []*cases.Known{diff, crash3}}
	if got := srv.KnownCrash(c, 2); got != nil {
		t.Errorf("RESP2 with a difference listed first: %v, want nil (the first match is no crash)", got)
	}
	c = &cases.Case{Known: []*cases.Known{crash3}}
	for _, proto := range []int{2, 3} {
		if got := srv.KnownCrash(c, proto); got != crash3 {
			t.Errorf("RESP%d: %v, want the RESP3 crash", proto, got)
		}
	}
	if got := (Server{Family: "valkey", Version: "9.1.2"}).KnownCrash(c, 3); got != nil {
		t.Errorf("valkey: %v, want nil", got)
	}
}

// TestDeleteCaseKeys deletes the keys under a case's prefix and no other,
// and ends by its context's deadline on a server that froze (SIGSTOP).
func TestDeleteCaseKeys(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	tg := New(Config{Addr: srv.Addr()}, Server{})
	c, err := tg.Config.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prefix := "rc:{0000dead}:"
	if v, err := c.Do("MSET", prefix+"a", "1", prefix+"b", "2", "rc:{0000beef}:a", "3", "other", "4"); err != nil || IsError(v) {
		t.Fatal(v, err)
	}
	n, err := tg.DeleteCaseKeys(context.Background(), prefix)
	if err != nil || n != 2 {
		t.Errorf("DeleteCaseKeys = %d, %v; want 2", n, err)
	}
	if v, err := c.Do("DBSIZE"); err != nil || v.Int != 2 {
		t.Errorf("DBSIZE after: %v %v, want 2 (the other case's key and the user's)", v, err)
	}
	if err := srv.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer srv.Signal(syscall.SIGCONT)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := tg.DeleteCaseKeys(ctx, "rc:{0000beef}:"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("DeleteCaseKeys on a frozen server: no error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("DeleteCaseKeys on a frozen server did not end by its context's deadline (300ms) in 20s")
	}
}

// TestCaseKeysDelete deletes a case's keys with one UNLINK of the names
// its commands named (no SCAN, whose rounds grow with the keyspace), and
// scans the namespace once a command may have written a key it did not
// name (a script) or its keys could not be told (a key argument too long
// for COMMAND GETKEYS); keys outside the namespace are never touched.
func TestCaseKeysDelete(t *testing.T) {
	ctx := context.Background()
	tg, c := serverForKeys(t, "redis-8.6.3")
	ask := func(q [][]byte) ([][]byte, error) { return GetKeys(c.Do, q) }
	stat := func(cmd string) int64 {
		v, err := c.Do("INFO", "commandstats")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(v.Str), "\r\n") {
			if rest, ok := strings.CutPrefix(line, "cmdstat_"+cmd+":calls="); ok {
				n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				return n
			}
		}
		return 0
	}
	send := func(k *CaseKeys, cmd ...string) {
		args := make([][]byte, len(cmd))
		for i, a := range cmd {
			args[i] = []byte(a)
		}
		out, _, err := k.Prepare(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := c.DoBytes(resp.AppendCommand(nil, out...)); err != nil || IsError(v) {
			t.Fatalf("%q: %v %v", cmd, v, err)
		}
	}
	if v, err := c.Do("SET", "user:1", "keep"); err != nil || IsError(v) {
		t.Fatal(v, err)
	}
	for _, tc := range []struct {
		name    string
		cmds    [][]string
		removed int
		scans   int64
		untrack bool
	}{
		{"named keys", [][]string{{"SET", "a", "1"}, {"RPUSH", "{key}l", "x"}, {"ZADD", "z", "1", "m"}, {"ZUNIONSTORE", "u", "1", "z"}, {"GET", "missing"}}, 4, 0, false},
		{"nothing written", [][]string{{"GET", "a"}, {"PING", "x"}}, 0, 0, false},
		{"a script", [][]string{{"SET", "a", "1"}, {"EVAL", "redis.call('SET', KEYS[1] .. 'unnamed', 1)", "1", "s"}}, 2, 1, false},
		// SORT's STORE is asked of COMMAND GETKEYS (an incomplete key
		// spec), which never hears an argument over MaxGetkeysArg.
		{"a long key", [][]string{{"ZADD", "z", "1", "m"}, {"SORT", "z", "ALPHA", "STORE", strings.Repeat("k", MaxGetkeysArg+1)}}, 2, 1, false},
		{"named, not tracked", [][]string{{"SET", "a", "1"}}, 1, 1, true},
	} {
		prefix := "rc:{" + fmt.Sprintf("%08x", len(tc.name)) + "}:"
		k := tg.CaseKeys(prefix, false, ask)
		if !tc.untrack {
			k.Track()
		}
		for _, cmd := range tc.cmds {
			for i, a := range cmd {
				cmd[i] = strings.ReplaceAll(a, "{key}", prefix)
			}
			send(k, cmd...)
		}
		before := stat("scan")
		n, err := k.Delete(ctx)
		if err != nil || n != tc.removed {
			t.Errorf("%s: Delete = %d, %v; want %d", tc.name, n, err, tc.removed)
		}
		if scans := stat("scan") - before; scans != tc.scans {
			t.Errorf("%s: %d SCAN, want %d", tc.name, scans, tc.scans)
		}
		if v, err := c.Do("DBSIZE"); err != nil || v.Int != 1 {
			t.Errorf("%s: DBSIZE after Delete %v %v, want 1 (the user's key)", tc.name, v, err)
		}
	}
}

// TestCaseKeysGetkeysRefused: when COMMAND GETKEYS is refused (here
// NOPERM, for an ACL user without it; BUSY and LOADING alike), a command
// with movable keys that its key specifications cannot answer (SORT ...
// STORE) has no known positions: the case's keys are scanned for, and the
// refusal is not remembered for the command's shape. One they answer
// (ZUNIONSTORE's key count) needs no GETKEYS.
func TestCaseKeysGetkeysRefused(t *testing.T) {
	ctx := context.Background()
	tg, c := serverForKeys(t, "redis-8.6.3")
	if v, err := c.Do("ACL", "SETUSER", "nogetkeys", "on", ">pw", "~*", "&*", "+@all", "-command|getkeys"); err != nil || IsError(v) {
		t.Fatal(v, err)
	}
	limited, err := Config{Addr: tg.Config.Addr, Username: "nogetkeys", Password: "pw"}.Dial(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	if _, err := GetKeys(limited.Do, [][]byte{[]byte("ZUNIONSTORE"), []byte("d"), []byte("1"), []byte("s")}); !errors.Is(err, ErrKeysUnknown) {
		t.Fatalf("GetKeys refused: %v, want ErrKeysUnknown", err)
	}
	if keys, err := GetKeys(c.Do, [][]byte{[]byte("PING"), []byte("x")}); err != nil || keys != nil {
		t.Errorf("GetKeys of a command without keys: %q %v, want none and no error", keys, err)
	}
	prefix := "rc:{0000feed}:"
	k := tg.CaseKeys(prefix, false, func(q [][]byte) ([][]byte, error) { return GetKeys(limited.Do, q) })
	k.Track()
	for i, cmd := range []string{"ZADD " + prefix + "s 1 m", "ZUNIONSTORE " + prefix + "u 1 " + prefix + "s", "SORT " + prefix + "s ALPHA STORE " + prefix + "d"} {
		args := bytes.Fields([]byte(cmd))
		out, _, err := k.Prepare(ctx, args)
		if i == 2 != errors.Is(err, ErrKeysUnknown) || i < 2 && err != nil {
			t.Fatalf("Prepare(%s): %v (want ErrKeysUnknown for the SORT only)", cmd, err)
		}
		if v, err := c.DoBytes(resp.AppendCommand(nil, out...)); err != nil || IsError(v) {
			t.Fatalf("%s: %v %v", cmd, v, err)
		}
	}
	if n, err := k.Delete(ctx); err != nil || n != 3 {
		t.Errorf("Delete = %d, %v; want 3 (the SORT's destination, which no position named, found by the scan)", n, err)
	}
	// The same shape asked again with GETKEYS allowed: positions known.
	pos, err := tg.KeyPositions(ctx, bytes.Fields([]byte("SORT "+prefix+"s ALPHA STORE "+prefix+"d")), []byte(prefix), func(q [][]byte) ([][]byte, error) { return GetKeys(c.Do, q) })
	if err != nil || !slices.Equal(pos, []int{1, 4}) {
		t.Errorf("after a refusal, KeyPositions with GETKEYS allowed: %v %v, want [1 4]", pos, err)
	}
}

// TestCaseKeysWithModules: on a server with modules loaded, whose commands
// may write keys they do not name, the case's keys are scanned for.
func TestCaseKeysWithModules(t *testing.T) {
	tg, c := serverForKeys(t, "redis-8.6.3")
	ask := func(q [][]byte) ([][]byte, error) { return GetKeys(c.Do, q) }
	tg.Server.Modules = []string{"vectorset"}
	if k := tg.CaseKeys("rc:{0000abcd}:", false, ask); k.open {
		t.Error("Redis 8's built-in vectorset module: the case's keys are scanned for, want named")
	}
	tg.Server.Modules = nil
	tg.Server.ModulesHidden = true
	if k := tg.CaseKeys("rc:{0000abcd}:", false, ask); !k.open {
		t.Error("MODULE LIST refused: the case's keys are not scanned for")
	}
	tg.Server.ModulesHidden = false
	tg.Server.Modules = []string{"vectorset", "timeseries"}
	prefix := "rc:{0000abcd}:"
	k := tg.CaseKeys(prefix, false, ask)
	k.Track()
	// As a compaction rule would: a key the command did not name.
	if v, err := c.Do("SET", prefix+"k_AVG_60000", "1"); err != nil || IsError(v) {
		t.Fatal(v, err)
	}
	if n, err := k.Delete(context.Background()); err != nil || n != 1 {
		t.Errorf("Delete = %d, %v; want 1 (found by the scan)", n, err)
	}
}

// TestModulesHidden: MODULE LIST refused to an ACL user leaves the loaded
// modules unknown (Server.ModulesHidden), which CaseKeys reads as "scan";
// the default user sees Redis 8's built-in vectorset.
func TestModulesHidden(t *testing.T) {
	ctx := context.Background()
	tg, c := serverForKeys(t, "redis-8.6.3")
	if v, err := c.Do("ACL", "SETUSER", "nomodules", "on", ">pw", "~*", "&*", "+@all", "-module"); err != nil || IsError(v) {
		t.Fatal(v, err)
	}
	s, err := Identify(ctx, tg.Config)
	if err != nil || s.ModulesHidden || !slices.Contains(s.Modules, "vectorset") {
		t.Errorf("default user: modules %v, hidden %v, %v; want vectorset, not hidden", s.Modules, s.ModulesHidden, err)
	}
	s, err = Identify(ctx, Config{Addr: tg.Config.Addr, Username: "nomodules", Password: "pw"})
	if err != nil || !s.ModulesHidden || len(s.Modules) > 0 {
		t.Errorf("MODULE LIST refused: modules %v, hidden %v, %v; want none, hidden", s.Modules, s.ModulesHidden, err)
	}
}

// TestScriptKeys: the script commands' keys by their layout (numkeys, then
// the keys), for a server whose command table cannot say (miniredis); a
// numkeys past the arguments, or not a number, is no answer.
func TestScriptKeys(t *testing.T) {
	args := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"EVAL", "return 1", "2", "a", "b", "arg"}, "[3 4] true"},
		{[]string{"fcall_ro", "f", "0", "arg"}, "[] true"},
		{[]string{"EVALSHA", "abc", "3", "a"}, "[] false"},
		{[]string{"EVAL", "return 1", "x"}, "[] false"},
		{[]string{"GET", "k"}, "[] false"},
	} {
		pos, ok := scriptKeys(args(tc.args...))
		if got := fmt.Sprint(pos, " ", ok); got != tc.want {
			t.Errorf("scriptKeys(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}
