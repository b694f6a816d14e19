// repro: redigo cannot read the RESP3 map that HELLO 3 answers ("%7\r\n$6\r\nserver\r\n..."): Do returns "unexpected response line" and closes the connection, so the next call fails too.
// finds: faults/HELLO 3 through a RESP2 connection [redigo/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redigo/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redigo/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redigo/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redigo/resp2]
// run: go
// expect: (?s)HELLO 3 THROWN: redigo: unexpected response line.*\nECHO after THROWN: .*use of closed network connection
package main

import (
	"fmt"

	"github.com/gomodule/redigo/redis"
)

func main() {
	c := must(redis.Dial("tcp", addr()))
	do := func(label, cmd string, args ...interface{}) {
		step(label, func() (interface{}, error) { return c.Do(cmd, args...) })
	}
	fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
	do("HELLO 3", "HELLO", "3")
	do("ECHO after", "ECHO", "after")
}
