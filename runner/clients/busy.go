package clients

import (
	"context"
	"fmt"
	"time"
)

// busyConn is implemented by connections whose library runs in a process
// of its own (a CLI: one process per case connection), whose scheduling
// tells a slow call from a hung one.
type busyConn interface {
	// Busy is how long the process has run on a CPU or been runnable,
	// waiting for one, so far (see procBusy); ok is false when it cannot
	// be read (the process ended, not Linux).
	Busy() (busy time.Duration, ok bool)
	// IO is how many bytes the harness has read from the process so far
	// (what it printed), and whether the harness is at work on the call
	// (building or writing its command, converting its output) rather
	// than waiting for the process: a process blocked on a full pipe, or
	// waiting for its command, works once the harness does.
	IO() (read int64, harness bool)
}

// A call on a busyConn that gave no result within its step timeout is
// watched for busyWindow at a time: it is hung once nothing moved (see
// workedSince) for a window; once it worked, for two windows or a quarter
// of the time it has run past its timeout if that is longer; and at the
// latest busyMaxPast after its
// timeout (a library spinning at full CPU is hung too). Without this,
// valkey-cli 9.1.2 printing a 1 MiB blob with --no-raw on a loaded 2-CPU
// machine (CI, with the client matrix alongside) was judged a hang after
// 2 s while it was still escaping the bytes; a CLI waiting on its socket
// uses no CPU at all. And CI (stop 45, d13c65f) saw valkey-cli judged
// hung on a 10 MiB GET after 500 ms in which it got less than a clock
// tick of CPU, runnable on a machine whose test jobs kept both CPUs: time
// waiting for a CPU counts as busy since.
const (
	busyWindow  = 500 * time.Millisecond
	busyMinCPU  = 10 * time.Millisecond // one clock tick of /proc/PID/stat
	busyMaxPast = 20 * time.Second
)

// awaited is how a wait for a call ended: its outcome (hung when none
// came), how long the wait went on after the step timeout (watching a
// busyConn), and whether the process was seen working then.
type awaited struct {
	out    outcome
	past   time.Duration
	worked bool
}

// await waits for a call's outcome on done: until timeout after start,
// then, for a busyConn, as long as its process or the proxy (proxyWork:
// the bytes it read so far, whether it is writing a frame on) keeps
// working (see busyWindow). ok is false when
// ctx ended first.
func await(ctx context.Context, c Conn, proxyWork func() (int64, bool), done <-chan outcome, start time.Time, timeout time.Duration) (a awaited, ok bool) {
	timer := time.NewTimer(time.Until(start.Add(timeout)))
	defer timer.Stop()
	select {
	case a.out = <-done:
		return a, true
	case <-timer.C:
	case <-ctx.Done():
		return a, false
	}
	b, isBusy := c.(busyConn)
	if !isBusy {
		return a.hungUnless(done), true
	}
	end := start.Add(timeout + busyMaxPast)
	// base: the sample when something last moved. Measured from there,
	// a process using a little CPU at a steady pace (less than busyMinCPU
	// per window) is seen working within a few windows.
	base := sampleWork(b, proxyWork)
	quiet := time.Now() // since when nothing has moved
	for {
		timer.Reset(busyWindow)
		select {
		case a.out = <-done:
			a.past = time.Since(start) - timeout
			return a, true
		case <-timer.C:
		case <-ctx.Done():
			return a, false
		}
		now, cur := time.Now(), sampleWork(b, proxyWork)
		a.past = now.Sub(start) - timeout
		if cur.workedSince(base) {
			quiet, a.worked, base = now, true, cur
		}
		// A call that worked may stall two windows, or a quarter of the
		// time it worked if longer (the machine's other work, a server
		// still sending a large reply), before it counts as stopped; one
		// that never worked, a window.
		stall := busyWindow
		if a.worked {
			stall = max(2*busyWindow, a.past/4)
		}
		if now.Sub(quiet) >= stall || now.After(end) {
			return a.hungUnless(done), true
		}
	}
}

// hungUnless ends a wait whose time is up: hung, unless an outcome is on
// done already. A deadline already past when the wait began (an async
// step's start is when it was queued) fires with the outcome maybe there
// too, and select picks either.
func (a awaited) hungUnless(done <-chan outcome) awaited {
	select {
	case a.out = <-done:
	default:
		a.out.hung = true
	}
	return a
}

// workSample is what await reads of a call at the end of a window.
type workSample struct {
	busy                time.Duration
	busyOK              bool
	printed, moved      int64
	harness, forwarding bool
}

func sampleWork(b busyConn, proxyWork func() (int64, bool)) workSample {
	var w workSample
	w.busy, w.busyOK = b.Busy()
	w.printed, w.harness = b.IO()
	w.moved, w.forwarding = proxyWork()
	return w
}

// workedSince says whether anything moved since base (the sample when
// something last moved): the process's time running or waiting for a
// CPU (by busyMinCPU), its output, the proxy's bytes, or the harness or
// proxy being at work now.
func (w workSample) workedSince(base workSample) bool {
	return w.busyOK && base.busyOK && w.busy-base.busy >= busyMinCPU || w.printed > base.printed ||
		w.moved > base.moved || w.harness || w.forwarding
}

// note is what a wait past the step timeout adds to the step's notes, or
// "".
func (a awaited) note(timeout time.Duration) string {
	past := a.past.Round(time.Millisecond)
	switch {
	case a.past == 0:
		return ""
	case !a.out.hung:
		return fmt.Sprintf("slow, not hung: no result within %v, but its process was working (or waiting for a CPU) or the harness still passing its bytes, and it answered %v later", timeout, past)
	case a.worked:
		return fmt.Sprintf("no result %v past the timeout: its process worked for a while, then nothing moved for %v or a quarter of that time (or it reached the limit of %v)", past, 2*busyWindow, busyMaxPast)
	}
	return fmt.Sprintf("then, for %v, its process ran or waited for a CPU less than %v, printed nothing, and the proxy moved no byte: waiting, not working", busyWindow, busyMinCPU)
}
