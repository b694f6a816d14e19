// Package fuzzseed keeps a fuzz target's seed corpus small while the
// target is fuzzed, so that the fuzzing starts at once.
package fuzzseed

import "flag"

// Fuzzing is the most seeds Sample keeps while the test binary fuzzes.
const Fuzzing = 24

// Sample returns seeds, or, when the test binary fuzzes (go test -fuzz:
// its -test.fuzz flag is set), at most Fuzzing of them, evenly spread and
// the same on every call. Go runs every seed for the baseline coverage
// before it mutates any, within the target's -fuzztime: FuzzServe's 1,760
// seeds took the 2 s scripts/test gives each target (305 of them done,
// 2026-12-07), and most targets fuzzed nothing. The tests still run every
// seed: the fuzz target as a test is not fuzzing. With 24, each target of
// scripts/test's fuzz phase gets past its baseline and mutates (FuzzServe:
// 42 seeds, 481 executions in 2 s; FuzzProxyFraming, whose inputs run
// through connections: 74 seeds, 84).
func Sample[T any](seeds []T) []T {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" || len(seeds) <= Fuzzing {
		return seeds
	}
	out := make([]T, 0, Fuzzing)
	for i := range Fuzzing {
		out = append(out, seeds[i*len(seeds)/Fuzzing])
	}
	return out
}
