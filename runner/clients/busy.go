package clients

import (
	"context"
	"fmt"
	"time"
)

// busyConn is implemented by connections whose library runs in a process
// of its own (a CLI: one process per case connection), whose CPU time
// tells a slow call from a hung one.
type busyConn interface {
	// CPU is the process's CPU time so far, user and system; ok is false
	// when it cannot be read (the process ended, not Linux).
	CPU() (cpu time.Duration, ok bool)
	// Sending is whether the harness is still handing the call's command
	// to the process (building or writing it): the library has not had
	// it yet, and waits without working.
	Sending() bool
}

// A call on a busyConn that gave no result within its step timeout is
// watched for busyWindow at a time: it is hung once, in a window, its
// process used less than busyMinCPU, the harness was not sending it the
// command and the session's proxy read nothing, and at the latest busyMaxPast after its
// timeout (a library spinning at full CPU is hung too). Without this, valkey-cli 9.1.2 printing a 1 MiB blob
// with --no-raw on a loaded 2-CPU machine (CI, with the client matrix
// alongside) was judged a hang after 2 s while it was still escaping the
// bytes; a CLI waiting on its socket uses no CPU at all.
const (
	busyWindow  = 500 * time.Millisecond
	busyMinCPU  = 20 * time.Millisecond // two clock ticks of /proc/PID/stat
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
// then, for a busyConn, as long as its process or the proxy (moved: the
// bytes it read so far) keeps working (see busyWindow). ok is false when
// ctx ended first.
func await(ctx context.Context, c Conn, moved func() int64, done <-chan outcome, start time.Time, timeout time.Duration) (a awaited, ok bool) {
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
		a.out.hung = true
		return a, true
	}
	end := start.Add(timeout + busyMaxPast)
	for {
		before, ok1 := b.CPU()
		read := moved()
		timer.Reset(busyWindow)
		select {
		case a.out = <-done:
			a.past = time.Since(start) - timeout
			return a, true
		case <-timer.C:
		case <-ctx.Done():
			return a, false
		}
		after, ok2 := b.CPU()
		a.past = time.Since(start) - timeout
		working := ok1 && ok2 && after-before >= busyMinCPU || b.Sending() || moved() > read
		if !working || time.Now().After(end) {
			a.out.hung = true
			return a, true
		}
		a.worked = true
	}
}

// note is what a wait past the step timeout adds to the step's notes, or
// "".
func (a awaited) note(timeout time.Duration) string {
	past := a.past.Round(time.Millisecond)
	switch {
	case a.past == 0:
		return ""
	case !a.out.hung:
		return fmt.Sprintf("slow, not hung: no result within %v, but its process was working (CPU time) or the harness still passing it bytes, and it answered %v later", timeout, past)
	case a.worked:
		return fmt.Sprintf("its process kept working %v past the timeout, then stopped working or reached the limit of %v", past, busyMaxPast)
	}
	return fmt.Sprintf("then, for %v, its process used no CPU and the proxy read no byte: waiting, not working", busyWindow)
}
