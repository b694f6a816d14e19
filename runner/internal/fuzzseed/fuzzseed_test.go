package fuzzseed

import (
	"flag"
	"slices"
	"testing"
)

// TestSample: every seed as a test; at most fuzzing, spread from the first
// to near the last and the same twice, while fuzzing.
func TestSample(t *testing.T) {
	seeds := make([]int, 1000)
	for i := range seeds {
		seeds[i] = i
	}
	if got := Sample(seeds); len(got) != 1000 {
		t.Fatalf("not fuzzing: %d seeds, want all 1000", len(got))
	}
	f := flag.Lookup("test.fuzz")
	old := f.Value.String()
	f.Value.Set("^FuzzX$")
	defer f.Value.Set(old)
	got := Sample(seeds)
	if len(got) != fuzzing || got[0] != 0 || got[fuzzing-1] < 900 || !slices.IsSorted(got) || !slices.Equal(got, Sample(seeds)) {
		t.Errorf("fuzzing: %v", got)
	}
	if few := Sample(seeds[:5]); len(few) != 5 {
		t.Errorf("fuzzing, 5 seeds: %v", few)
	}
}
