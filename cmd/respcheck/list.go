package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner"
)

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list [files or dirs...]",
		Short: "List the cases of case files (default: the bundled suite)",
		Long: `List loads and validates case files without contacting any server and prints
one line per case: its position, its --run name and its tags. A file with
errors is reported with file:line:col and the exit status is 2.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := loadFiles(args)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			n := 0
			for _, f := range files {
				for _, c := range f.Cases {
					tags := append(append([]string(nil), f.Tags...), c.Tags...)
					fmt.Fprintf(w, "%s\t%s\t%s\n", c.Pos, runner.FullName(c), strings.Join(tags, ","))
					n++
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d cases in %d files\n", n, len(files))
			return nil
		},
	}
}
