// Package fuzzseed keeps a fuzz target's seed corpus small while the
// target is fuzzed, so that the fuzzing starts at once.
package fuzzseed

import "flag"

// fuzzing is the most seeds Sample keeps while the test binary fuzzes.
const fuzzing = 24

// Sample returns seeds, or, when the test binary fuzzes (go test -fuzz:
// its -test.fuzz flag is set), at most fuzzing of them, evenly spread and
// the same on every call. Go runs every seed for the baseline coverage
// before it mutates any, within the target's -fuzztime: FuzzServe's 1,760
// seeds took the 2 s scripts/test gives each target (305 of them done,
// 2026-12-07), and most targets fuzzed nothing. The tests still run every
// seed: the fuzz target as a test is not fuzzing. With 24, the targets of
// scripts/test's fuzz phase get past their baseline and mutate (FuzzServe:
// 42 seeds, 481 executions in 2 s); see SampleN for slow ones.
func Sample[T any](seeds []T) []T { return SampleN(seeds, fuzzing) }

// SampleN is Sample keeping at most n seeds: for a target whose seeds are
// slow to run (FuzzProxyFraming reads whole recorded streams 7 bytes at a
// time: about 30 a second, so 74 seeds did not finish in 2 s).
func SampleN[T any](seeds []T, n int) []T {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" || len(seeds) <= n {
		return seeds
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, seeds[i*len(seeds)/n])
	}
	return out
}
