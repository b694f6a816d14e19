// Package target is respcheck's one way to reach a server: it dials (TCP or
// TLS), performs the handshake (AUTH or HELLO 3 AUTH with an ACL user,
// SELECT), identifies the server (family, version, mode, DEBUG, RESP3) and
// evaluates the gates of cases (every field of cases.Gates), caching what it
// asks the server for the length of a run.
//
// Every command that talks to a server (run, record, clients, bench, golden
// checks) goes through it, so a capability added here (a new auth form, a
// cluster topology) reaches all of them.
//
// # Terminology
//
//   - Config: how to reach one server (address, credentials, database,
//     TLS, deadline, reader limits).
//   - Conn: one raw connection after the handshake, with its resp.Reader.
//   - Server: what the server said about itself (INFO server, HELLO 3).
//   - Target: a Config, its Server and the answers of gate checks
//     (COMMAND INFO, probes), shared by the goroutines of one run.
//
// # Non-goals
//
// Judging replies (package runner) and reading pushes out of band on a
// case's connections (runner's conn) are not this package's job: Conn.Do
// skips pushes and returns the first reply.
package target
