// repro: radix v4 Conn.Do(SUBSCRIBE) returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message", or a second confirmation) to the next Do as its reply, so replies arrive one call late.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [radix/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [radix/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [radix/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [radix/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [radix/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [radix/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [radix/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [radix/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [radix/resp2]
// run: go
// expect: (?s)RESP2 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\nRESP2 ECHO next DECODED: \["unsubscribe" "repro:ch" 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \["subscribe" "repro:c2" 2\]\n.*RESP3 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\n
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
	for _, proto := range []string{"", "3"} {
		name := map[string]string{"": "RESP2", "3": "RESP3"}[proto]
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
