// repro: go-redis v9 Conn.Do(SUBSCRIBE) returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message", or a second confirmation) to the next Do as its reply, in RESP2 and RESP3, so replies arrive one call late.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [go-redis/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [go-redis/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [go-redis/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [go-redis/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [go-redis/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [go-redis/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [go-redis/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [go-redis/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [go-redis/resp2]
// finds: pushes/message push between two replies on a subscribed connection [go-redis/resp3]
// run: go
// expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[\]interface \{\}\{"message", "repro:ch", "hello"\}\nRESP2 ECHO next DECODED: \[\]interface \{\}\{"unsubscribe", "repro:ch", 0\}\n.*RESP2 UNSUBSCRIBE all DECODED: \[\]interface \{\}\{"subscribe", "repro:c2", 2\}\n.*RESP3 UNSUBSCRIBE DECODED: \[\]interface \{\}\{"message", "repro:ch", "hello"\}\n
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

var ctx = context.Background()

func dial(proto int) *redis.Conn {
	return redis.NewClient(&redis.Options{Addr: os.Args[1], Protocol: proto, MaxRetries: -1}).Conn()
}

// do is one generic call with a 2 s timer; it prints DECODED, THROWN or HANG.
func do(c *redis.Conn, label string, args ...interface{}) {
	type res struct {
		v   interface{}
		err error
	}
	done := make(chan res, 1)
	go func() { v, err := c.Do(ctx, args...).Result(); done <- res{v, err} }()
	select {
	case r := <-done:
		if r.err != nil && r.err != redis.Nil {
			fmt.Println(label, "THROWN:", r.err)
		} else {
			fmt.Printf("%s DECODED: %#v\n", label, r.v)
		}
	case <-time.After(2 * time.Second):
		fmt.Println(label, "HANG: no result after 2s")
		os.Exit(0)
	}
}

func main() {
	for _, proto := range []int{2, 3} {
		name := fmt.Sprintf("RESP%d", proto)
		c, pub := dial(proto), dial(proto)
		do(c, name+" SUBSCRIBE", "SUBSCRIBE", "repro:ch")
		do(pub, name+" PUBLISH", "PUBLISH", "repro:ch", "hello")
		time.Sleep(100 * time.Millisecond)
		fmt.Println(`wire: *3\r\n$7\r\nmessage\r\n$8\r\nrepro:ch\r\n$5\r\nhello\r\n (a push > in RESP3), then *3\r\n$11\r\nunsubscribe\r\n...`)
		do(c, name+" UNSUBSCRIBE", "UNSUBSCRIBE", "repro:ch")
		do(c, name+" ECHO next", "ECHO", "next")
		c.Close()
		c = dial(proto)
		fmt.Println(`wire: *3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c2\r\n:2\r\n`)
		do(c, name+" SUBSCRIBE two", "SUBSCRIBE", "repro:c1", "repro:c2")
		do(c, name+" UNSUBSCRIBE all", "UNSUBSCRIBE")
		c.Close()
		pub.Close()
	}
}
