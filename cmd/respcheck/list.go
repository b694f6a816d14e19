package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/report"
)

func newListCmd() *cobra.Command {
	var run string
	var tags, vars []string
	cmd := &cobra.Command{
		Use:   "list [files or dirs...]",
		Short: "List the cases of case files (default: the bundled suite)",
		Long: `List loads and validates case files without contacting any server and prints
one line per case: its position, its --run name and its tags. A file with
errors is reported with file:line:col and the exit status is 2.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := loadFiles(args, vars...)
			if err != nil {
				return err
			}
			var runRE *regexp.Regexp
			if run != "" {
				if runRE, err = regexp.Compile(run); err != nil {
					return usageErr("bad --run: %v", err)
				}
			}
			w := cmd.OutOrStdout()
			selected := cases.Select(files, runRE, tags)
			for _, c := range selected {
				fmt.Fprintf(w, "%s\t%s\t%s\n", c.Pos, c.FullName(), strings.Join(c.AllTags(), ","))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s in %s\n", report.Count(len(selected), "case", "cases"), report.Count(filesOf(selected), "file", "files"))
			if len(selected) == 0 {
				return noCases(args, run, tags)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "list only cases whose file/name matches this `regexp`")
	cmd.Flags().StringSliceVar(&tags, "tags", nil, "list only cases with one of these tags")
	registerVars(cmd.Flags(), &vars)
	return cmd
}

// filesOf counts the case files the cases come from.
func filesOf(cs []*cases.Case) int {
	seen := map[*cases.File]bool{}
	for _, c := range cs {
		seen[c.File] = true
	}
	return len(seen)
}
