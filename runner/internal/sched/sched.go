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
