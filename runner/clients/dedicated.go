package clients

import (
	"context"
	"sync"
)

// dedicatedSession is the session of rueidis and valkey-go, which share one
// design (valkey-go is a fork of rueidis): one Client per case, and per case
// connection one DedicatedClient (Client.Dedicate()), a pinned connection
// that is not returned to the pool while the case runs. D is the library's
// DedicatedClient type.
type dedicatedSession[D any] struct {
	dedicate    func() (D, func())
	closeClient func()
	do          func(ctx context.Context, dc D, args [][]byte) Native

	mu    sync.Mutex
	conns map[string]*dedicatedConn[D]
}

func newDedicatedSession[D any](dedicate func() (D, func()), closeClient func(),
	do func(context.Context, D, [][]byte) Native) *dedicatedSession[D] {
	return &dedicatedSession[D]{dedicate: dedicate, closeClient: closeClient, do: do, conns: map[string]*dedicatedConn[D]{}}
}

func (s *dedicatedSession[D]) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	dc, cancel := s.dedicate()
	c := &dedicatedConn[D]{dc: dc, cancel: cancel, do: s.do}
	s.conns[name] = c
	return c, nil
}

func (s *dedicatedSession[D]) Close() error {
	s.mu.Lock()
	for _, c := range s.conns {
		c.cancel()
	}
	s.mu.Unlock()
	s.closeClient()
	return nil
}

type dedicatedConn[D any] struct {
	dc     D
	cancel func()
	do     func(context.Context, D, [][]byte) Native
}

func (c *dedicatedConn[D]) Do(ctx context.Context, args [][]byte) Native {
	return c.do(ctx, c.dc, args)
}
