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
	"os"
	"time"

	"github.com/gomodule/redigo/redis"
)

func dial() redis.Conn {
	c, err := redis.Dial("tcp", os.Args[1])
	if err != nil {
		fmt.Println("THROWN:", err)
		os.Exit(0)
	}
	return c
}

// do is one generic call with a 2 s timer; it prints DECODED, THROWN or HANG.
func do(c redis.Conn, label string, cmd string, args ...interface{}) {
	type res struct {
		v   interface{}
		err error
	}
	done := make(chan res, 1)
	go func() { v, err := c.Do(cmd, args...); done <- res{v, err} }()
	select {
	case r := <-done:
		if r.err != nil {
			fmt.Println(label, "THROWN:", r.err)
		} else {
			fmt.Printf("%s DECODED: %s\n", label, show(r.v))
		}
	case <-time.After(2 * time.Second):
		fmt.Println(label, "HANG: no result after 2s")
		os.Exit(0)
	}
}

func show(v interface{}) string {
	switch x := v.(type) {
	case []byte:
		return fmt.Sprintf("%q", x)
	case []interface{}:
		s := "["
		for i, e := range x {
			if i > 0 {
				s += " "
			}
			s += show(e)
		}
		return s + "]"
	}
	return fmt.Sprintf("%#v", v)
}

func main() {
	c := dial()
	fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
	do(c, "HELLO 3", "HELLO", "3")
	do(c, "ECHO after", "ECHO", "after")
}
