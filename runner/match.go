package runner

import (
	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// compare checks v against e. It returns nil when v matches, else a Failure
// (Step is filled in by the caller). The matching itself is the
// expectation kind's (cases.Expect.Match).
func compare(e *cases.Expect, v resp.Value, env *cases.Env) (*Failure, error) {
	m, err := e.Match(v, env)
	if m == nil || err != nil {
		return nil, err
	}
	return &Failure{ExpectPos: e.Pos, Actual: v.Raw, Offset: m.Offset, Expected: m.Expected, ExpectedBytes: m.ExpectedBytes, Message: m.Message}, nil
}

// resp3Only returns the first RESP3-only type in v (an attribute, a push,
// null, double, boolean, blob error, verbatim string, big number, map, set)
// and true, or false when v uses RESP2's types alone.
func resp3Only(v resp.Value) (resp.Kind, bool) {
	if v.Attr != nil {
		return resp.Attribute, true
	}
	switch v.Kind {
	case resp.SimpleString, resp.SimpleError, resp.Integer, resp.BlobString, resp.NilBlobString, resp.NilArray:
		return 0, false
	case resp.Array:
		for _, e := range v.Elems {
			if k, ok := resp3Only(e); ok {
				return k, true
			}
		}
		return 0, false
	}
	return v.Kind, true
}
