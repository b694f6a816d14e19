package clients

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// rueidisDriver drives github.com/redis/rueidis through Client.Dedicate()
// and Arbitrary commands; RESP3 by default, AlwaysRESP2 for RESP2.
type rueidisDriver struct{}

func (rueidisDriver) Library() string { return "rueidis" }
func (rueidisDriver) Version() string { return moduleVersion("github.com/redis/rueidis") }
func (rueidisDriver) Protos() []int   { return []int{2, 3} }

func (rueidisDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: proto == 2,
		DisableRetry: true, ForceSingleClient: true,
		ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
	})
	if err != nil {
		return nil, err
	}
	return &rueidisSession{c: c, conns: map[string]*rueidisConn{}}, nil
}

type rueidisSession struct {
	c     rueidis.Client
	mu    sync.Mutex
	conns map[string]*rueidisConn
}

func (s *rueidisSession) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	dc, cancel := s.c.Dedicate()
	c := &rueidisConn{dc: dc, cancel: cancel}
	s.conns[name] = c
	return c, nil
}

func (s *rueidisSession) Close() error {
	s.mu.Lock()
	for _, c := range s.conns {
		c.cancel()
	}
	s.mu.Unlock()
	s.c.Close()
	return nil
}

type rueidisConn struct {
	dc     rueidis.DedicatedClient
	cancel func()
}

func (c *rueidisConn) Do(ctx context.Context, args [][]byte) Native {
	r := c.dc.Do(ctx, c.dc.B().Arbitrary(strArgs(args)...).Build())
	if err := r.NonRedisError(); err != nil {
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	m, err := r.ToMessage()
	n := messageNative("RedisMessage", m.CacheMarshal(nil))
	if err != nil && n.Kind == "error" {
		// What a caller sees: RedisError.Error() (rueidis trims "ERR ").
		n.Err.Message = err.Error()
	}
	return n
}

// messageNative decodes the serialisation of a rueidis RedisMessage or
// valkey-go ValkeyMessage (CacheMarshal: 7 bytes of TTL, then per node a
// type byte, an 8-byte big-endian length or value, and the payload or
// children), so the library's own type of every node is reported.
func messageNative(prefix string, b []byte) Native {
	if len(b) < 7 {
		return errNative("exception", prefix, "serialisation", "short CacheMarshal output")
	}
	n, _ := decodeMessage(prefix, b[7:])
	return n
}

var messageTypes = map[byte]string{
	'$': "blob string", '+': "simple string", '-': "simple error", ':': "int64", '_': "null",
	',': "float64", '#': "boolean", '!': "blob error", '=': "verbatim string", '(': "big number",
	'*': "array", '%': "map", '~': "set", '|': "attribute", '>': "push",
}

func decodeMessage(prefix string, b []byte) (Native, []byte) {
	if len(b) < 9 {
		return errNative("exception", prefix, "serialisation", "truncated CacheMarshal output"), nil
	}
	typ := b[0]
	size := binary.BigEndian.Uint64(b[1:9])
	b = b[9:]
	name := prefix + " " + messageTypes[typ]
	if messageTypes[typ] == "" {
		name = fmt.Sprintf("%s type %q", prefix, typ)
	}
	switch typ {
	case ':':
		return textNative("int", name, strconv.FormatInt(int64(size), 10)), b
	case '#':
		return textNative("bool", name, strconv.FormatBool(size == 1)), b
	case '_':
		return Native{Kind: "nil", Type: name}, b
	case '*', '~', '%':
		elems := make([]Native, 0, min(size, 1<<16))
		for i := uint64(0); i < size; i++ {
			var e Native
			e, b = decodeMessage(prefix, b)
			elems = append(elems, e)
		}
		switch typ {
		case '*':
			return Native{Kind: "list", Type: name, Elems: elems}, b
		case '~':
			return Native{Kind: "set", Type: name, Elems: elems}, b
		}
		n := Native{Kind: "map", Type: name, Pairs: [][2]Native{}}
		for i := 0; i+1 < len(elems); i += 2 {
			n.Pairs = append(n.Pairs, [2]Native{elems[i], elems[i+1]})
		}
		return n, b
	}
	if uint64(len(b)) < size {
		return errNative("exception", name, "serialisation", "truncated payload"), nil
	}
	s := string(b[:size])
	b = b[size:]
	switch typ {
	case '-', '!':
		return errNative("error", name, name, s), b
	case ',':
		return textNative("float", name, s), b
	case '(':
		return textNative("bigint", name, s), b
	}
	return stringNative(name, s), b
}
