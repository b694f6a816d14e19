package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// interruptible returns ctx cancelled on Ctrl-C or SIGTERM, so that a
// command ends its work (and cleans up) instead of dying; stop releases the
// signals.
func interruptible(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
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
