package clients

import (
	"context"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/target"
)

// args expands st's command for the session: its templates in the
// session's environment, then its keys as run sends them
// (target.CaseKeys.Prepare): unless the case says literal_keys: true, its
// literal key names and key patterns moved into the case's namespace, so
// that `send: [SET, foo, bar]` writes {key:foo} through the library too,
// is deleted with the case's keys, and two clients' sessions of one case
// never share a key; a literal_keys case's literal names are noted for
// deleteLiteral.
func (s *session) args(st *cases.Step) ([][]byte, error) {
	args, err := expandArgs(st, s.env)
	if err != nil || len(args) < 2 {
		return args, err
	}
	if s.keys == nil {
		s.keys = s.t.CaseKeys(s.env.KeyPrefix, s.it.c.LiteralKeys, s.getKeys)
	}
	// A server that cannot say where the keys are gets the command as
	// written (Prepare's error), as a command it does not know would.
	out, _, _ := s.keys.Prepare(s.ctx, args)
	return out, nil
}

// getKeys asks COMMAND GETKEYS on respcheck's own connection to the
// server (opened on first use, closed by deleteLiteral), never through
// the library or the proxy.
func (s *session) getKeys(q [][]byte) ([][]byte, error) {
	if s.side == nil {
		c, err := s.t.Config.Dial(s.ctx, 2)
		if err != nil {
			return nil, err
		}
		s.side = c
	}
	return target.GetKeys(s.side.Do, q)
}

// deleteLiteral removes the keys a literal_keys case named outside its
// namespace (target.CaseKeys.DeleteLiteral, within twice the step
// timeout), on a throwaway server only (Options.Existing: a user's
// server keeps them, as run keeps them), and closes the side connection.
func (s *session) deleteLiteral(ctx context.Context) {
	if s.side != nil {
		s.side.Close()
		s.side = nil
	}
	if s.keys == nil || len(s.keys.Literal) == 0 || s.opts.Existing {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*s.opts.StepTimeout)
	defer cancel()
	s.keys.DeleteLiteral(ctx)
}
