package main

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newCommand builds a subcommand: use, short and long are its help texts,
// args its rule for positional arguments (nil: any), its flags those its
// flags struct F registers; run gets the command's context, stdout and
// stderr, the parsed flags and the arguments.
func newCommand[F any, PF interface {
	*F
	register(fl *pflag.FlagSet)
}](use, short, long string, args cobra.PositionalArgs, run func(ctx context.Context, stdout, stderr io.Writer, f F, args []string) error) *cobra.Command {
	var f F
	cmd := &cobra.Command{Use: use, Short: short, Long: long, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	PF(&f).register(cmd.Flags())
	return cmd
}

// writeOutput writes a command's output to the file path (-o), or to stdout
// when path is empty. A file that cannot be written is an exit-2 error; with
// hint, the message adds the usage hint.
func writeOutput(stdout io.Writer, path string, data []byte, hint bool) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return &exitError{code: exitUsage, err: err, hint: hint}
	}
	return nil
}

// checkDir is the usage error for an output file path whose directory
// cannot hold it: missing, or not a directory (-o /tmp/file/x.json).
func checkDir(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return usageErr("-o %s: the directory %s does not exist", path, dir)
	case !st.IsDir():
		return usageErr("-o %s: %s is not a directory", path, dir)
	}
	return nil
}
