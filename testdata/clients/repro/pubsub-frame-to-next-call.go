// repro: go-redis v9, redigo and radix v4 Conn.Do(SUBSCRIBE) return the confirmation, then hand the next frame the server sends on the subscribed connection (a published "message", or a second confirmation) to the next Do as its reply (go-redis and radix in RESP2 and RESP3, redigo RESP2 only), so replies arrive one call late.
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
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redigo/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redigo/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redigo/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redigo/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redigo/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [radix/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [radix/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [radix/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [radix/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [radix/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [radix/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [radix/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [radix/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [radix/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [go-redis/cluster/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [go-redis/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [go-redis/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redigo/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [radix/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [radix/resp3]
// run: go
// expect: (?s)go-redis RESP2 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\ngo-redis RESP2 ECHO next DECODED: \["unsubscribe" "repro:ch" 0\]\n.*go-redis RESP2 UNSUBSCRIBE all DECODED: \["subscribe" "repro:c2" 2\]\n.*go-redis RESP3 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\n.*redigo RESP2 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\nredigo RESP2 ECHO next DECODED: \["unsubscribe" "repro:ch" 0\]\n.*redigo RESP2 UNSUBSCRIBE all DECODED: \["subscribe" "repro:c2" 2\]\n.*radix RESP2 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\nradix RESP2 ECHO next DECODED: \["unsubscribe" "repro:ch" 0\]\n.*radix RESP2 UNSUBSCRIBE all DECODED: \["subscribe" "repro:c2" 2\]\n.*radix RESP3 UNSUBSCRIBE DECODED: \["message" "repro:ch" "hello"\]\n
package main

import (
	"fmt"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/mediocregopher/radix/v4"
	goredis "github.com/redis/go-redis/v9"
)

// A library's connection, as the scenario below uses it.
type conn struct {
	do    func(args ...string) (interface{}, error)
	close func() error
}

type lib struct {
	name   string
	protos []int
	dial   func(proto int) conn
}

var libs = []lib{
	{"go-redis", []int{2, 3}, func(proto int) conn {
		c := goredis.NewClient(&goredis.Options{Addr: addr(), Protocol: proto, MaxRetries: -1}).Conn()
		return conn{func(args ...string) (interface{}, error) {
			a := make([]interface{}, len(args))
			for i, s := range args {
				a[i] = s
			}
			v, err := c.Do(ctx, a...).Result()
			if err == goredis.Nil {
				err = nil
			}
			return v, err
		}, c.Close}
	}},
	{"redigo", []int{2}, func(int) conn {
		c := must(redigo.Dial("tcp", addr()))
		return conn{func(args ...string) (interface{}, error) {
			a := make([]interface{}, len(args)-1)
			for i, s := range args[1:] {
				a[i] = s
			}
			return c.Do(args[0], a...)
		}, c.Close}
	}},
	{"radix", []int{2, 3}, func(proto int) conn {
		c := radixDial(map[int]string{2: "", 3: "3"}[proto])
		return conn{func(args ...string) (interface{}, error) {
			var v interface{}
			err := c.Do(ctx, radix.Cmd(&v, args[0], args[1:]...))
			return v, err
		}, c.Close}
	}},
}

func main() {
	keepGoing = true // one library's HANG must not hide the next one's result
	for _, l := range libs {
		for _, proto := range l.protos {
			name := fmt.Sprintf("%s RESP%d ", l.name, proto)
			do := func(c conn, label string, args ...string) {
				step(name+label, func() (interface{}, error) { return c.do(args...) })
			}
			c, pub := l.dial(proto), l.dial(proto)
			do(c, "SUBSCRIBE", "SUBSCRIBE", "repro:ch")
			do(pub, "PUBLISH", "PUBLISH", "repro:ch", "hello")
			time.Sleep(100 * time.Millisecond)
			fmt.Println(`wire: *3\r\n$7\r\nmessage\r\n$8\r\nrepro:ch\r\n$5\r\nhello\r\n (a push > in RESP3), then *3\r\n$11\r\nunsubscribe\r\n...`)
			do(c, "UNSUBSCRIBE", "UNSUBSCRIBE", "repro:ch")
			do(c, "ECHO next", "ECHO", "next")
			c.close()
			c = l.dial(proto)
			fmt.Println(`wire: *3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$8\r\nrepro:c2\r\n:2\r\n`)
			do(c, "SUBSCRIBE two", "SUBSCRIBE", "repro:c1", "repro:c2")
			do(c, "UNSUBSCRIBE all", "UNSUBSCRIBE")
			c.close()
			pub.close()
		}
	}
}
