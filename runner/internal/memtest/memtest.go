// Package memtest measures what a piece of code costs in memory, for tests
// that bound it (never by timing).
package memtest

import "runtime"

// During runs f and returns how much the heap grew (live bytes after a
// collection, before and after f, which may be negative) and how many bytes
// were allocated meanwhile.
func During(f func()) (grew int64, allocated uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), after.TotalAlloc - before.TotalAlloc
}
