// repro: radix v4 on a RESP3 connection hands a push frame (">2 server-cpu-usage 42" after DEBUG PROTOCOL push, ">2 invalidate [key]" from CLIENT TRACKING, a "message" push) to the next Conn.Do as its reply, and every later reply arrives one call late.
// finds: faults/push after a reply [radix/resp3]
// finds: faults/invalidation push before a reply [radix/resp3]
// finds: pushes/push frame after a blob string reply from DEBUG PROTOCOL push [radix/resp3]
// finds: pushes/invalidate push waiting before a blob string reply [radix/resp3]
// finds: pushes/invalidate push between a simple string reply and a blob string reply [radix/resp3]
// finds: pushes/invalidate push between two pipelined replies [radix/resp3]
// finds: pushes/two invalidate pushes in a row before an integer reply [radix/resp3]
// finds: pushes/push frame after an EXEC array holding DEBUG PROTOCOL push's reply [radix/resp3]
// finds: pushes/message push between two replies on a subscribed connection [radix/resp3]
// finds: resp3-types/push frame beside a blob string from DEBUG PROTOCOL push [radix/resp3]
// finds: tracking/invalidate push from another connection's SET, read before a simple string reply [radix/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [radix/resp3]
// finds: tracking/invalidate push for a BCAST prefix, before an integer reply [radix/resp3]
// finds: tracking/invalidate push under OPTIN for the key read after CLIENT CACHING yes only [radix/resp3]
// finds: tracking/invalidate push with a null key list after FLUSHDB [radix/resp3]
// run: go
// expect: (?s)ECHO after-push DECODED: \["server-cpu-usage" 42\]\n.*ECHO next DECODED: "after-push"\n.*GET after invalidation DECODED: \["invalidate" \["repro:key"\]\]\n.*PING next DECODED: "v2"\n
package main

import (
	"fmt"
	"time"
)

func main() {
	c := radixDial("3")
	fmt.Println(`wire: $...\r\n (the DEBUG reply), then >2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n`)
	radixDo(c, "DEBUG PROTOCOL push", "DEBUG", "PROTOCOL", "push")
	radixDo(c, "ECHO after-push", "ECHO", "after-push")
	radixDo(c, "ECHO next", "ECHO", "next")
	c.Close()

	c = radixDial("3")
	other := radixDial("3")
	radixDo(c, "SET", "SET", "repro:key", "v1")
	radixDo(c, "CLIENT TRACKING on", "CLIENT", "TRACKING", "on")
	radixDo(c, "GET", "GET", "repro:key")
	radixDo(other, "other SET", "SET", "repro:key", "v2")
	time.Sleep(100 * time.Millisecond)
	fmt.Println(`wire: >2\r\n$10\r\ninvalidate\r\n*1\r\n$9\r\nrepro:key\r\n then $2\r\nv2\r\n`)
	radixDo(c, "GET after invalidation", "GET", "repro:key")
	radixDo(c, "PING next", "PING")
}
