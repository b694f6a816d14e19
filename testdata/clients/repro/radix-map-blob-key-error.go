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
// finds: aggregates/map of a hash whose field is named __proto__ from HGETALL [radix/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [radix/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [radix/resp3]
// run: go
// expect: (?s)RESP2 HELLO 3 THROWN: .*can't be a map key\nRESP2 ECHO after DECODED: "redis"\n.*RESP3 EVAL map THROWN: .*can't be a map key\nRESP3 ECHO after DECODED: .*RESP3 HELLO THROWN: .*can't be a map key\n.*RESP3 SMEMBERS THROWN: .*can't be a map key\n
package main

import "fmt"

func main() {
	for _, proto := range []string{"", "3"} {
		name := map[string]string{"": "RESP2 ", "3": "RESP3 "}[proto]
		c := radixDial(proto)
		if proto == "" {
			fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
			radixDo(c, name+"HELLO 3", "HELLO", "3")
			radixDo(c, name+"ECHO after", "ECHO", "after")
		} else {
			fmt.Println(`wire: %1\r\n$1\r\na\r\n:1\r\n`)
			radixDo(c, name+"EVAL map", "EVAL", "redis.setresp(3); return {map={a=1}}", "0")
			radixDo(c, name+"ECHO after", "ECHO", "after")
			c.Close()
			c = radixDial(proto)
			fmt.Println(`wire: %7\r\n$6\r\nserver\r\n$5\r\nredis\r\n...`)
			radixDo(c, name+"HELLO", "HELLO")
			c.Close()
			c = radixDial(proto)
			radixDo(c, name+"SADD", "SADD", "repro:set", "only")
			fmt.Println(`wire: ~1\r\n$4\r\nonly\r\n`)
			radixDo(c, name+"SMEMBERS", "SMEMBERS", "repro:set")
		}
		c.Close()
	}
}
