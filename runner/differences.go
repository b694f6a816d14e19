package runner

import (
	"bytes"
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Difference is one group of a case's failures: the steps that sent one
// command and failed the same way (a replayed capture on another server
// can fail at hundreds of steps, most of them a few differences
// repeated).
type Difference struct {
	// Command is the command's name in upper case (its first two words
	// for a container command: "CLIENT SETINFO"; for a read step, the
	// async command whose reply it read), or the step's action for a step
	// that sends none ("push", a read of nothing sent).
	Command string `json:"command"`
	// Kind says how the reply differed: "simple string → simple error"
	// when the expected and received RESP types differ, "blob string,
	// another value" when they agree, else the failure's message with its
	// byte offset left out.
	Kind string `json:"kind"`
	// Count is how many failing steps are in the group; First is where
	// the first of them is (file:line:col).
	Count int    `json:"count"`
	First string `json:"first"`
}

// Differences groups res's failures (Failure, then More) by command and
// kind, the largest group first (then in the order of their first
// failure); nil when the result has no failure.
func (res *Result) Differences() []Difference {
	if res.Failure == nil {
		return nil
	}
	var out []Difference
	at := map[[2]string]int{}
	for _, f := range append([]*Failure{res.Failure}, res.More...) {
		key := [2]string{res.commandOf(f), failureKind(f)}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Difference{Command: key[0], Kind: key[1], First: f.Where().String()})
		}
		out[i].Count++
	}
	slices.SortStableFunc(out, func(a, b Difference) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

// commandOf names the command of the step f failed at, as the step sent
// it (its templates expanded); for a read step, the async send whose
// reply it read (the oldest one of its connection not read yet).
func (res *Result) commandOf(f *Failure) string {
	pending := map[string][][][]byte{} // async sends not read yet, by connection
	var last [][]byte
	found := false
	for _, sr := range res.Steps { // the step's last run counts
		if sr.Step == nil {
			continue
		}
		args := sr.Args
		switch {
		case sr.Step.Async:
			pending[sr.Conn] = append(pending[sr.Conn], sr.Args)
		case sr.Step.Action == cases.ActRead && len(pending[sr.Conn]) > 0:
			args, pending[sr.Conn] = pending[sr.Conn][0], pending[sr.Conn][1:]
		}
		if sr.Step == f.Step {
			found, last = true, args
		}
	}
	if found && len(last) > 0 {
		name := strings.ToUpper(string(last[0]))
		if len(last) > 1 && containerCommands[name] {
			name += " " + strings.ToUpper(string(last[1]))
		}
		return name
	}
	if f.Step != nil {
		return f.Step.Action.String()
	}
	return "?"
}

// containerCommands are the commands whose second word names the
// subcommand (COMMAND DOCS lists them as container commands).
var containerCommands = map[string]bool{"ACL": true, "CLIENT": true, "CLUSTER": true, "COMMAND": true, "CONFIG": true,
	"FUNCTION": true, "LATENCY": true, "MEMORY": true, "MODULE": true, "OBJECT": true, "PUBSUB": true, "SCRIPT": true,
	"SLOWLOG": true, "XINFO": true, "XGROUP": true, "DEBUG": true}

// failureKind is Difference.Kind of f.
func failureKind(f *Failure) string {
	// Parse reads a reply cut at the 1 MiB kept (StepResult.Reply) as
	// nothing (n 0): such a reply is grouped by its message.
	nw, want, werr := resp.Parse(f.ExpectedBytes)
	ng, got, gerr := resp.Parse(f.Actual)
	whole := f.ExpectedBytes != nil && werr == nil && gerr == nil && nw > 0 && ng > 0
	switch {
	case whole && want.Kind != got.Kind:
		return want.Kind.String() + " → " + got.Kind.String()
	case whole:
		return want.Kind.String() + ", another value"
	}
	msg := f.Message
	if i := strings.Index(msg, " at byte "); i >= 0 && bytes.IndexFunc([]byte(msg[i+9:]), notDigit) < 0 {
		msg = msg[:i]
	}
	// A typed value in any order names the elements that differ: grouped
	// by how it differs, not by which elements.
	switch {
	case elementCount.MatchString(msg):
		return "another number of elements"
	case strings.HasPrefix(msg, "only in the expectation: "):
		return "other elements"
	case strings.HasPrefix(msg, "keys only in the expectation: "):
		return "other keys"
	}
	return msg
}

// elementCount is an aggregate's message when its length differs (cases'
// matchElems).
var elementCount = regexp.MustCompile(`^want \d+ elements, got \d+`)

func notDigit(r rune) bool { return r < '0' || r > '9' }
