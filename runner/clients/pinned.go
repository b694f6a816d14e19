package clients

import (
	"context"
	"sync"
)

// goLibrary is one built-in Go driver: a table entry naming the library,
// its module (for its version), protocols and API, and how a session dials
// its pinned connections. Each library's file holds only its entry and its
// Conn.
type goLibrary struct {
	name, module, api string
	protos            []int
	// typed marks typed-wrapper mode (connections are Wrappers).
	typed bool
	// batch marks a "/pipeline" configuration (connections are
	// Batchers).
	batch bool
	// tx marks a cluster configuration that runs MULTI … EXEC blocks
	// through its cluster client's transaction API (see clusterTx).
	tx bool
	// pubsub marks a "/pubsub" configuration (connections are
	// Subscribers): where its subscribe API runs (pubsubSame, pubsubOwn).
	pubsub string
	open   func(ctx context.Context, addr string, proto int) (Session, error)
}

func (l *goLibrary) Library() string { return l.name }
func (l *goLibrary) Version() string { return moduleVersion(l.module) }
func (l *goLibrary) Protos() []int   { return l.protos }
func (l *goLibrary) API() string     { return l.api }
func (l *goLibrary) isTyped() bool   { return l.typed }
func (l *goLibrary) isBatch() bool   { return l.batch }

// clusterTx reports whether a cluster configuration runs transactions
// through its cluster client's transaction API (see clusterTx).
func (l *goLibrary) clusterTx() (bool, string) { return l.tx, "" }

// pubsubWhere is where a "/pubsub" configuration's subscribe API runs.
func (l *goLibrary) pubsubWhere() string { return l.pubsub }

// Source is the Go module the library is built from.
func (l *goLibrary) Source() string { return "Go module " + l.module + " " + l.Version() }

func (l *goLibrary) Open(ctx context.Context, addr string, proto int) (Session, error) {
	return l.open(ctx, addr, proto)
}

// pinnedSession is the session of every Go driver: one library connection
// per case connection, opened on first use and kept for the case. C is the
// library's connection type.
type pinnedSession[C any] struct {
	dial        func(ctx context.Context) (C, error)
	wrap        func(C) Conn
	closeConn   func(C)
	closeClient func() error // may be nil

	mu    sync.Mutex
	conns map[string]C
}

func newPinnedSession[C any](dial func(context.Context) (C, error), wrap func(C) Conn, closeConn func(C),
	closeClient func() error) *pinnedSession[C] {
	return &pinnedSession[C]{dial: dial, wrap: wrap, closeConn: closeConn, closeClient: closeClient, conns: map[string]C{}}
}

func (s *pinnedSession[C]) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[name]; ok {
		return s.wrap(c), nil
	}
	c, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	s.conns[name] = c
	return s.wrap(c), nil
}

func (s *pinnedSession[C]) Close() error {
	s.mu.Lock()
	for _, c := range s.conns {
		s.closeConn(c)
	}
	s.mu.Unlock()
	if s.closeClient != nil {
		return s.closeClient()
	}
	return nil
}

// dedicated is a rueidis or valkey-go DedicatedClient with its release
// function (valkey-go is a fork of rueidis and shares its design: one
// Client per case, one Client.Dedicate() per case connection).
type dedicated[D any] struct {
	dc     D
	cancel func()
	// sub is the connection's subscriber in a "/pubsub" configuration.
	sub subscriber
}

// dedicatedCalls are the calls of one rueidis or valkey-go configuration
// on a DedicatedClient: do for a step, multi (nil but in "/pipeline"
// configurations) for a batch.
type dedicatedCalls[D any] struct {
	do    func(context.Context, D, [][]byte) Native
	multi func(context.Context, D, [][][]byte) []Native
	// pubsub (nil but in "/pubsub" configurations) sets up a new
	// connection's hooks and returns its subscriber.
	pubsub func(D) subscriber
}

// dedicatedSession is the pinned session of rueidis and valkey-go.
func dedicatedSession[D any](dedicate func() (D, func()), closeClient func(), calls dedicatedCalls[D]) Session {
	return newPinnedSession(
		func(context.Context) (dedicated[D], error) {
			dc, cancel := dedicate()
			d := dedicated[D]{dc: dc, cancel: cancel}
			if calls.pubsub != nil {
				d.sub = calls.pubsub(dc)
			}
			return d, nil
		},
		func(d dedicated[D]) Conn {
			do := funcConn(func(ctx context.Context, args [][]byte) Native { return calls.do(ctx, d.dc, args) })
			if d.sub != nil {
				return subConn{do, d.sub}
			}
			if calls.multi == nil {
				return do
			}
			return multiConn{do, func(ctx context.Context, cmds [][][]byte) []Native { return calls.multi(ctx, d.dc, cmds) }}
		},
		func(d dedicated[D]) { d.cancel() },
		func() error { closeClient(); return nil })
}

// subConn is a Conn whose subscribe steps go through its subscriber.
type subConn struct {
	funcConn
	subscriber
}

// funcConn is a Conn made of its Do.
type funcConn func(ctx context.Context, args [][]byte) Native

func (f funcConn) Do(ctx context.Context, args [][]byte) Native { return f(ctx, args) }

// multiConn is a batcher whose pipeline is one call that sends every
// command and returns a result for each (rueidis and valkey-go DoMulti). A
// transaction is that call with MULTI first and EXEC last, as users write
// it: each queued command gets the library's result for it (its QUEUED, or
// a queue-time error) and EXEC's result is the transaction's.
type multiConn struct {
	funcConn
	multi func(ctx context.Context, cmds [][][]byte) []Native
}

// Pipeline sends cmds in one multi call.
func (c multiConn) Pipeline(ctx context.Context, cmds [][][]byte) []Native { return c.multi(ctx, cmds) }

// Transaction sends MULTI, cmds and EXEC in one multi call.
func (c multiConn) Transaction(ctx context.Context, cmds [][][]byte) ([]Native, *Native) {
	all := append(append([][][]byte{{[]byte("MULTI")}}, cmds...), [][]byte{[]byte("EXEC")})
	res := c.multi(ctx, all)
	if len(res) != len(all) {
		return nil, nil // the caller reports the missing values
	}
	exec := res[len(res)-1]
	return res[1 : len(res)-1], &exec
}
