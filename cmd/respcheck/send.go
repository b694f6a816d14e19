package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/report"
)

// newSendCmd is `respcheck send`: one command, its exact reply.
func newSendCmd() *cobra.Command {
	var f targetFlags
	var proto int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "send [flags] COMMAND [ARG...]",
		Short: "Send one command and print its exact reply bytes, escaped and as redis-cli shows them",
		Long: `Send connects (RESP2 without HELLO, or HELLO 3 with --proto 3), sends one
command as an array of blob strings, and prints the reply's exact bytes
escaped, then the reply as redis-cli prints it: the first frame that
arrives (SUBSCRIBE's confirmation, a push in RESP3, included). With no
address it starts a throwaway server. It waits --timeout for the reply
(a blocking command with no timeout of its own needs --timeout 0, or a
longer one); Ctrl-C ends the wait (exit 130).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if proto != 2 && proto != 3 {
				return usageErr("bad --proto %d: want 2 or 3", proto)
			}
			ctx := cmd.Context()
			t, stopServer, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer stopServer()
			t.printNotes(cmd.ErrOrStderr())
			c, err := t.Config.Dial(ctx, proto)
			if err != nil {
				return serverErr(fmt.Errorf("%s: %w", t.Addr, err))
			}
			defer c.Close()
			// Ctrl-C closes the connection, which ends the wait for the
			// reply (a BLPOP with no timeout, a frozen server).
			stopClose := context.AfterFunc(ctx, func() { c.Close() })
			defer stopClose()
			if timeout > 0 {
				c.NC.SetDeadline(time.Now().Add(timeout))
			}
			w := cmd.OutOrStdout()
			if _, err := c.W.Write(resp.AppendCommandString(nil, args...)); err != nil {
				return sendErr(ctx, err, timeout)
			}
			if err := c.W.Flush(); err != nil {
				return sendErr(ctx, err, timeout)
			}
			v, err := c.R.Read()
			if err != nil {
				return sendErr(ctx, fmt.Errorf("read: %w", err), timeout)
			}
			fmt.Fprintln(w, resp.Escape(v.Raw))
			fmt.Fprintln(w, report.CLI(v.Raw))
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().IntVar(&proto, "proto", 2, "protocol: 2 (no HELLO) or 3 (HELLO 3 first)")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "wait this long for the reply (0: until it comes or Ctrl-C)")
	return cmd
}

// sendErr is the error of a send that got no reply: interrupted (exit
// 130), past --timeout, or the server's problem (exit 3).
func sendErr(ctx context.Context, err error, timeout time.Duration) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	case errors.As(err, &ne) && ne.Timeout():
		return serverErr(fmt.Errorf("no reply within %v (--timeout; 0 waits for it)", timeout))
	}
	return serverErr(err)
}
