package sched

import (
	"context"
	"slices"
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

// TestPoolRunsExclusiveItemsSideBySide: on a pool of two servers, an
// exclusive item never shares its server, but it runs beside the items (and
// another exclusive item) of the other server.
func TestPoolRunsExclusiveItemsSideBySide(t *testing.T) {
	const servers = 2
	var mu sync.Mutex
	running := make([][]int, servers) // items running per server
	alone := func(i int) bool { return i%6 < 2 || i == 9 }
	var shared, bothExclusive, besideOther bool
	RunPool(context.Background(), 40, 6, servers, alone, func(i, s int) {
		if s < 0 || s >= servers {
			t.Errorf("item %d on server %d", i, s)
			return
		}
		mu.Lock()
		running[s] = append(running[s], i)
		if alone(i) && len(running[s]) > 1 || !alone(i) && slices.ContainsFunc(running[s], alone) {
			shared = true
		}
		other := running[1-s]
		if alone(i) && slices.ContainsFunc(other, alone) {
			bothExclusive = true
		}
		if alone(i) && len(other) > 0 && !slices.ContainsFunc(other, alone) {
			besideOther = true
		}
		mu.Unlock()
		time.Sleep(3 * time.Millisecond)
		mu.Lock()
		running[s] = slices.DeleteFunc(running[s], func(j int) bool { return j == i })
		mu.Unlock()
	})
	if shared {
		t.Error("an exclusive item shared its server")
	}
	if !bothExclusive {
		t.Error("two exclusive items never ran at once on the two servers")
	}
	if !besideOther {
		t.Error("an exclusive item never ran while the other server ran other items")
	}
}

// TestResultsInOrder: done sees the results as they are put, ordered in
// item order, each held until every earlier one is there; after Release,
// the held ones at once (in order) and the later ones as they come.
func TestResultsInOrder(t *testing.T) {
	var done, ordered []int
	r := NewResults(6, func(v int) { done = append(done, v) }, func(v int) { ordered = append(ordered, v) })
	for _, i := range []int{2, 0, 1, 4, 5} {
		r.Put(i, i)
	}
	if want := []int{2, 0, 1, 4, 5}; !slices.Equal(done, want) {
		t.Errorf("done got %v, want %v", done, want)
	}
	if want := []int{0, 1, 2}; !slices.Equal(ordered, want) {
		t.Fatalf("ordered got %v, want %v (3 not put yet)", ordered, want)
	}
	r.Release()
	r.Put(3, 3)
	if want := []int{0, 1, 2, 4, 5, 3}; !slices.Equal(ordered, want) {
		t.Errorf("after Release, ordered got %v, want %v", ordered, want)
	}
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(r.All, want) {
		t.Errorf("All = %v, want %v", r.All, want)
	}
}

// TestResultsHandsEachOnOnce: every result reaches ordered once, in order,
// whatever order Run's items finish in.
func TestResultsHandsEachOnOnce(t *testing.T) {
	const n = 40
	var ordered []int
	r := NewResults(n, nil, func(v int) { ordered = append(ordered, v) })
	Run(context.Background(), n, 8, nil, func(i int) {
		time.Sleep(time.Duration((n-i)%7) * time.Millisecond) // finish out of order
		r.Put(i, i)
	})
	if len(ordered) != n || !slices.IsSorted(ordered) {
		t.Errorf("ordered got %v, want 0..%d", ordered, n-1)
	}
}

// TestLimitLetsOtherKindsPass: with at most one item of a kind at once,
// items of kind "a" run one after the other while a later item of kind
// "b" (and one of no kind) starts beside the first "a" instead of waiting
// behind the second; an exclusive item (of kind "a", which another item
// holds when its turn comes) is never passed, and runs alone.
func TestLimitLetsOtherKindsPass(t *testing.T) {
	kinds := []any{"a", "a", "b", nil, "a", "x", "b"}
	exclusive := func(i int) bool { return kinds[i] == "x" }
	var mu sync.Mutex
	var order []int
	running := map[any]int{}
	most, total, totalMost := map[any]int{}, 0, 0
	aloneOK := true
	RunLimited(context.Background(), len(kinds), 3, 1, exclusive, Limit{Key: func(i int) any {
		if exclusive(i) {
			return "a"
		}
		return kinds[i]
	}, N: 1}, func(i, _ int) {
		mu.Lock()
		order = append(order, i)
		running[kinds[i]]++
		total++
		most[kinds[i]] = max(most[kinds[i]], running[kinds[i]])
		totalMost = max(totalMost, total)
		if exclusive(i) && total != 1 {
			aloneOK = false
		}
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		running[kinds[i]]--
		total--
		mu.Unlock()
	})
	if most["a"] != 1 || most["b"] != 1 {
		t.Errorf("items of one kind at once: a %d, b %d; want 1", most["a"], most["b"])
	}
	if !aloneOK {
		t.Error("the exclusive item ran beside another")
	}
	if totalMost < 2 {
		t.Errorf("at most %d items at once, want items of other kinds beside an a", totalMost)
	}
	pos := func(i int) int { return slices.Index(order, i) }
	if !(pos(2) < pos(1) && pos(3) < pos(1)) {
		t.Errorf("start order %v: items 2 (b) and 3 (no kind) should start before item 1 (a second a)", order)
	}
	if !(pos(5) > pos(4) && pos(6) > pos(5)) {
		t.Errorf("start order %v: the exclusive item 5 was passed, or ran before item 4", order)
	}
}
