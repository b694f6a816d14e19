package clients

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/valkey-io/valkey-go"
)

// valkeyGoDriver drives github.com/redis/rueidis through Client.Dedicate()
// and Arbitrary commands; RESP3 by default, AlwaysRESP2 for RESP2.
type valkeyGoDriver struct{}

func (valkeyGoDriver) Library() string { return "valkey-go" }
func (valkeyGoDriver) Version() string { return moduleVersion("github.com/valkey-io/valkey-go") }
func (valkeyGoDriver) Protos() []int   { return []int{2, 3} }

func (valkeyGoDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	c, err := valkey.NewClient(valkey.ClientOption{
		InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: proto == 2,
		DisableRetry: true, ForceSingleClient: true,
		ConnWriteTimeout: time.Minute, Dialer: net.Dialer{Timeout: 5 * time.Second},
	})
	if err != nil {
		return nil, err
	}
	return &valkeyGoSession{c: c, conns: map[string]*valkeyGoConn{}}, nil
}

type valkeyGoSession struct {
	c     valkey.Client
	mu    sync.Mutex
	conns map[string]*valkeyGoConn
}

func (s *valkeyGoSession) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	dc, cancel := s.c.Dedicate()
	c := &valkeyGoConn{dc: dc, cancel: cancel}
	s.conns[name] = c
	return c, nil
}

func (s *valkeyGoSession) Close() error {
	s.mu.Lock()
	for _, c := range s.conns {
		c.cancel()
	}
	s.mu.Unlock()
	s.c.Close()
	return nil
}

type valkeyGoConn struct {
	dc     valkey.DedicatedClient
	cancel func()
}

func (c *valkeyGoConn) Do(ctx context.Context, args [][]byte) Native {
	r := c.dc.Do(ctx, c.dc.B().Arbitrary(strArgs(args)...).Build())
	if err := r.NonValkeyError(); err != nil {
		return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
	}
	m, err := r.ToMessage()
	n := messageNative("ValkeyMessage", m.CacheMarshal(nil))
	if err != nil && n.Kind == "error" {
		// What a caller sees: ValkeyError.Error() (valkey-go trims "ERR ").
		n.Err.Message = err.Error()
	}
	return n
}
