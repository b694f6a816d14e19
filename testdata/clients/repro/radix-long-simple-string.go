// repro: radix v4 cannot read a simple string of 4 KiB ("+aaaa...\r\n" from EVAL's status_reply): its bufio.Reader of 4,096 bytes fills before the line's end, the call returns "bufio: buffer full" and the connection is closed (every later call: "closed"). 4,000 bytes decode, 4,096 do not. Found by respcheck clients --generate (runner/replies).
// finds: generated/simple string of 4,096 bytes from Lua's status_reply [radix/resp2]
// finds: generated/array of a simple string of 4,096 bytes and an integer from Lua [radix/resp2]
// finds: generated/simple string of 4,096 bytes from Lua's status_reply [radix/resp3]
// finds: generated/array of a simple string of 4,096 bytes and an integer from Lua [radix/resp3]
// run: go
// expect: (?s)RESP2 status 4000 DECODED: "a+"\n.*RESP2 status 4096 THROWN: .*bufio: buffer full\n.*RESP2 after THROWN: .*closed.*RESP3 status 4000 DECODED: "a+"\n.*RESP3 status 4096 THROWN: .*bufio: buffer full\n.*RESP3 after THROWN: .*closed
package main

import "fmt"

func main() {
	for _, proto := range []string{"", "3"} {
		name := map[string]string{"": "RESP2 ", "3": "RESP3 "}[proto]
		c := radixDial(proto)
		for _, n := range []int{4000, 4096} {
			fmt.Printf("wire: +%d bytes of a\\r\\n\n", n)
			radixDo(c, fmt.Sprintf("%sstatus %d", name, n), "EVAL", fmt.Sprintf("return redis.status_reply(string.rep('a',%d))", n), "0")
		}
		radixDo(c, name+"after", "ECHO", "next")
	}
}
