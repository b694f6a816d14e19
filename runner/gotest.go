package runner

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/internal/sched"
	"github.com/respcheck/respcheck/runner/target"
)

// T is what Test needs of a go test: *testing.T satisfies T[*testing.T]
// (Self is the type of the subtests Run passes to its function), so this
// package does not import testing outside its tests.
type T[Self any] interface {
	Helper()
	Fatalf(format string, args ...any)
	Fail()
	Skip(args ...any)
	Parallel()
	// Context is canceled just before the test's cleanup functions run.
	Context() context.Context
	// Output is where the test's log lines go (Go 1.25's T.Output).
	Output() io.Writer
	Run(name string, f func(Self)) bool
	// Cleanup runs f after the test and its subtests end.
	Cleanup(f func())
}

// Test runs case files (files or directories; none means the bundled suite)
// against addr from a user's own go test. Each case in each protocol is a
// subtest that runs when go test reaches it, named file/case/RESP2 (the
// case name with characters -run reads as a pattern, and "/", replaced by
// "_"), so `go test -run 'Test/strings/SET_then_GET/RESP3'` runs one case,
// -failfast stops at the first failure and durations are each case's own.
//
// A failure or error fails its subtest with a message that starts with the
// step's file:line:col, the command sent, and the expected and actual
// bytes; a skip or a known difference skips it with its reason. Unless
// opts.Jobs is 1 the subtests call t.Parallel (go test -parallel bounds
// them); an exclusive case runs alone among them. opts.Addr is set to addr;
// other fields are used as given (set RunID and Shared when addr holds data
// that is not the test's own). The server is identified once, before the
// subtests; if it cannot be, t fails at once.
//
//	func TestServer(t *testing.T) {
//		runner.Test(t, "127.0.0.1:6379", runner.Options{RunID: runner.NewRunID(), Shared: true}, "testdata/cases")
//	}
func Test[TB T[TB]](t TB, addr string, opts Options, paths ...string) {
	t.Helper()
	files, err := cases.LoadOrBundled(paths)
	if err != nil {
		t.Fatalf("respcheck: %v", err)
	}
	opts.Addr = addr
	parallel := opts.Jobs != 1
	protos := sched.Defaults(&opts.StepTimeout, &opts.Jobs, opts.Protos)
	tgt, err := target.Open(t.Context(), opts.targetConfig())
	if err != nil {
		t.Fatalf("respcheck: %s: %v", addr, err)
	}
	// A shared server's run user (Options.NoACLUser) lives until the
	// parallel subtests below have ended.
	prot, drop := opts.protect(t.Context(), tgt)
	if drop != nil {
		t.Cleanup(func() { drop(prot) })
	}
	r := &run{opts: opts, t: tgt, srv: tgt.Server, ctx: t.Context(), aclUser: prot.user()}
	var exclusive sync.RWMutex
	for _, f := range files {
		t.Run(subtestName(strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path))), func(t TB) {
			for _, c := range f.Cases {
				if !selected(c, opts) {
					continue
				}
				t.Run(subtestName(c.Name), func(t TB) {
					for _, p := range protos {
						t.Run(fmt.Sprintf("RESP%d", p), func(t TB) {
							if parallel {
								t.Parallel()
							}
							lock, unlock := exclusive.RLock, exclusive.RUnlock
							if c.Exclusive {
								lock, unlock = exclusive.Lock, exclusive.Unlock
							}
							lock()
							defer unlock()
							res := &Result{Case: c, Proto: p}
							r.runItem(context.WithoutCancel(t.Context()), item{c: c, proto: p, t: tgt, alone: true}, res)
							reportSubtest(t, res)
						})
					}
				})
			}
		})
	}
}

// subtestName replaces what go test -run would read as a pattern or a
// level separator ("/") in a name by "_" (spaces become "_" anyway).
func subtestName(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\.+*?()|[]{}^$`, r) {
			return '_'
		}
		return r
	}, s)
}

// reportSubtest ends t as res says: skipped with the reason of a skip or a
// known difference, failed with the failing step's position first.
func reportSubtest[TB T[TB]](t TB, res *Result) {
	switch res.Status {
	case Skip:
		t.Skip(res.Reason)
	case KnownDiff:
		t.Skip("known difference: " + res.Reason)
	case Fail, Error:
		// The step's file:line:col starts the line, where editors and CI
		// annotations look, instead of this file's.
		fmt.Fprintln(t.Output(), describe(res))
		t.Fail()
	}
}

// describe is a short multi-line account of a failing result: its reason
// (which starts with the failed expectation's position), the command
// sent, and the expected and actual bytes.
func describe(res *Result) string {
	s := res.Reason
	if n := len(res.Steps); n > 0 && res.Steps[n-1].Args != nil {
		s += "\n  sent: " + resp.EscapeCommand(res.Steps[n-1].Args)
	}
	if f := res.Failure; f != nil {
		s += fmt.Sprintf("\n  want: %s\n   got: %s", f.Expected, resp.Escape(f.Actual))
	}
	return s
}
