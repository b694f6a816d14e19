package runner

import (
	"errors"

	"github.com/respcheck/respcheck/resp"
)

// malformed reports whether err says the server sent bytes that are not
// RESP. A frame over the reader's limits (resp.OverLimit) is not: it is
// valid, and respcheck declined to read it.
func malformed(err error) bool {
	var se *resp.SyntaxError
	return errors.As(err, &se) && !resp.OverLimit(err)
}

// LimitText is the text of a read error for a frame over respcheck's
// limits (resp.OverLimit) with what raises the limit; any other error's
// text as it is.
func LimitText(err error) string {
	var se *resp.SyntaxError
	switch {
	case !errors.As(err, &se):
		return err.Error()
	case errors.Is(se.Err, resp.ErrTooDeep):
		return err.Error() + " (a valid reply nested deeper than respcheck reads: --max-depth raises the limit)"
	case errors.Is(se.Err, resp.ErrTooLong):
		return err.Error() + " (a valid reply longer than respcheck reads: resp.Limits' MaxBlobLen or MaxAggregateLen, not malformed RESP)"
	}
	return err.Error()
}
