// repro: redigo Conn.Do(SUBSCRIBE) returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message", or a second confirmation) to the next Do as its reply, so replies arrive one call late.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redigo/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redigo/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redigo/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redigo/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redigo/resp2]
// run: go
// expect: (?s)UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\nECHO next DECODED: \["unsubscribe" "repro:ch" 0\]\n.*UNSUBSCRIBE all DECODED: \["subscribe" "repro:c2" 2\]\n
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
	c, pub := dial(), dial()
	do(c, "SUBSCRIBE", "SUBSCRIBE", "repro:ch")
	do(pub, "PUBLISH", "PUBLISH", "repro:ch", "hello")
	time.Sleep(100 * time.Millisecond)
	fmt.Println(`wire: *3\r\n$7\r\nmessage\r\n$8\r\nrepro:ch\r\n$5\r\nhello\r\n then *3\r\n$11\r\nunsubscribe\r\n...`)
	do(c, "UNSUBSCRIBE", "UNSUBSCRIBE", "repro:ch")
	do(c, "ECHO next", "ECHO", "next")
	c.Close()
	c = dial()
	fmt.Println(`wire: *3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c2\r\n:2\r\n`)
	do(c, "SUBSCRIBE two", "SUBSCRIBE", "repro:c1", "repro:c2")
	do(c, "UNSUBSCRIBE all", "UNSUBSCRIBE")
}
