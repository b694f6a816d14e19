package cases

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Action is what a step does.
type Action int

// The actions. The zero Action is invalid. Each is described by its entry
// in actions.
const (
	ActSend  Action = iota + 1 // send a command (array of blob strings)
	ActRaw                     // send raw bytes
	ActRead                    // read the reply of an earlier async send
	ActPush                    // read the next push (out-of-band) frame
	ActSleep                   // wait
)

// action is one step action: its YAML field, what the loader accepts with
// it, how it parses, and its line in the manual. Adding an action is adding
// its Action constant and its entry here, with their tests, and teaching the
// runner to execute it (runner/exec.go: executing needs connections, which
// are the runner's).
type action struct {
	action Action
	// field is the step's YAML field that names the action.
	field string
	// example and doc are the action's entry in the manual's list of
	// actions (manual.md, "## Steps"), "\n" separating the manual's lines.
	// TestDocTables checks that manual.md holds them.
	example, doc string
	// sends: the step writes to its connection. It may be async, must not
	// be made while an async reply is unread on its connection, and
	// goldens record what it sent (Action.Sends).
	sends bool
	// readsAsync: the step reads the reply of an earlier async send on its
	// connection.
	readsAsync bool
	// capture: the step may capture its reply.
	capture bool
	// alone: the step has no other field and no connection.
	alone bool
	// parse parses the action's field (key k, value v) into s; exps are the
	// step's expectation fields.
	parse func(l *loader, s *Step, k, v *yaml.Node, exps []*yaml.Node) verdict
}

// verdict is what becomes of a step after parsing its action.
type verdict int

const (
	keepStep verdict = iota // go on checking the step
	badStep                 // go on checking, then drop the step (its errors are reported)
	dropStep                // drop the step now (its errors are reported)
)

// actions are the step actions, in the order of the manual and of the
// "want one of" lists in messages.
var actions = []*action{
	{
		action: ActSend, field: "send",
		example: "send: [ARG, ...]", doc: "send a command: an array of blob strings, each a template",
		sends: true, capture: true, parse: (*loader).sendAction,
	},
	{
		action: ActRaw, field: "raw",
		example: `raw: "TEXT"`,
		doc: "send the bytes of the template as they are (inline\n" +
			"commands, malformed frames)",
		sends: true, capture: true, parse: (*loader).rawAction,
	},
	{
		action: ActRead, field: "read",
		example: "read: true",
		doc: "read the reply of an earlier async send or raw on the\n" +
			"same connection",
		readsAsync: true, capture: true, parse: (*loader).readAction,
	},
	{
		action: ActPush, field: "push",
		example: "push: ...", doc: "read the next out-of-band (push) frame on the connection",
		parse: (*loader).pushAction,
	},
	{
		action: ActSleep, field: "sleep",
		example: "sleep: 50ms", doc: "wait (a Go duration); a sleep step has no other field",
		alone: true, parse: (*loader).sleepAction,
	},
}

func (a Action) info() *action {
	for _, x := range actions {
		if x.action == a {
			return x
		}
	}
	return nil
}

// String returns the action's YAML name: "send", "raw", "read", "push" or
// "sleep".
func (a Action) String() string {
	if x := a.info(); x != nil {
		return x.field
	}
	return "invalid"
}

// Sends reports whether steps of the action write to their connection
// (send and raw).
func (a Action) Sends() bool {
	x := a.info()
	return x != nil && x.sends
}

// actionFields returns the YAML fields of the actions for which keep
// returns true (all of them if keep is nil), in table order.
func actionFields(keep func(*action) bool) []string {
	var fs []string
	for _, x := range actions {
		if keep == nil || keep(x) {
			fs = append(fs, x.field)
		}
	}
	return fs
}

// orList renders words as "a, b and c" (conj "and") or "a, b or c".
func orList(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
