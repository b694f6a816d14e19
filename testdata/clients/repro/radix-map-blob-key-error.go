// repro: radix v4 cannot decode a RESP3 map or set of blob strings ("%7\r\n$6\r\nserver\r\n..." from HELLO 3, maps from EVAL/XREAD, "~1\r\n$4\r\nonly\r\n" from SMEMBERS) into an interface{}: it returns "[]uint8 ... can't be a map key" and leaves the rest of the map unread, so the next call gets a piece of it.
// finds: faults/HELLO 3 through a RESP2 connection [radix/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [radix/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [radix/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [radix/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [radix/resp2]
// finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [radix/resp3]
// finds: aggregates/map holding a set from a Lua script in RESP3 [radix/resp3]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [radix/resp3]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [radix/resp3]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [radix/resp3]
// finds: protocol-switch/HELLO without a version answering in the current protocol [radix/resp3]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [radix/resp3]
// finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [radix/resp3]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [radix/resp3]
// finds: transactions/EXEC array holding a map of fields and a nested array [radix/resp3]
// run: go
// expect: (?s)RESP2 HELLO 3 THROWN: .*can't be a map key\nRESP2 ECHO after DECODED: \[\]byte\{0x72, 0x65, 0x64, 0x69, 0x73\} "redis"\n.*RESP3 EVAL map THROWN: .*can't be a map key\nRESP3 ECHO after DECODED: .*RESP3 HELLO THROWN: .*can't be a map key\n.*RESP3 SMEMBERS THROWN: .*can't be a map key\n
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mediocregopher/radix/v4"
)

func main() {
	ctx := context.Background()
	for _, proto := range []string{"", "3"} {
		name := map[string]string{"": "RESP2", "3": "RESP3"}[proto]
		c, err := (radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", os.Args[1])
		if err != nil {
			fmt.Println("THROWN:", err)
			return
		}
		do := func(label string, cmd string, args ...string) {
			var v interface{}
			done := make(chan error, 1)
			go func() { done <- c.Do(ctx, radix.Cmd(&v, cmd, args...)) }()
			select {
			case err := <-done:
				if err != nil {
					fmt.Println(name, label, "THROWN:", err)
				} else if b, ok := v.([]byte); ok {
					fmt.Printf("%s %s DECODED: %#v %q\n", name, label, b, b)
				} else {
					fmt.Printf("%s %s DECODED: %#v\n", name, label, v)
				}
			case <-time.After(2 * time.Second):
				fmt.Println(name, label, "HANG: no result after 2s")
				os.Exit(0)
			}
		}
		if proto == "" {
			fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
			do("HELLO 3", "HELLO", "3")
			do("ECHO after", "ECHO", "after")
		} else {
			fmt.Println(`wire: %1\r\n$1\r\na\r\n:1\r\n`)
			do("EVAL map", "EVAL", "redis.setresp(3); return {map={a=1}}", "0")
			do("ECHO after", "ECHO", "after")
			c.Close()
			c, _ = (radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", os.Args[1])
			fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
			do("HELLO", "HELLO")
			c.Close()
			c, _ = (radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", os.Args[1])
			do("SADD", "SADD", "repro:set", "only")
			fmt.Println(`wire: ~1\r\n$4\r\nonly\r\n`)
			do("SMEMBERS", "SMEMBERS", "repro:set")
		}
		c.Close()
	}
}
