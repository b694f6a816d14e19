package clients

import "fmt"

// Verdict is the judgement of one client's view of one reply. Verdicts are
// ordered by severity; the worst one of a step, a case or a run sums it up.
type Verdict int

// The verdicts, least severe first.
const (
	// Skip: the step was not sent through this client (raw, async or push
	// steps the driver cannot express, a gate, or an earlier hang).
	Skip Verdict = iota
	// Match: the library's value is an acceptable decoding of the bytes.
	Match
	// Converted: the library reshaped the reply on purpose, as its
	// documentation or source says, and lost nothing (an array of pairs
	// made a dict, an attribute kept beside the value). Informational; the
	// contract's conversion names the rule and its source.
	Converted
	// Erased: the value agrees, but the library cannot express a
	// distinction the bytes make (simple vs blob string, nil array vs nil
	// blob string, set vs array, a dropped attribute). Informational.
	Erased
	// Inexpressible: the library's typed API cannot send the
	// step's command, which the server accepts (no parameter for one of
	// its arguments, a zero value the API reads as "unset"), or sends it
	// reordered or respelled without changing what it asks; the note names
	// the API's limit and cites its source (file and version).
	// Informational. A wrapper that changes what the command asks (an
	// argument dropped or altered on the wire) is a mismatch (ruleWire).
	Inexpressible
	// Mismatch: a wrong value or a wrong type.
	Mismatch
	// Crash: an exception or a broken connection on a valid reply.
	Crash
	// Hang: the library did not return before the deadline (for a
	// busyConn, a CLI: nor while its process, its output or the proxy
	// kept moving, up to busyMaxPast; see await).
	Hang
	// Desync: after a surprise, a canary ECHO on the same connection came
	// back with something else: every later reply is shifted.
	Desync
	// Error: the step could not be judged for a reason that is not the
	// library's (the server stopped answering, a gate could not be
	// checked, the harness failed). It fails the run, as run's errors do.
	Error
)

var verdictNames = [...]string{"skip", "match", "converted", "erased", "inexpressible", "mismatch", "crash", "hang", "desync", "error"}

// String returns the verdict's name: "match", "erased", ...
func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText encodes the verdict as its name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText decodes a verdict's name, as a JSON report holds it; any
// other text is an error.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// Finding reports whether v fails a run: mismatch, crash, hang, desync or
// error.
func (v Verdict) Finding() bool { return v >= Mismatch }

// Symbol is a one-character form for the matrix.
func (v Verdict) Symbol() string {
	return [...]string{"-", ".", "=", "~", "N", "X", "C", "H", "D", "E"}[v]
}
