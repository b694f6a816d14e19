package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Outcome is what Check made of one reply.
type Outcome int

const (
	// Valid: the reply fits the command's schema.
	Valid Outcome = iota
	// Invalid: the reply fits none of the schema's branches (a Finding).
	Invalid
	// NoSchema: the build's files have no schema for the command (an
	// unknown command, a container without a subcommand, a command file
	// without reply_schema, or arguments that do not fit its arity).
	NoSchema
	// Skipped: not a reply a schema describes: an error reply, +QUEUED
	// inside MULTI, or bytes that are not one whole RESP3 frame (a reply
	// a golden stores cut).
	Skipped
)

var outcomeNames = [...]string{"valid", "invalid", "no schema", "skipped"}

// String returns "valid", "invalid", "no schema" or "skipped".
func (o Outcome) String() string { return outcomeNames[o] }

// Finding is a reply its command's schema rejects.
type Finding struct {
	// Command is the command resolved ("CLIENT LIST"), File its command
	// file ("client-list.json").
	Command string `json:"command"`
	File    string `json:"file"`
	// Reply is the reply's bytes escaped (resp.Escape).
	Reply string `json:"reply"`
	// Path is the schema path that failed: a JSON pointer into the reply
	// schema, "/anyOf" when no branch fits, "/items/type" for one check.
	Path string `json:"schema_path"`
	// Errors are the failing checks under Path, one per line: "/anyOf/2/
	// items/type at /0: got string, want integer".
	Errors []string `json:"errors"`
}

// String renders the finding on one line.
func (f *Finding) String() string {
	return fmt.Sprintf("%s (%s#%s): %s", f.Command, f.File, f.Path, strings.Join(f.Errors, "; "))
}

// Check validates reply (the exact bytes of one RESP3 reply) to the
// command args sent. The Finding is set for Invalid; why explains
// NoSchema and Skipped ("error reply", "unknown command", ...).
func (s *Set) Check(args [][]byte, reply []byte) (o Outcome, f *Finding, why string) {
	v, err := resp.ParseExact(reply)
	if err != nil {
		return Skipped, nil, "not one RESP frame"
	}
	return s.CheckValue(args, v)
}

// checkBytes is check of a reply's bytes.
func (s *Set) checkBytes(args [][]byte, reply []byte) (o Outcome, f *Finding, why string, cmd *Command, inst any) {
	v, err := resp.ParseExact(reply)
	if err != nil {
		return Skipped, nil, "not one RESP frame", nil, nil
	}
	return s.check(args, v)
}

// CheckValue is Check of a decoded reply.
func (s *Set) CheckValue(args [][]byte, v resp.Value) (o Outcome, f *Finding, why string) {
	o, f, why, _, _ = s.check(args, v)
	return o, f, why
}

// check is CheckValue that also returns the command and the reply's
// JSON value (for a Valid reply, to see which branches it took).
func (s *Set) check(args [][]byte, v resp.Value) (o Outcome, f *Finding, why string, cmd *Command, inst any) {
	inst, ok := jsonOf(v)
	if !ok {
		return Skipped, nil, "error reply", nil, nil
	}
	if v.Kind == resp.SimpleString && string(v.Str) == "QUEUED" {
		return Skipped, nil, "queued in MULTI", nil, nil
	}
	cmd, why = s.Lookup(args)
	if why != "" {
		return NoSchema, nil, why, cmd, nil
	}
	if cmd.Schema == nil {
		return NoSchema, nil, "no reply_schema in " + cmd.File, cmd, nil
	}
	err := cmd.Schema.Validate(inst)
	if err == nil {
		return Valid, nil, "", cmd, inst
	}
	f = &Finding{Command: cmd.Name, File: cmd.File, Reply: resp.Escape(v.Raw)}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		f.Path, f.Errors = "", []string{err.Error()}
		return Invalid, f, "", cmd, inst
	}
	f.Path, f.Errors = describe(ve.DetailedOutput())
	return Invalid, f, "", cmd, inst
}

// describe returns the keyword location where the failure branches (or
// its only leaf) and every leaf check under it.
func describe(u *jsonschema.OutputUnit) (string, []string) {
	for len(u.Errors) == 1 {
		u = &u.Errors[0]
	}
	var leaves []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if len(u.Errors) == 0 {
			at := ""
			if u.InstanceLocation != "" {
				at = " at " + u.InstanceLocation
			}
			msg := ""
			if u.Error != nil {
				msg = ": " + u.Error.String()
			}
			leaves = append(leaves, u.KeywordLocation+at+msg)
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(u)
	return u.KeywordLocation, leaves
}
