package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Test runs case files (files or directories; none means the bundled suite)
// against addr from a user's own go test, and reports each case and
// protocol as a subtest named "file/case_name_[RESP2]": a failure or error
// fails the subtest with the step, expected and actual bytes; a skip or
// known difference skips it with its reason. opts.Addr is set to addr; other
// fields are used as given (set RunID and Shared when addr holds data that
// is not the test's own).
//
//	func TestServer(t *testing.T) {
//		runner.Test(t, "127.0.0.1:6379", runner.Options{RunID: runner.NewRunID(), Shared: true}, "testdata/cases")
//	}
func Test(t *testing.T, addr string, opts Options, paths ...string) *Report {
	t.Helper()
	files, err := cases.LoadOrBundled(paths)
	if err != nil {
		t.Fatalf("respcheck: %v", err)
	}
	opts.Addr = addr
	rep, err := Run(context.Background(), files, opts)
	if err != nil {
		t.Fatalf("respcheck: %v", err)
	}
	for _, res := range rep.Results {
		t.Run(fmt.Sprintf("%s [RESP%d]", FullName(res.Case), res.Proto), func(t *testing.T) {
			switch res.Status {
			case Skip:
				t.Skip(res.Reason)
			case KnownDiff:
				t.Skip("known difference: " + res.Reason)
			case Fail, Error:
				t.Error(describe(res))
			}
		})
	}
	if rep.ServerLost != nil {
		t.Errorf("respcheck: %v", rep.ServerLost)
	}
	return rep
}

// describe is a short multi-line account of a failing result.
func describe(res *Result) string {
	s := res.Reason
	if f := res.Failure; f != nil {
		s += fmt.Sprintf("\n  want: %s\n   got: %s", f.Expected, resp.Escape(f.Actual))
	}
	return s
}
