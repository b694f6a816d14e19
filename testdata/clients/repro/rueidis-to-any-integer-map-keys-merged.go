// repro: rueidis and valkey-go 1.0.79 RedisResult.ToAny() (ValkeyResult.ToAny()) key a RESP3 map by each key's string payload, which an integer key does not have: the three entries of DEBUG PROTOCOL map ("%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n") become one, under the key "" (message.go ToAny: vs[m.values()[i].string()] = v), at the top level and inside an EXEC array; the RedisMessage itself keeps the three integer keys.
// finds: faults/map with integer keys [rueidis/to-any/resp3]
// finds: resp3-types/map of integer keys to booleans from DEBUG PROTOCOL map, a flat array in RESP2 [rueidis/to-any/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [rueidis/to-any/resp3]
// finds: faults/map with integer keys [valkey-go/to-any/resp3]
// finds: resp3-types/map of integer keys to booleans from DEBUG PROTOCOL map, a flat array in RESP2 [valkey-go/to-any/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [valkey-go/to-any/resp3]
// run: go
// expect: (?s)wire: %3.*rueidis ToAny DECODED: map\[string\]interface \{\}\{"":false\}\nrueidis message DECODED: ".*:0.*:1.*:2.*"\nrueidis EXEC ToAny DECODED: \[map\[string\]interface \{\}\{"":false\}\]\nvalkey-go ToAny DECODED: map\[string\]interface \{\}\{"":false\}\nvalkey-go message DECODED: ".*:0.*:1.*:2.*"\nvalkey-go EXEC ToAny DECODED: \[map\[string\]interface \{\}\{"":false\}\]\n
package main

import (
	"fmt"

	"github.com/redis/rueidis"
	"github.com/valkey-io/valkey-go"
)

func main() {
	fmt.Println(`wire: %3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n`)
	r := must(rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr()}, DisableCache: true, ForceSingleClient: true}))
	step("rueidis ToAny", func() (interface{}, error) {
		return r.Do(ctx, r.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build()).ToAny()
	})
	step("rueidis message", func() (interface{}, error) {
		m, err := r.Do(ctx, r.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build()).ToMessage()
		return m.String(), err
	})
	step("rueidis EXEC ToAny", func() (v interface{}, err error) {
		r.Dedicated(func(c rueidis.DedicatedClient) error {
			rs := c.DoMulti(ctx, c.B().Multi().Build(), c.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build(), c.B().Exec().Build())
			v, err = rs[2].ToAny()
			return nil
		})
		return v, err
	})
	r.Close()
	v := must(valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr()}, DisableCache: true, ForceSingleClient: true}))
	step("valkey-go ToAny", func() (interface{}, error) {
		return v.Do(ctx, v.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build()).ToAny()
	})
	step("valkey-go message", func() (interface{}, error) {
		m, err := v.Do(ctx, v.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build()).ToMessage()
		return m.String(), err
	})
	step("valkey-go EXEC ToAny", func() (x interface{}, err error) {
		v.Dedicated(func(c valkey.DedicatedClient) error {
			rs := c.DoMulti(ctx, c.B().Multi().Build(), c.B().Arbitrary("DEBUG", "PROTOCOL", "map").Build(), c.B().Exec().Build())
			x, err = rs[2].ToAny()
			return nil
		})
		return x, err
	})
	v.Close()
}
