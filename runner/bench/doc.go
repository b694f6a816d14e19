// Package bench measures the latency figures of respcheck's seed articles
// against one server, repeatably: conditional overwrites by value size
// (GET then SET, a Lua compare-and-set, SET IFDEQ), DIGEST by value size,
// a rate limiter's INCR plus EXPIRE (blocking, pipelined, as one Lua script
// or one INCREX), and the per-item cost of SET and HSET against MSET and
// HMSET by batch size.
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
//
// # Non-goals
//
// Pass or fail: a bench run is a measurement, and nothing here compares a
// time with a threshold. Load generation, many clients and clusters are out
// of scope; every operation is one blocking round trip (or one pipeline) on
// one connection.
//
// # Terminology
//
//   - table: one experiment, with rows (sizes, batch sizes or variants) and
//     columns (methods).
//   - cell: one row and column: a Stat.
//   - trial: one timed operation (or batch, for the batch table).
//
// The results are a Report, written as text tables (Report.WriteText),
// JSON (Report.WriteJSON) or an SVG chart drawn with gonum.org/v1/plot
// (Report.WriteSVG).
package bench
