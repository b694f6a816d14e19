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
	"context"
	"fmt"
	"time"

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
	fmt.Println(`wire: $...\r\n (the DEBUG reply), then >2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n`)
	do(c, "DEBUG PROTOCOL push", "DEBUG", "PROTOCOL", "push")
	do(c, "ECHO after-push", "ECHO", "after-push")
	do(c, "ECHO next", "ECHO", "next")
	c.Close()

	c = dial("3")
	other := dial("3")
	do(c, "SET", "SET", "repro:key", "v1")
	do(c, "CLIENT TRACKING on", "CLIENT", "TRACKING", "on")
	do(c, "GET", "GET", "repro:key")
	do(other, "other SET", "SET", "repro:key", "v2")
	time.Sleep(100 * time.Millisecond)
	fmt.Println(`wire: >2\r\n$10\r\ninvalidate\r\n*1\r\n$9\r\nrepro:key\r\n then $2\r\nv2\r\n`)
	do(c, "GET after invalidation", "GET", "repro:key")
	do(c, "PING next", "PING")
}
