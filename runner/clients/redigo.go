package clients

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// redigoDriver drives github.com/gomodule/redigo: one redis.Conn per case
// connection, Conn.Do; RESP2 only.
type redigoDriver struct{}

func (redigoDriver) Library() string { return "redigo" }
func (redigoDriver) Version() string { return moduleVersion("github.com/gomodule/redigo") }
func (redigoDriver) Protos() []int   { return []int{2} }
func (redigoDriver) API() string     { return "redis.Conn.Do(command, args...)" }

func (redigoDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	return &redigoSession{addr: addr, conns: map[string]redis.Conn{}}, nil
}

type redigoSession struct {
	addr  string
	mu    sync.Mutex
	conns map[string]redis.Conn
}

func (s *redigoSession) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return redigoConn{c}, nil
	}
	c, err := redis.DialContext(ctx, "tcp", s.addr, redis.DialConnectTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	s.conns[name] = c
	return redigoConn{c}, nil
}

func (s *redigoSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	return nil
}

type redigoConn struct{ c redis.Conn }

func (c redigoConn) Do(ctx context.Context, args [][]byte) Native {
	rest := make([]any, len(args)-1)
	for i, a := range args[1:] {
		rest[i] = a
	}
	v, err := redis.DoContext(c.c, ctx, string(args[0]), rest...)
	if err != nil {
		if re, ok := err.(redis.Error); ok {
			return errNative("error", "redis.Error", "redis.Error", re.Error())
		}
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	return goNative(v)
}
