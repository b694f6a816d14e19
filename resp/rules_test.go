package resp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// A push frame inside an aggregate is reported at its offset from the
// frame's first byte, naming its place; a push at the top level, with or
// without an attribute, and a frame without one are fine.
func TestCheckFrameNestedPush(t *testing.T) {
	// The EXEC reply of Redis 7.0.15 to MULTI, DEBUG PROTOCOL push, ECHO x:
	// read by the count, the push is element 1 and "x" a frame of its own.
	redis7Exec := "*2\r\n>2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n$1\r\nx\r\n"
	for _, tc := range []struct{ in, want string }{
		{redis7Exec, `push frame inside an aggregate at offset 4 (element 1 of an array at offset 0; `},
		{"*2\r\n:1\r\n>1\r\n+a\r\n", `at offset 8 (element 2 of an array at offset 0;`},
		{"*1\r\n*2\r\n:1\r\n>1\r\n+a\r\n", `at offset 12 (element 2 of an array at offset 4;`},
		{"%1\r\n+k\r\n>1\r\n+a\r\n", `at offset 8 (value 1 of a map at offset 0;`},
		{">2\r\n+a\r\n>1\r\n+b\r\n", `at offset 8 (element 2 of a push at offset 0;`},
		{"*1\r\n|1\r\n+a\r\n:1\r\n>1\r\n+b\r\n", `at offset 16 (element 1 of an array at offset 0;`},
		{"*?\r\n:1\r\n>1\r\n+b\r\n.\r\n", `at offset 8 (element 2 of an array at offset 0;`},
		{"|1\r\n+a\r\n>1\r\n+b\r\n+OK\r\n", `at offset 8 (value 1 of an attribute at offset 0;`},
	} {
		for _, clone := range []bool{false, true} {
			n, v, err := resp.Parse([]byte(tc.in))
			if err != nil || n == 0 {
				t.Fatalf("%s: %v", resp.Escape([]byte(tc.in)), err)
			}
			if clone {
				v = v.Clone()
			}
			err = resp.CheckFrame(v)
			if !errors.Is(err, resp.ErrNestedPush) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckFrame(%s) = %v; want ErrNestedPush with %q", resp.Escape([]byte(tc.in)), err, tc.want)
			}
		}
	}
	for _, ok := range []string{">2\r\n$7\r\nmessage\r\n*1\r\n:1\r\n", "|1\r\n+a\r\n:1\r\n>1\r\n+b\r\n", "*2\r\n*1\r\n:1\r\n%1\r\n+a\r\n*0\r\n", "+OK\r\n"} {
		v, err := resp.ParseExact([]byte(ok))
		if err != nil {
			t.Fatal(err)
		}
		if err := resp.CheckFrame(v); err != nil {
			t.Errorf("CheckFrame(%s) = %v; want nil", resp.Escape([]byte(ok)), err)
		}
	}
}
