package clients

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
)

// cliTestDrivers returns the CLI configurations of the installed builds;
// a pinned build's CLI that is missing fails under CI.
func cliTestDrivers(t *testing.T) []Driver {
	t.Helper()
	ds, notes := cliDrivers()
	for _, n := range notes {
		if servers.InCI() {
			t.Fatal("CI is set and a command-line client is missing: " + n)
		}
		t.Log("SKIPPING " + n)
	}
	if len(ds) == 0 {
		t.Skip("no command-line client installed")
	}
	return ds
}

// knownCLIs are the builds whose rules clicontract.go cites.
var knownCLIs = []*cliTool{
	{name: "redis-cli", family: "redis", version: "7.0.15"},
	{name: "redis-cli", family: "redis", version: "8.6.3"},
	{name: "valkey-cli", family: "valkey", version: "8.0.1"},
	{name: "valkey-cli", family: "valkey", version: "9.1.2"},
}

func frame(t *testing.T, s string) resp.Value {
	t.Helper()
	_, v, err := resp.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func output(s string) Native {
	n := stringNative("redis-cli output", s)
	n.Kind = outputKind
	return n
}

// TestCLIJudge checks every CLI configuration's contract: the text its
// source prints for a reply is match; the text of another reply (a wrong
// value, or the previous reply: a shifted connection), a missing frame or
// an extra line is not; an exit is a crash.
func TestCLIJudge(t *testing.T) {
	hello := "%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nmodules\r\n*1\r\n%2\r\n$4\r\nname\r\n$2\r\nvs\r\n$4\r\nargs\r\n*0\r\n"
	want := map[bool]map[string]string{
		false: {"+OK\r\n": "OK\n", ":7\r\n": "7\n", "$-1\r\n": "\n", hello: "server redis\nmodules name vs\nargs \n"},
		true: {"+OK\r\n": "OK\n", ":7\r\n": "(integer) 7\n", "$-1\r\n": "(nil)\n",
			hello: "1# \"server\" => \"redis\"\n2# \"modules\" => \n   1) 1# \"name\" => \"vs\"\n      2# \"args\" => (empty array)\n"},
	}
	for _, tool := range knownCLIs {
		for _, noRaw := range []bool{false, true} {
			d := newCLIDriver(tool, noRaw)
			t.Run(d.Library(), func(t *testing.T) {
				judge := func(reply, printed string, args ...string) Verdict {
					st := cliStep{args: [][]byte{[]byte("GET")}, frames: []resp.Value{frame(t, reply)}}
					for i, a := range args {
						if i == 0 {
							st.args = nil
						}
						st.args = append(st.args, []byte(a))
					}
					v, notes := d.contract().output(st, output(printed))
					t.Logf("%s printed %q: %s %v", resp.Escape([]byte(reply)), printed, v, notes)
					return v
				}
				prev := ""
				for _, reply := range []string{"+OK\r\n", ":7\r\n", "$-1\r\n", hello} {
					w := want[noRaw][reply]
					if v := judge(reply, w); v != Match {
						t.Errorf("the right text for %s: %s, want match", resp.Escape([]byte(reply)), v)
					}
					for _, bad := range []string{prev, strings.TrimSuffix(w, "\n"), w + w, w + "extra\n"} {
						if v := judge(reply, bad); v != Mismatch {
							t.Errorf("%q for %s: %s, want mismatch", bad, resp.Escape([]byte(reply)), v)
						}
					}
					prev = w
				}
				if noRaw && judge(":7\r\n", "(integer) 7\n(0.61s)\n") != Match {
					t.Error("the timing line of a slow command is refused")
				}
				if v := judge("$3\r\nabc\r\n", "abc", "CLIENT", "INFO"); v != Match {
					t.Errorf("CLIENT INFO printed verbatim: %s, want match", v)
				}
				if v, _ := d.contract().output(cliStep{args: [][]byte{[]byte("X")}, frames: []resp.Value{frame(t, "(1\r\n")}},
					errNative("exception", "adapter", "exit", tool.name+" exited, exit status 1: Unknown reply type: 13")); v != Crash {
					t.Errorf("an exit on a big number: %s, want crash", v)
				}
				if v := judge("(1\r\n", "1\n"); v != Mismatch {
					t.Errorf("text printed for a big number, which the source cannot print: %s, want mismatch", v)
				}
			})
		}
	}
}

// TestCLILine checks that every byte survives the CLI's argument parsing
// (sdssplitargs): the quoted line is read back as the arguments.
func TestCLILine(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	line := cliLine([][]byte{[]byte("SET"), all, {}, []byte(`a"b\c`)})
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("not one line: %q", line)
	}
	if !strings.Contains(line, `"\x00\x01`) || !strings.Contains(line, ` "" "a\"b\\c"`) {
		t.Errorf("quoting: %q", line)
	}
}

// TestCLILocal checks the commands the CLI's loop handles itself.
func TestCLILocal(t *testing.T) {
	old, cur := knownCLIs[0], knownCLIs[1]
	for _, c := range []struct {
		tool  *cliTool
		args  []string
		local bool
	}{
		{cur, []string{"GET", "k"}, false},
		{cur, []string{"3", "PING"}, true},
		{cur, []string{"3"}, false},
		{cur, []string{"quit"}, true},
		{cur, []string{":set", "hints"}, true},
		{cur, []string{"MONITOR"}, true},
		{cur, []string{"SUBSCRIBE", "c"}, false},
		{old, []string{"SUBSCRIBE", "c"}, true},
		{old, []string{"UNSUBSCRIBE"}, false},
	} {
		var args [][]byte
		for _, a := range c.args {
			args = append(args, []byte(a))
		}
		if why := cliLocal(c.tool, args); (why != "") != c.local {
			t.Errorf("%s %s %v: local %q, want %v", c.tool.name, c.tool.version, c.args, why, c.local)
		}
	}
}

// TestParseLabel splits labels of the grammar.
func TestParseLabel(t *testing.T) {
	for in, want := range map[string]Label{
		"redis-cli-8.6.3[--no-raw]":         {Library: "redis-cli", Version: "8.6.3", Options: []string{"--no-raw"}},
		"ioredis-6.0.0[replyMapping=resp3]": {Library: "ioredis", Version: "6.0.0", Options: []string{"replyMapping=resp3"}},
		"redis-py-4.3.4+hiredis":            {Library: "redis-py", Version: "4.3.4", Parser: "hiredis"},
		"go-redis/tx-pipeline":              {Library: "go-redis", API: "tx-pipeline"},
		"go-redis-typed":                    {Library: "go-redis-typed"},
	} {
		if got := ParseLabel(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseLabel(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// TestCLIProcessReuse: a case connection whose steps left no state gives
// its CLI process to the next case of the same driver and protocol, which
// connects it to its own address in its own protocol (`connect`); a step
// that leaves state a connect does not reset (CLIENT) does not. A
// transaction left open is not such state: the connect drops it, nor is
// HELLO where the connect resets the loop's protocol.
func TestCLIProcessReuse(t *testing.T) {
	ds := cliTestDrivers(t)
	a, b := servers.ForTest(t, "redis-8.6.3"), servers.ForTest(t, "valkey-9.1.2")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, drv := range ds {
		d := drv.(*cliDriver)
		t.Run(d.Library(), func(t *testing.T) {
			// step runs one command on a new session's connection and
			// returns the process's pid and what the CLI printed.
			step := func(addr string, cmd ...string) (pid int, out string, s Session) {
				t.Helper()
				s, err := d.Open(ctx, addr, 3)
				if err != nil {
					t.Fatal(err)
				}
				c, err := s.Conn(ctx, "c")
				if err != nil {
					t.Fatal(err)
				}
				var args [][]byte
				for _, a := range cmd {
					args = append(args, []byte(a))
				}
				n := c.Do(ctx, args)
				if n.Kind != outputKind {
					t.Fatalf("%v: %+v", cmd, n)
				}
				return c.(*cliConn).p.cmd.Process.Pid, *n.Text, s
			}
			pid1, out, s := step(a.Addr(), "ECHO", "one")
			if strings.TrimSpace(out) != `"one"` && strings.TrimSpace(out) != "one" {
				t.Fatalf("ECHO printed %q", out)
			}
			s.Close()
			pid2, out, s := step(b.Addr(), "INFO", "server")
			if pid2 != pid1 {
				t.Errorf("a clean case's process was not reused: pid %d, then %d", pid1, pid2)
			}
			if !strings.Contains(out, "server_name:valkey") {
				t.Errorf("the reused process did not connect to the next case's server: INFO server printed %q", out)
			}
			c, _ := s.Conn(ctx, "c")
			if n := c.Do(ctx, [][]byte{[]byte("CLIENT"), []byte("INFO")}); n.Text == nil || !strings.Contains(*n.Text, "resp=3") {
				t.Errorf("the reused process's connection is not RESP3: CLIENT INFO printed %+v", n)
			}
			s.Close()
			pid3, _, s := step(a.Addr(), "MULTI")
			if pid3 == pid2 {
				t.Errorf("a process was reused after CLIENT INFO")
			}
			s.Close()
			pid4, out, s := step(a.Addr(), "PING")
			if pid4 != pid3 {
				t.Errorf("a process was not reused after a MULTI without EXEC: pid %d, then %d", pid3, pid4)
			}
			if strings.TrimSpace(out) != "PONG" {
				t.Errorf("the next case's PING on the reused process printed %q, want PONG (the transaction is the old connection's)", out)
			}
			// The loop left its MULTI state too: a CLI in a transaction
			// prints INFO as a quoted string (valkey-cli.c: "if
			// (config.in_multi) output_raw = 0"), out of one as text.
			c, _ = s.Conn(ctx, "c")
			if n := c.Do(ctx, [][]byte{[]byte("INFO"), []byte("server")}); n.Text == nil || strings.HasPrefix(strings.TrimSpace(*n.Text), `"`) || !strings.Contains(*n.Text, "\nredis_version:") {
				t.Errorf("INFO on the process reused after MULTI printed %+v, want its text as a fresh process prints it", n)
			}
			s.Close()
			// HELLO 2 in a RESP3 loop: reused where the connect resets
			// the loop's protocol (helloStays false), in RESP3 again.
			pid5, _, s := step(a.Addr(), "HELLO", "2")
			s.Close()
			pid6, out, s := step(a.Addr(), "CLIENT", "INFO")
			if reused := pid6 == pid5; reused == d.tool.helloStays() {
				t.Errorf("after HELLO 2: reused %v, want %v (helloStays %v)", reused, !d.tool.helloStays(), d.tool.helloStays())
			}
			if !strings.Contains(out, "resp=3") {
				t.Errorf("the next case's connection after HELLO 2 is not RESP3: CLIENT INFO printed %q", out)
			}
			s.Close()
		})
	}
}
