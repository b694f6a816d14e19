// repro: radix v4 decodes the RESP3 attribute type ("|1\r\n...") inside an EXEC array as an error, "unknown type prefix \"attribute\"".
// finds: attributes/EXEC array whose first element carries an attribute [radix/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [radix/resp3]
// run: go
// expect: EXEC THROWN: .*unknown type prefix "attribute"
package main

import "fmt"

func main() {
	c := radixDial("3")
	radixDo(c, "MULTI", "MULTI")
	radixDo(c, "DEBUG PROTOCOL attrib", "DEBUG", "PROTOCOL", "attrib")
	radixDo(c, "PING", "PING")
	fmt.Println(`wire: *2\r\n|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$...\r\n+PONG\r\n`)
	radixDo(c, "EXEC", "EXEC")
}
