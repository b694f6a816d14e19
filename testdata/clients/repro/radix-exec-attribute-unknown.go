// repro: radix v4 decodes the RESP3 attribute type ("|1\r\n...") inside an EXEC array as an error, "unknown type prefix \"attribute\"".
// finds: attributes/EXEC array whose first element carries an attribute [radix/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [radix/resp3]
// run: go
// expect: EXEC THROWN: .*unknown type prefix "attribute"
package main

import (
	"context"
	"fmt"

	"github.com/mediocregopher/radix/v4"
)

var ctx = context.Background()

func dial(proto string) radix.Conn {
	return must((radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", addr()))
}

// do is one radix call through step (lib.go).
func do(c radix.Conn, label string, cmd string, args ...string) {
	step(label, func() (interface{}, error) {
		var v interface{}
		err := c.Do(ctx, radix.Cmd(&v, cmd, args...))
		return v, err
	})
}

func main() {
	c := dial("3")
	do(c, "MULTI", "MULTI")
	do(c, "DEBUG PROTOCOL attrib", "DEBUG", "PROTOCOL", "attrib")
	do(c, "PING", "PING")
	fmt.Println(`wire: *2\r\n|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$...\r\n+PONG\r\n`)
	do(c, "EXEC", "EXEC")
}
