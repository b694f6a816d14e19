package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "respcheck",
		Short: "Check a Redis-compatible server's replies byte for byte",
		Long: `respcheck replays YAML test cases against a live Redis-compatible server
(Redis, Valkey, a fork or a managed service) over a hand-written RESP2/RESP3
socket client and checks every reply byte for byte.

With no address it starts a throwaway server (redis-server or valkey-server
from PATH, or --server-bin) on 127.0.0.1 and stops it afterwards.

Exit status: 0 all passed, 1 a case failed or could not be judged,
2 usage or case-file error, 3 the server could not be reached, started or
kept alive, or sent bytes that are not RESP, 130 interrupted (Ctrl-C), after
cleaning up.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newListCmd(), newVersionCmd(), newClientsCmd())
	root.AddCommand(newBenchCmd(), newMiniredisCmd())
	root.AddCommand(newRecordCmd(), newDiffCmd(), newServeCmd())
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v", err)
	})
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print respcheck's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintln(cmd.OutOrStdout(), "respcheck", v)
			return nil
		},
	}
}
