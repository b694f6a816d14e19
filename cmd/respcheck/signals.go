package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// The one place respcheck handles signals: mainRun gives every command a
// context that SIGINT (Ctrl-C) or SIGTERM cancels, with an *interrupted
// cause naming the signal. A command then ends its work, writes the report
// gathered so far and returns; mainRun turns that into exit 130 (SIGINT)
// or 143 (SIGTERM). A second signal, or a command still running
// forceExitAfter after the first, ends the process at once with the same
// status (throwaway servers die with it: see runner/servers).

// interrupted is the cause of a command context's end on a signal.
type interrupted struct{ sig syscall.Signal }

func (e *interrupted) Error() string { return "interrupted (" + sigName(e.sig) + ")" }

// code is the shell's 128+signal: 130 for SIGINT, 143 for SIGTERM.
func (e *interrupted) code() int { return 128 + int(e.sig) }

func sigName(s syscall.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// forceExitAfter is how long a command may take to end after the first
// signal before the process ends without it.
const forceExitAfter = 5 * time.Second

// handleSignals returns parent's child context cancelled on the first
// SIGINT or SIGTERM, with an *interrupted cause; stop releases the
// signals. With force, a second signal or forceExitAfter without the
// command's end exits the process (mainRun in tests passes false: the
// test binary is not the command's to end).
func handleSignals(parent context.Context, force bool) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first *interrupted
		var timer <-chan time.Time
		for {
			select {
			case <-done:
				return
			case <-timer:
				os.Exit(first.code())
			case s := <-ch:
				sig, _ := s.(syscall.Signal)
				if first != nil && force {
					os.Exit(first.code())
				}
				if first == nil {
					first = &interrupted{sig: sig}
					cancel(first)
					if force {
						timer = time.After(forceExitAfter)
					}
				}
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interruption returns the signal that interrupted ctx, or nil.
func interruption(ctx context.Context) *interrupted {
	var in *interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// interruptedErr is a command's error once ctx was interrupted: what
// the command did with the interruption (msg), exit 130 or 143 (set by
// mainRun from the signal).
func interruptedErr(msg string) error {
	return &exitError{code: exitInterrupted, err: errors.New(msg)}
}
