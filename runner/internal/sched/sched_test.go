package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestExclusiveRunsAlone checks that no item runs beside an exclusive one
// while the others do run in parallel.
func TestExclusiveRunsAlone(t *testing.T) {
	var running, most atomic.Int32
	var mu sync.Mutex
	overlap := false
	Run(context.Background(), 20, 4, func(i int) bool { return i%5 == 0 }, func(i int) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		if i%5 == 0 && running.Load() != 1 {
			mu.Lock()
			overlap = true
			mu.Unlock()
		}
	})
	if overlap {
		t.Error("an exclusive item ran beside another")
	}
	if most.Load() < 2 {
		t.Errorf("at most %d items ran at once with 4 jobs, want several", most.Load())
	}
}

// TestStopsOnCancel checks that no item starts after the context is done and
// that started says which ran.
func TestStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran [10]atomic.Bool
	started := Run(ctx, 10, 1, nil, func(i int) {
		ran[i].Store(true)
		if i == 3 {
			cancel()
		}
	})
	for i := range ran {
		if ran[i].Load() != started[i] {
			t.Errorf("item %d: ran %v, started %v", i, ran[i].Load(), started[i])
		}
		if i > 4 && started[i] {
			t.Errorf("item %d started after the cancel", i)
		}
	}
	if !started[3] {
		t.Error("item 3 did not run")
	}
}
