package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/report"
)

// newSendCmd is `respcheck send`: one command, its exact reply.
func newSendCmd() *cobra.Command {
	var f targetFlags
	var proto int
	cmd := &cobra.Command{
		Use:   "send [flags] COMMAND [ARG...]",
		Short: "Send one command and print its exact reply bytes, escaped and as redis-cli shows them",
		Long: `Send connects (RESP2 without HELLO, or HELLO 3 with --proto 3), sends one
command as an array of blob strings, and prints the reply's exact bytes
escaped, then the reply as redis-cli prints it: the first frame that
arrives (SUBSCRIBE's confirmation, a push in RESP3, included). With no
address it starts a throwaway server.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if proto != 2 && proto != 3 {
				return usageErr("bad --proto %d: want 2 or 3", proto)
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
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
			w := cmd.OutOrStdout()
			if _, err := c.W.Write(resp.AppendCommandString(nil, args...)); err != nil {
				return serverErr(err)
			}
			if err := c.W.Flush(); err != nil {
				return serverErr(err)
			}
			v, err := c.R.Read()
			if err != nil {
				return serverErr(fmt.Errorf("read: %w", err))
			}
			fmt.Fprintln(w, resp.Escape(v.Raw))
			fmt.Fprintln(w, report.CLI(v.Raw))
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().IntVar(&proto, "proto", 2, "protocol: 2 (no HELLO) or 3 (HELLO 3 first)")
	return cmd
}
