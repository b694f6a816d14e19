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
	return RunPool(ctx, n, jobs, 1, exclusive, func(i, _ int) { do(i) })
}

// RunPool is Run over a pool of servers identical for the items (servers
// started from one build): do(i, s) runs item i on server s in [0, servers).
// An exclusive item runs alone on its server while the other servers go on
// with the other items; a non-exclusive item goes to the server running the
// fewest. Items still start in order of i, and at most jobs run at once in
// all.
func RunPool(ctx context.Context, n, jobs, servers int, exclusive func(int) bool, do func(i, s int)) (started []bool) {
	return RunLimited(ctx, n, jobs, servers, exclusive, Limit{}, do)
}

// Limit bounds how many items of one kind run at once: Key(i) is item
// i's kind (nil: unbounded, as is every item when Key is nil), N the bound
// (at least 1). The items of a kind at its bound wait, and later items of
// other kinds start before them: a job does not wait for what the kind
// stands for (clients: one of a library's adapter processes) while the
// other jobs could go on.
type Limit struct {
	Key func(i int) any
	N   int
}

// RunLimited is RunPool with lim: items start in order of i among those
// whose kind is under its bound, never past an exclusive item (it and
// the items after it wait their turn in order).
func RunLimited(ctx context.Context, n, jobs, servers int, exclusive func(int) bool, lim Limit, do func(i, s int)) (started []bool) {
	started = make([]bool, n)
	p := newPool(max(servers, 1))
	q := newQueue(n, exclusive, lim)
	stop := context.AfterFunc(ctx, q.wake)
	defer stop()
	slots := make(chan struct{}, max(jobs, 1))
	var wg sync.WaitGroup
	for range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		i, key := q.next(ctx)
		if i < 0 {
			break // ctx ended while the item waited for its kind
		}
		alone := exclusive != nil && exclusive(i)
		s := p.acquire(alone)
		if ctx.Err() != nil {
			// ctx ended while the item waited for a server.
			p.release(s, alone)
			q.done(key)
			break
		}
		started[i] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if alone {
				p.drain(s)
			}
			do(i, s)
			p.release(s, alone)
			q.done(key)
			<-slots
		}()
	}
	wg.Wait()
	return started
}

// queue hands out the items of RunLimited: the first not yet taken whose
// kind is under its bound, not past an exclusive one.
type queue struct {
	mu        sync.Mutex
	cond      sync.Cond
	taken     []bool
	head      int // every item before it is taken
	exclusive func(int) bool
	lim       Limit
	running   map[any]int
}

func newQueue(n int, exclusive func(int) bool, lim Limit) *queue {
	q := &queue{taken: make([]bool, n), exclusive: exclusive, lim: lim, running: map[any]int{}}
	if q.lim.N < 1 {
		q.lim.N = 1
	}
	q.cond.L = &q.mu
	return q
}

// next takes the next item and returns it with its kind, waiting while
// every candidate's kind is at its bound; -1 when ctx ended first.
func (q *queue) next(ctx context.Context) (int, any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ctx.Err() == nil {
		for q.head < len(q.taken) && q.taken[q.head] {
			q.head++
		}
		for i := q.head; i < len(q.taken); i++ {
			if q.taken[i] {
				continue
			}
			if i > q.head && q.exclusive != nil && q.exclusive(i) {
				break // not past an exclusive item
			}
			var key any
			if q.lim.Key != nil {
				key = q.lim.Key(i)
			}
			if key != nil && q.running[key] >= q.lim.N {
				if q.exclusive != nil && q.exclusive(i) {
					break
				}
				continue
			}
			q.taken[i] = true
			if key != nil {
				q.running[key]++
			}
			return i, key
		}
		q.cond.Wait()
	}
	return -1, nil
}

// done ends an item of kind key.
func (q *queue) done(key any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if key != nil {
		q.running[key]--
	}
	q.cond.Broadcast()
}

// wake lets a next that waits see that its context ended.
func (q *queue) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cond.Broadcast()
}

// pool tracks, per server, the non-exclusive items running on it and
// whether an exclusive item holds it (or waits for it to drain).
type pool struct {
	mu       sync.Mutex
	cond     sync.Cond
	active   []int
	reserved []bool
}

func newPool(servers int) *pool {
	p := &pool{active: make([]int, servers), reserved: make([]bool, servers)}
	p.cond.L = &p.mu
	return p
}

// acquire picks the server of an item: the least busy one that no exclusive
// item holds, waiting while every server is held. An exclusive item reserves
// it: no later item goes there until release.
func (p *pool) acquire(alone bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		best := -1
		for s := range p.active {
			if !p.reserved[s] && (best < 0 || p.active[s] < p.active[best]) {
				best = s
			}
		}
		if best >= 0 {
			if alone {
				p.reserved[best] = true
			} else {
				p.active[best]++
			}
			return best
		}
		p.cond.Wait()
	}
}

// drain waits until no other item runs on server s.
func (p *pool) drain(s int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.active[s] > 0 {
		p.cond.Wait()
	}
}

// release ends an item on server s.
func (p *pool) release(s int, alone bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if alone {
		p.reserved[s] = false
	} else {
		p.active[s]--
	}
	p.cond.Broadcast()
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
// hands each on, one at a time, to two optional callbacks: done as it
// arrives (completion order, for a progress count), ordered in item order.
// ordered is a reorder buffer keyed by the item's index: a result that
// arrives before an earlier item's is held until every earlier one has been
// handed on, then the held ones follow in order. Release ends the holding.
type Results[R any] struct {
	mu sync.Mutex
	// All holds the results by item index; the zero R for items not run.
	All []R
	// have[i] says All[i] was put; next is the first index not handed to
	// ordered yet; released says ordered gets each result as it arrives.
	have          []bool
	next          int
	released      bool
	done, ordered func(R)
}

// NewResults returns Results for n items; done and ordered may be nil.
func NewResults[R any](n int, done, ordered func(R)) *Results[R] {
	return &Results[R]{All: make([]R, n), have: make([]bool, n), done: done, ordered: ordered}
}

// Put records item i's result and calls the callbacks: done at once,
// ordered for it and each held result after it once every earlier item's
// result has been put (or at once after Release). A second Put of i
// replaces All[i] and calls done alone.
func (r *Results[R]) Put(i int, v R) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.All[i] = v
	if r.done != nil {
		r.done(v)
	}
	if r.have[i] {
		return
	}
	r.have[i] = true
	if r.released && r.ordered != nil {
		r.ordered(v)
		return
	}
	r.flush()
}

// flush hands the results from next on to ordered while they are there.
func (r *Results[R]) flush() {
	for ; r.next < len(r.All) && r.have[r.next]; r.next++ {
		if r.ordered != nil {
			r.ordered(r.All[r.next])
		}
	}
}

// Release ends the holding: every held result is handed to ordered now, in
// item order, and each result put later at once. For a run that is
// interrupted: what finished is shown even if an earlier item never ends.
func (r *Results[R]) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		return
	}
	r.released = true
	for ; r.next < len(r.All); r.next++ {
		if r.have[r.next] && r.ordered != nil {
			r.ordered(r.All[r.next])
		}
	}
}
