// Package scenario runs the concurrency and crash-window experiments of
// cases.Scenario against one server and measures them: Run opens the
// connections of a scenario, makes them work at once and returns the
// figures (Metrics) that the scenario's invariants are checked on.
//
// # Goals
//
//   - Every pattern of cases.CounterPatterns and cases.RateLimitPatterns,
//     with the commands and retries its documentation names, and nothing
//     else on the wire: the figures (commands, bytes_per_update) count
//     what a client following the pattern would send.
//   - All connections dialled before any starts, so that they work at once.
//   - The figures of cases.CounterMetrics and cases.RateLimitMetrics, with
//     the same names and meaning on every server.
//
// # Non-goals
//
// Gating a scenario on the server (package runner does, through
// target.Target.Skip), judging its figures (runner checks
// cases.Scenario.Expect and known differences), and deleting its keys
// afterwards (runner does) are not this package's job. Neither is reading
// pushes: a scenario's connections use target.Conn.DoBytes, which skips
// them.
//
// # Terminology
//
//   - Scenario: a cases.Scenario, run once in one protocol by Run.
//   - Pattern: what each connection does (cases.Pattern): a counter
//     pattern updates one hot key ({prefix}key); a rate-limiter pattern
//     makes requests, each on its own fresh key ({prefix}rl:N).
//   - Worker: one connection of a scenario (c1, c2, ...) and its counts.
//   - Update: one increment of the counter by a counter pattern; an update
//     of a retry pattern takes one or more attempts, up to MaxAttempts.
//   - Request: one increment-and-expire of a rate-limiter pattern; an
//     injected crash closes the worker's connection where the pattern's
//     documentation puts it and dials a new one.
//   - Metrics: the figures of one run, by name.
package scenario
