package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/internal/sched"
)

// TestInterruptReleasesHeldResults: once the run's context is done, a
// result held behind an item that never finishes is handed on (within
// releaseAfter; the test waits at most 20 s), and not before.
func TestInterruptReleasesHeldResults(t *testing.T) {
	var mu sync.Mutex
	var ordered []int
	results := sched.NewResults(2, nil, func(v int) {
		mu.Lock()
		defer mu.Unlock()
		ordered = append(ordered, v)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer releaseOnInterrupt(ctx, results.Release)()
	results.Put(1, 1) // item 0 is still in flight
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(ordered)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d results handed on before item 0's", n)
	}
	cancel()
	for wait := time.Now().Add(20 * time.Second); count() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatal("20 s after the interruption, the finished result is still held")
		}
	}
}
