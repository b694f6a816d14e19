package clients

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mediocregopher/radix/v4"
	"github.com/mediocregopher/radix/v4/resp/resp3"
)

// radixDriver drives github.com/mediocregopher/radix/v4: one Conn per case
// connection (Dialer.Dial), Conn.Do(radix.Cmd) into an interface{}; RESP3
// through Dialer.Protocol "3" (HELLO 3), RESP2 without HELLO.
type radixDriver struct{}

func (radixDriver) Library() string { return "radix" }
func (radixDriver) Version() string { return moduleVersion("github.com/mediocregopher/radix/v4") }
func (radixDriver) Protos() []int   { return []int{2, 3} }
func (radixDriver) API() string     { return "Conn.Do(ctx, radix.Cmd(&v, command, args...))" }

func (radixDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	d := radix.Dialer{}
	if proto == 3 {
		d.Protocol = "3"
	}
	return &radixSession{addr: addr, d: d, conns: map[string]radix.Conn{}}, nil
}

type radixSession struct {
	addr  string
	d     radix.Dialer
	mu    sync.Mutex
	conns map[string]radix.Conn
}

func (s *radixSession) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return radixConn{c}, nil
	}
	c, err := s.d.Dial(ctx, "tcp", s.addr)
	if err != nil {
		return nil, err
	}
	s.conns[name] = c
	return radixConn{c}, nil
}

func (s *radixSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	return nil
}

type radixConn struct{ c radix.Conn }

func (c radixConn) Do(ctx context.Context, args [][]byte) Native {
	var v any
	err := c.c.Do(ctx, radix.Cmd(&v, string(args[0]), strArgs(args[1:])...))
	if err != nil {
		return radixErr(err)
	}
	return goNative(v)
}

// radixErr classifies a radix error: server errors (resp3.SimpleError,
// resp3.BlobError, maybe wrapped) are errors, anything else an exception.
func radixErr(err error) Native {
	var se resp3.SimpleError
	var be resp3.BlobError
	switch {
	case errors.As(err, &se):
		return errNative("error", fmt.Sprintf("%T", err), "resp3.SimpleError", se.S)
	case errors.As(err, &be):
		return errNative("error", fmt.Sprintf("%T", err), "resp3.BlobError", string(be.B))
	}
	return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
}
