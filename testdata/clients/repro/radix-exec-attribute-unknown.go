// repro: radix v4 decodes the RESP3 attribute type ("|1\r\n...") inside an EXEC array as an error, "unknown type prefix \"attribute\"".
// finds: attributes/EXEC array whose first element carries an attribute [radix/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [radix/resp3]
// run: go
// expect: EXEC THROWN: .*unknown type prefix "attribute"
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mediocregopher/radix/v4"
)

var ctx = context.Background()

func dial(proto string) radix.Conn {
	c, err := (radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", os.Args[1])
	if err != nil {
		fmt.Println("THROWN:", err)
		os.Exit(0)
	}
	return c
}

// do is one generic call with a 2 s timer; it prints DECODED, THROWN or HANG.
func do(c radix.Conn, label string, cmd string, args ...string) {
	var v interface{}
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, radix.Cmd(&v, cmd, args...)) }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Println(label, "THROWN:", err)
		} else {
			fmt.Printf("%s DECODED: %s\n", label, show(v))
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
	c := dial("3")
	do(c, "MULTI", "MULTI")
	do(c, "DEBUG PROTOCOL attrib", "DEBUG", "PROTOCOL", "attrib")
	do(c, "PING", "PING")
	fmt.Println(`wire: *2\r\n|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$...\r\n+PONG\r\n`)
	do(c, "EXEC", "EXEC")
}
