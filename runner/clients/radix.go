package clients

import (
	"context"
	"errors"
	"fmt"

	"github.com/mediocregopher/radix/v4"
	"github.com/mediocregopher/radix/v4/resp/resp3"
)

// radixDriver drives github.com/mediocregopher/radix/v4: one Conn per case
// connection (Dialer.Dial), Conn.Do(radix.Cmd) into an interface{}; RESP3
// through Dialer.Protocol "3" (HELLO 3), RESP2 without HELLO.
var radixDriver = &goLibrary{name: "radix", module: "github.com/mediocregopher/radix/v4", protos: []int{2, 3},
	api: "Conn.Do(ctx, radix.Cmd(&v, command, args...))",
	open: func(ctx context.Context, addr string, proto int) (Session, error) {
		d := radix.Dialer{}
		if proto == 3 {
			d.Protocol = "3"
		}
		return newPinnedSession(
			func(ctx context.Context) (radix.Conn, error) { return d.Dial(ctx, "tcp", addr) },
			func(c radix.Conn) Conn { return radixConn{c} },
			func(c radix.Conn) { c.Close() }, nil), nil
	}}

type radixConn struct{ c radix.Conn }

func (c radixConn) Do(ctx context.Context, args [][]byte) Native {
	var v any
	err := c.c.Do(ctx, radix.Cmd(&v, string(args[0]), strArgs(args[1:])...))
	if err != nil {
		return radixErr(err)
	}
	return goNative(v)
}

// radixErr classifies a radix error: server errors (resp3.SimpleError,
// resp3.BlobError, maybe wrapped) are errors, anything else an exception.
func radixErr(err error) Native {
	var se resp3.SimpleError
	var be resp3.BlobError
	switch {
	case errors.As(err, &se):
		return errNative("error", fmt.Sprintf("%T", err), "resp3.SimpleError", se.S)
	case errors.As(err, &be):
		return errNative("error", fmt.Sprintf("%T", err), "resp3.BlobError", string(be.B))
	}
	return errNative("exception", fmt.Sprintf("%T", err), fmt.Sprintf("%T", err), err.Error())
}
