package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner/golden"
)

func newDiffCmd() *cobra.Command {
	var volatile bool
	cmd := &cobra.Command{
		Use:   "diff DIR_A DIR_B",
		Short: "Show which recorded replies differ between two golden directories",
		Long: `Diff compares two golden directories written by "respcheck record" (for
example testdata/golden/redis-7.0.15 and testdata/golden/redis-8.6.3) without
any server: steps whose replies (or pushes, or sent bytes) differ, grouped by
case file and case, shown escaped and as redis-cli prints them; cases and
steps present in one recording only; case statuses that differ. Steps either
recording marks volatile are not compared unless --volatile.

Exit status: 0 identical, 1 different, 2 usage error or unreadable golden.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.OutOrStdout(), args[0], args[1], volatile)
		},
	}
	cmd.Flags().BoolVar(&volatile, "volatile", false, "also compare steps marked volatile")
	return cmd
}

func runDiff(stdout io.Writer, a, b string, volatile bool) error {
	da, err := golden.Load(a)
	if err != nil {
		return usageErr("%v", err)
	}
	db, err := golden.Load(b)
	if err != nil {
		return usageErr("%v", err)
	}
	changes := golden.Diff(da, db, golden.DiffOptions{Volatile: volatile})
	nameA, nameB := label(da, a), label(db, b)
	if nameA == nameB {
		nameA, nameB = a, b
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "%s and %s: identical recordings\n", nameA, nameB)
		return nil
	}
	fmt.Fprintf(stdout, "A = %s (%s), B = %s (%s)\n", nameA, a, nameB, b)
	golden.WriteDiff(stdout, changes, nameA, nameB)
	fmt.Fprintf(stdout, "\n%d differences\n", len(changes))
	return &exitError{code: exitFindings, err: errSilent}
}

func label(d *golden.Dir, path string) string {
	if d.Server.Family != "" {
		return d.Server.Family + "-" + d.Server.Version
	}
	return filepath.Base(path)
}
