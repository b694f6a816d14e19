// Package sched is the one scheduler of respcheck's runs: it hands items to
// a fixed number of workers in order, runs the items marked exclusive alone
// (no other item runs beside them: a case that changes the whole server, such
// as CONFIG SET or a busy script), and stops handing out items once the
// context is done.
package sched

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Run calls do(i) for each i in [0, n), in order of i, on up to jobs
// goroutines (at least one). exclusive(i) reports whether item i must run
// alone; it may be nil. Once ctx is done no further item starts; Run returns
// when every started item has returned, with started[i] telling which ran.
// do is called concurrently and must synchronise what it shares.
func Run(ctx context.Context, n, jobs int, exclusive func(int) bool, do func(int)) (started []bool) {
	started = make([]bool, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var excl sync.RWMutex
	for w := 0; w < min(max(jobs, 1), max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// The write lock waits for running items and holds new
				// ones back.
				alone := exclusive != nil && exclusive(i)
				if alone {
					excl.Lock()
				} else {
					excl.RLock()
				}
				do(i)
				if alone {
					excl.Unlock()
				} else {
					excl.RUnlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		started[i] = true
		next <- i
	}
	close(next)
	wg.Wait()
	return started
}

// Defaults fills the settings run and clients default alike: a step
// deadline of 5 s when *timeout is not positive, one job per CPU when *jobs
// is not positive, and both protocols when protos is empty (returned).
func Defaults(timeout *time.Duration, jobs *int, protos []int) []int {
	if *timeout <= 0 {
		*timeout = 5 * time.Second
	}
	if *jobs <= 0 {
		*jobs = runtime.NumCPU()
	}
	if len(protos) == 0 {
		return []int{2, 3}
	}
	return protos
}

// Results gathers the results of Run's items by index, under one lock, and
// hands each to an optional callback as it arrives, one at a time.
type Results[R any] struct {
	mu sync.Mutex
	// All holds the results by item index; the zero R for items not run.
	All  []R
	each func(R)
}

// NewResults returns Results for n items; each may be nil.
func NewResults[R any](n int, each func(R)) *Results[R] {
	return &Results[R]{All: make([]R, n), each: each}
}

// Put records item i's result and calls the callback.
func (r *Results[R]) Put(i int, v R) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.All[i] = v
	if r.each != nil {
		r.each(v)
	}
}
