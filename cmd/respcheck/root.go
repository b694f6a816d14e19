package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
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
kept alive, or sent bytes that are not RESP, 130 interrupted (Ctrl-C) or 143
(SIGTERM), after cleaning up and writing the report so far (its interrupted
results "not run").`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newListCmd(), newVersionCmd(), newClientsCmd())
	root.AddCommand(newBenchCmd(), newMiniredisCmd())
	root.AddCommand(newCaptureCmd(), newRecordCmd(), newDiffCmd(), newServeCmd(), newSendCmd(), newCoverageCmd(), newReportCmd(), newSchemaCmd(), newExploreCmd())
	root.AddCommand(newCasesTopic())
	completeFlags(root)
	// cobra's own "completion bash|zsh|fish|powershell".
	root.Version = version()
	root.SetVersionTemplate("respcheck {{.Version}}\n")
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
			fmt.Fprintln(cmd.OutOrStdout(), "respcheck", version())
			return nil
		},
	}
}

// buildRevision is the VCS revision when the build sets it, for builds
// without VCS stamping (GOFLAGS=-buildvcs=false): go build -ldflags
// "-X main.buildRevision=$(git describe --always --dirty)" (scripts/run-suite
// does).
var buildRevision string

// version is the module version and the VCS revision the binary was built
// from (Go's build info: "v1.2.0", or "(devel) 1a2b3c4d5e6f 2026-12-01T10:00:00Z
// modified" for a build from a checkout), and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: no build info)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if buildRevision != "" && settings["vcs.revision"] == "" {
		v += " " + buildRevision
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " " + rev[:min(12, len(rev))]
		if t := settings["vcs.time"]; t != "" {
			v += " " + t
		}
		if settings["vcs.modified"] == "true" {
			v += " modified"
		}
	}
	return v + " " + bi.GoVersion
}

// newCasesTopic is the help topic "respcheck help cases": the manual of
// the case format (cases.Manual), listed under "Additional help topics".
func newCasesTopic() *cobra.Command {
	c := &cobra.Command{
		Use:   "cases",
		Short: "The case format: every field of a case file, with examples",
		Long:  cases.Manual,
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprint(c.OutOrStdout(), cases.Manual)
	})
	return c
}
