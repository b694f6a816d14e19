package runner

import (
	"fmt"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/schema"
	"github.com/respcheck/respcheck/runner/target"
)

// Status is the outcome of one case in one protocol.
type Status int

const (
	// Pass: every step got what it expected.
	Pass Status = iota
	// Fail: a reply differed from the expectation, or a known difference
	// stopped reproducing (Result.Known is then set and Result.Reason says so).
	Fail
	// Skip: a gate was not met (Result.Reason says which); nothing was sent.
	Skip
	// Error: the case could not be judged: a deadline passed, the connection
	// broke, the reply was not valid RESP, or a template could not expand.
	Error
	// KnownDiff: the case failed on a server where the case declares a known
	// difference; Result.Reason carries the declared reason. It does not fail
	// the run.
	KnownDiff
)

var statusNames = [...]string{"pass", "fail", "skip", "error", "known"}

// String returns "pass", "fail", "skip", "error" or "known".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// MarshalText encodes the status as its String form.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a String form ("pass", "known"...), as a JSON
// report holds it; any other text is an error.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}

// Result is one case run in one protocol.
type Result struct {
	Case   *cases.Case
	Proto  int    // 2 or 3
	Status Status // see Status
	// Reason explains a non-pass status: the skip gate, the failure summary,
	// the infrastructure error, or the declared reason of a known difference.
	Reason string
	// Failure describes the step that failed (Status Fail or KnownDiff), or
	// nil.
	Failure *Failure
	// More are the later steps that failed too, in order, in a case that
	// goes on after a failure (cases.Case.ContinueOnFailure); Failure is
	// the first.
	More []*Failure
	// Known is the declared known difference that matched the server, if any.
	Known    *cases.Known
	Steps    []StepResult
	Duration time.Duration
	// NotRun is set for a case the run never started, because the server
	// was lost (Status Error) or the run was interrupted (Status Skip).
	NotRun bool
	// Malformed is set when the case ended because the server sent bytes
	// that are not valid RESP (Status Error; Reason has the offset).
	Malformed bool
	// KeyPrefix is the prefix of the case's key names in this run
	// (cases.KeyPrefix); empty if the case was skipped before it started.
	KeyPrefix string
	// Metrics are the figures of a scenario (cases.Scenario; see
	// cases.CounterMetrics and cases.RateLimitMetrics), nil for cases with
	// steps and for scenarios that did not run.
	Metrics Metrics
}

// StepResult is what one step sent and received.
type StepResult struct {
	Step *cases.Step
	Conn string
	// Sent is the exact bytes written (empty for read, push and sleep steps).
	Sent []byte
	// Args are the expanded command arguments of a send step, for display.
	Args [][]byte
	// Reply is the exact bytes of the reply (or push) read for this step; nil
	// when nothing was read. Pushes that arrived out of band while waiting for
	// a reply are in Pushes, not here.
	Reply []byte
	// ReplySize is the full length of the reply; Reply keeps at most 1 MiB.
	ReplySize int
	// SentSize is the full length of what was sent; Sent keeps at most 1 MiB.
	SentSize int
	// ReplySHA256 and SentSHA256 are the hex SHA-256 of the full reply and
	// of everything sent, with the case's key prefix replaced by
	// KeyPlaceholder (so they do not depend on the run id); set only when
	// Reply or Sent was cut (ReplySize or SentSize over 1 MiB).
	ReplySHA256, SentSHA256 string
	// Pushes are out-of-band push frames read while waiting for Reply.
	Pushes [][]byte
	// Redirects are the MOVED and ASK replies followed before Reply (a
	// cluster target): Reply is the last node's.
	Redirects []Redirect
	// Err is the infrastructure error of this step, if any.
	Err      error
	Duration time.Duration
}

// Failure is a reply that did not match its expectation.
type Failure struct {
	Step *cases.Step
	// ExpectPos is where the expectation that failed is written (the
	// step's reply:, error: ... line), or the zero Pos for a failure that
	// is not one of a written expectation (an unexpected push, a silence
	// broken); Where picks it.
	ExpectPos cases.Pos
	// Expected is a human description of the expectation: escaped bytes for
	// a byte-exact reply, the error text, pattern or typed value otherwise.
	Expected string
	// ExpectedBytes is the expanded expectation for byte-exact replies, else nil.
	ExpectedBytes []byte
	// Actual is the exact reply bytes.
	Actual []byte
	// Offset is the first byte offset at which Actual differs from
	// ExpectedBytes (byte-exact only), or -1.
	Offset int
	// Message says what differs, e.g. "reply differs at byte 1" or
	// "want an error, got blob string".
	Message string
}

// Where is the position a reader is sent to: the failed expectation's
// (ExpectPos), else the step's (the zero Pos when Step is not set yet).
func (f *Failure) Where() cases.Pos {
	if f.ExpectPos.Line > 0 || f.Step == nil {
		return f.ExpectPos
	}
	return f.Step.Pos
}

// Summary counts results by status.
type Summary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
	Known   int `json:"known"`
	// NotRun counts the results never started because the run was
	// interrupted (Ctrl-C, --fail-fast); they are not skips.
	NotRun int `json:"not_run,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	RunID  string
	Server target.Server
	// Shard is the part of the selected cases the run ran (Options.Shard),
	// and Selection, for a part, names the whole selection (selectionID).
	Shard     cases.Shard
	Selection string
	// Topology is the cluster's topology at the end of the run (as
	// discovered, or as last read again after a MOVED to an unknown node),
	// nil for a standalone server.
	Topology *target.Topology
	Results  []*Result
	Summary  Summary
	// ServerLost is set when the target stopped answering during the run;
	// cases not started by then are reported as errors.
	ServerLost error
	Started    time.Time
	Duration   time.Duration
	// KeysRemoved is the number of keys the cleanup of a Shared run
	// deleted.
	KeysRemoved int64
	// KeysLeft lists, as SCAN MATCH patterns ("rc:{1a2b3c4d}:*"), the keys
	// of the cases of a Shared run whose cleanup could not delete them (the
	// server stopped answering): delete them by hand.
	KeysLeft []string
	// Restarts says, for each throwaway server that died and was started
	// again during the run (Options.Respawn), why and during which cases.
	Restarts []string
	// Schema is the check of the run's RESP3 replies against the build's
	// reply schemas (respcheck run --check-schema; runner/schema), nil
	// when not asked. Its findings do not fail the run.
	Schema *schema.Report
	// DBSize is the number of keys in the database before and after a
	// Shared run (DBSIZE); a difference means something other than the
	// run changed the database meanwhile. Both are -1 when not measured.
	DBSize [2]int64
	// Protection says how a Shared run without AllowDestructive kept to
	// its own keys (the guard, and the run's ACL user or why it has
	// none); nil for other runs.
	Protection *Protection
}

// Fault returns why the target itself misbehaved during the run (it
// stopped answering, or sent bytes that are not valid RESP), or nil.
// respcheck exits 3 on a fault.
func (r *Report) Fault() error {
	if r.ServerLost != nil {
		return r.ServerLost
	}
	n := 0
	var first *Result
	for _, res := range r.Results {
		if res.Malformed {
			if first == nil {
				first = res
			}
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("the server sent malformed RESP in %d case(s), first: %s", n, first.Reason)
	}
	return nil
}

// Shared reports whether the run treated the target as shared
// (Options.Shared): its database size was measured.
func (r *Report) Shared() bool { return r.DBSize[0] >= 0 }

// Failed reports whether the run should exit non-zero for findings.
func (r *Report) Failed() bool { return r.Summary.Failed > 0 || r.Summary.Errors > 0 }

func (r *Report) count() {
	r.Summary = Summary{}
	for _, res := range r.Results {
		switch res.Status {
		case Pass:
			r.Summary.Passed++
		case Fail:
			r.Summary.Failed++
		case Skip:
			if res.NotRun {
				r.Summary.NotRun++
			} else {
				r.Summary.Skipped++
			}
		case Error:
			r.Summary.Errors++
		case KnownDiff:
			r.Summary.Known++
		}
	}
}
