// Package runner replays cases (package cases) against a live
// Redis-compatible server over raw sockets (package resp) and compares every
// reply with what the case expects, byte for byte or by typed value.
//
// # Goals
//
//   - Exact: the bytes a server sends are compared as they arrived; nothing is
//     decoded into a client library's idea of a value first.
//   - Both protocols: each case runs once per protocol, RESP2 on a connection
//     that never sends HELLO (as old clients do) and RESP3 after HELLO 3.
//   - Honest outcomes: a reply that differs is a failure; a server that hangs,
//     resets or sends malformed bytes is an error, kept apart from failures,
//     and a server that is gone ends the run quickly (Report.ServerLost).
//   - Usable from Go tests: Run takes parsed files and an address and returns
//     a Report; Test wraps it for testing.T.
//
// # Non-goals
//
// Client-library behaviour (that is a client view's job), load testing, and
// anything that needs a cluster.
//
// # Terminology
//
//   - target: the server under test, an address or a throwaway server.
//   - run: one invocation over a set of files; it has a run id that makes the
//     key names of its cases unique.
//   - result: one case in one protocol, with a Status and the steps it ran.
//   - step result: what one step sent and the exact reply bytes it read.
//   - known difference: a case declared to fail on some servers; it is
//     reported as known while it fails there and as a failure once it passes.
//   - scenario: a case that runs a concurrency or crash-window experiment
//     (cases.Scenario) instead of steps; package runner/scenario runs it and
//     measures it, the runner gates it, checks its invariants and deletes
//     its keys.
package runner
