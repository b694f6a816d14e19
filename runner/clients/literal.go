package clients

import (
	"bytes"
	"context"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/target"
)

// args expands st's command for the session: its templates in the
// session's environment, then, unless the case says literal_keys: true,
// its literal key names and key patterns moved into the case's namespace
// as run moves them (target.KeyPositions, target.Namespace), so that
// `send: [SET, foo, bar]` writes {key:foo} through the library too, is
// deleted with the case's keys, and two clients' sessions of one case
// never share a key. A literal_keys case's literal names are noted for
// deleteLiteral.
func (s *session) args(st *cases.Step) ([][]byte, error) {
	args, err := expandArgs(st, s.env)
	if err != nil || len(args) < 2 {
		return args, err
	}
	prefix := []byte(s.env.KeyPrefix)
	keys, err := s.t.KeyPositions(s.ctx, args, prefix, s.getKeys)
	if err != nil {
		// A server that cannot say where the keys are gets the command
		// as written, as a command it does not know would.
		return args, nil
	}
	if s.it.c.LiteralKeys {
		for _, i := range keys {
			if !bytes.HasPrefix(args[i], prefix) {
				if s.literal == nil {
					s.literal = map[string]bool{}
				}
				s.literal[string(args[i])] = true
			}
		}
		return args, nil
	}
	out, _ := target.Namespace(args, keys, prefix)
	return out, nil
}

// getKeys asks COMMAND GETKEYS on respcheck's own connection to the
// server (opened on first use, closed by closeSide), never through the
// library or the proxy.
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
// namespace, on a throwaway server only (Options.Existing: a user's
// server keeps them, as run keeps them), and closes the side connection.
func (s *session) deleteLiteral(ctx context.Context) {
	if s.side != nil {
		s.side.Close()
		s.side = nil
	}
	if len(s.literal) == 0 || s.opts.Existing {
		return
	}
	for k := range s.literal {
		if c, _, err := s.t.DialSlot(ctx, 2, target.Slot([]byte(k)), ""); err == nil {
			c.Do("DEL", k)
			c.Close()
		}
	}
}
