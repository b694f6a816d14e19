// repro: go-redis v9 Conn.Do returns an error element it has a type for (LOADING, MOVED, ASK, READONLY, OOM, EXECABORT...) as the whole reply when it is inside an array ("*2\r\n-LOADING loading\r\n$5\r\nafter\r\n" from EVAL), and leaves the rest of the array unread: the next call gets it ("after", 7); an array of a READONLY error alone comes back as the error, and the Conn is then unusable ("Conn is in a bad state": go-redis drops a connection after a READONLY reply, taking it for a failover). In a pipeline the array's rest is the next command's reply (TTL returns "after"). A plain error element (-ERR) stays an element. Found by respcheck clients --generate (runner/replies).
// finds: generated/array that starts with a LOADING error, then a blob string [go-redis/resp2]
// finds: generated/array that starts with a LOADING error, then a blob string [go-redis/resp3]
// finds: generated/array that starts with a MOVED error, then an integer [go-redis/resp2]
// finds: generated/array that starts with a MOVED error, then an integer [go-redis/resp3]
// finds: generated/array of one READONLY error from Lua [go-redis/resp2]
// finds: generated/array of one READONLY error from Lua [go-redis/resp3]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [go-redis/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [go-redis/resp3]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [go-redis/pipeline/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [go-redis/pipeline/resp3]
// run: go
// expect: (?s)RESP2 EVAL LOADING THROWN: LOADING loading\nRESP2 ECHO next DECODED: "after"\n.*RESP2 EVAL MOVED THROWN: MOVED 3999 127.0.0.1:6381\nRESP2 ECHO next DECODED: 7\n.*RESP2 EVAL ERR DECODED: \[.*7\]\nRESP2 ECHO next DECODED: "next"\n.*RESP3 EVAL LOADING THROWN: LOADING loading\nRESP3 ECHO next DECODED: "after"\n.*RESP3 EVAL MOVED THROWN: MOVED 3999 127.0.0.1:6381\nRESP3 ECHO next DECODED: 7\n.*RESP3 EVAL READONLY THROWN: READONLY You can't write against a read only replica\.\nRESP3 ECHO next THROWN: redis: Conn is in a bad state: READONLY.*RESP3 pipeline LOADING, TTL DECODED: \["error: LOADING loading" "after"\]
package main

import (
	"fmt"

	goredis "github.com/redis/go-redis/v9"
)

func main() {
	for _, proto := range []int{2, 3} {
		for _, sc := range []struct{ label, wire, script string }{
			{"LOADING", `*2\r\n-LOADING loading\r\n$5\r\nafter\r\n`, "return {{err='LOADING loading'}, 'after'}"},
			{"MOVED", `*2\r\n-MOVED 3999 127.0.0.1:6381\r\n:7\r\n`, "return {{err='MOVED 3999 127.0.0.1:6381'}, 7}"},
			{"ERR", `*2\r\n-ERR plain\r\n:7\r\n`, "return {{err='ERR plain'}, 7}"},
			{"READONLY", `*1\r\n-READONLY You can't write against a read only replica.\r\n`, "return {{err=\"READONLY You can't write against a read only replica.\"}}"},
		} {
			// A connection of its own per scenario.
			c := goredis.NewClient(&goredis.Options{Addr: addr(), Protocol: proto, MaxRetries: -1}).Conn()
			name := fmt.Sprintf("RESP%d ", proto)
			do := func(label string, args ...interface{}) {
				step(name+label, func() (interface{}, error) {
					v, err := c.Do(ctx, args...).Result()
					if s, ok := v.(string); ok {
						v = []byte(s)
					}
					return v, err
				})
			}
			fmt.Println("wire:", sc.wire)
			do("EVAL "+sc.label, "EVAL", sc.script, "0")
			do("ECHO next", "ECHO", "next")
			c.Close()
		}
		// The LOADING array in a pipeline, then TTL: the array's rest is
		// read as TTL's reply.
		c := goredis.NewClient(&goredis.Options{Addr: addr(), Protocol: proto, MaxRetries: -1}).Conn()
		fmt.Println(`wire: *2\r\n-LOADING loading\r\n$5\r\nafter\r\n then :-2\r\n (pipelined)`)
		step(fmt.Sprintf("RESP%d pipeline LOADING, TTL", proto), func() (interface{}, error) {
			cmds, _ := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
				p.Do(ctx, "EVAL", "return {{err='LOADING loading'}, 'after'}", "0")
				p.Do(ctx, "TTL", "repro:missing")
				return nil
			})
			var out []interface{}
			for _, cmd := range cmds {
				v, err := cmd.(*goredis.Cmd).Result()
				if err != nil {
					out = append(out, "error: "+err.Error())
				} else {
					out = append(out, v)
				}
			}
			return out, nil
		})
		c.Close()
	}
}
