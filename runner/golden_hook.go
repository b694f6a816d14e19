package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// GoldenChecker compares the live replies of a run with a recording, for
// Options.Golden. The runner calls CheckStep once per step that read a reply
// which matched the case's own expectation; a non-nil Failure fails the case
// at that step (Failure.Step is filled in by the runner). Implementations
// must be safe for concurrent use: cases run in parallel.
//
// The runner defines this interface so that it does not import the package
// that implements it (runner/golden), which imports runner.
type GoldenChecker interface {
	CheckStep(GoldenStep) *Failure
}

// GoldenStep is what a GoldenChecker is given about one step.
type GoldenStep struct {
	Case  *cases.Case
	Proto int
	Step  *cases.Step
	// Expect is the step's expectation resolved for the server
	// (ExpectNotError when the step has none).
	Expect *cases.Expect
	// KeyPrefix is the case's key prefix in this run.
	KeyPrefix string
	// Reply is the full reply, valid only during the call.
	Reply []byte
	// Pushes are the out-of-band push frames read while waiting for Reply.
	Pushes [][]byte
	// Args are the command's expanded arguments for a send step (nil for
	// other steps), valid only during the call.
	Args [][]byte
	// Topology is the cluster's topology the step ran under
	// (target.Target.Current), nil on a standalone server.
	Topology *target.Topology
}

// KeyPlaceholder stands for a case's key prefix (cases.KeyPrefix, always
// cases.KeyPrefixLen bytes) in recorded bytes and in StepResult's SHA-256
// fields, so that they do not depend on the run id.
const KeyPlaceholder = "rc:{________}:"

// hexSHA256 hashes b with prefix replaced by KeyPlaceholder.
func hexSHA256(b []byte, prefix string) string {
	if prefix != "" && bytes.Contains(b, []byte(prefix)) {
		b = bytes.ReplaceAll(b, []byte(prefix), []byte(KeyPlaceholder))
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// commandSHA256 hashes the array of blob strings that writeCommand sends,
// with prefix replaced by KeyPlaceholder.
func commandSHA256(args [][]byte, prefix string) string {
	return hexSHA256(resp.AppendCommand(nil, args...), prefix)
}
