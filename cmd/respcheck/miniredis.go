package main

import (
	"github.com/alicebob/miniredis/v2"
)

// throwaway is a server started for one command and stopped at its end: a
// real redis-server/valkey-server (servers.Server) or the embedded
// miniredis.
type throwaway interface {
	Addr() string
	Stop() error
	// Log is the tail of the server's output, for error messages.
	Log() string
	// Pid is the server's process id, or 0 for an in-process server.
	Pid() int
}

// embedded is github.com/alicebob/miniredis running inside respcheck, the
// target of --server miniredis: it needs nothing installed, but it is an
// emulator, and a run against it shows how far it is from Redis (no INFO
// server, no DEBUG, backquotes in its error texts, COMMAND INFO answering
// every command...).
type embedded struct{ m *miniredis.Miniredis }

func startMiniredis() (*embedded, error) {
	m := miniredis.NewMiniRedis()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, err
	}
	return &embedded{m}, nil
}

func (e *embedded) Addr() string { return e.m.Addr() }
func (e *embedded) Stop() error  { e.m.Close(); return nil }
func (e *embedded) Log() string  { return "" }
func (e *embedded) Pid() int     { return 0 }
