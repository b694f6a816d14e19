// Package bench measures the latency figures of respcheck's seed articles
// against one server, repeatably: conditional overwrites by value size
// (GET then SET, a Lua compare-and-set, SET IFDEQ), DIGEST by value size,
// a rate limiter's INCR plus EXPIRE (blocking, pipelined, as one Lua script
// or one INCREX), the per-item cost of SET and HSET against MSET and HMSET
// by batch size (also under appendfsync always, on a second throwaway
// server) and of GET and HGET against MGET and HMGET, and contention: N
// clients sharing the updates of one key with GET then SET, WATCH/MULTI/
// EXEC (with and without a random backoff), one Lua script and INCR
// (package runner/scenario runs them); INCREX on one key and a rate
// limiter's crashes between INCR and EXPIRE (runner/scenario's
// rate-limiter patterns); and slow Lua scripts: another client's
// throughput and stall beside them, BUSY errors past busy-reply-threshold,
// SCRIPT KILL.
//
// # Goals
//
//   - Repeatable: every cell is Trials timed operations after Warmup
//     untimed ones, summarised by the median and the spread (p10, p90 and
//     the median absolute deviation), so that two runs can be compared.
//   - Honest about support: a method the server lacks (no DIGEST, no SET
//     IFDEQ, no INCREX) is a cell marked "not supported by this server",
//     found by COMMAND INFO and a probe, never an error.
//   - Bytes where they are the point: each cell of the overwrite table also
//     counts the request bytes written and the reply bytes read per
//     operation (IFDEQ sends a 16-byte digest, not the old value).
//   - Raw: the client is a socket and package resp; no client library.
//   - Says where it ran: the header names the target, the link (loopback,
//     or a Link's injected latency, jitter and bandwidth) with the PING
//     round trip measured through it, the server's appendonly,
//     appendfsync, io-threads and save, and the trials of each table.
//
// # Non-goals
//
// Pass or fail: a bench run is a measurement, and nothing here compares a
// time with a threshold. Load generation and clusters are out of scope;
// outside the contention tables every operation is one blocking round trip
// (or one pipeline) on one connection. A Link simulates distance on
// 127.0.0.1 (a delay per direction, a pace); it does not lose, reorder or
// corrupt bytes. Reconfiguring the user's server: the appendfsync always
// table runs only on a server respcheck starts for it, the script tables
// lower busy-reply-threshold and send SCRIPT KILL only on a Throwaway one.
// SHUTDOWN NOSAVE, the only way to stop a script that wrote, ends the
// server: testdata/servers/repro/script-shutdown-nosave.sh shows it, not
// the bench. Upstash's key-locking
// flag for scripts is not RESP.
//
// # Terminology
//
//   - table: one experiment, with rows (sizes, batch sizes or variants) and
//     columns (methods).
//   - cell: one row and column: a Stat.
//   - trial: one timed operation (or batch, for the batch tables); in the
//     contention tables one whole run of a row's clients.
//   - link: the network between the bench and the server: loopback, or a
//     Link (LinkConfig) in front of it.
//
// The results are a Report, written as text tables (Report.WriteText),
// JSON (Report.WriteJSON) or an SVG chart drawn with gonum.org/v1/plot
// (Report.WriteSVG).
package bench
