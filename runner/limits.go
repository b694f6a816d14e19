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
