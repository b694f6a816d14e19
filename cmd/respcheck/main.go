// Command respcheck is a raw RESP2/RESP3 protocol conformance tester for
// Redis-compatible servers. See "respcheck help" and the README.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/respcheck/respcheck/runner/clients"
)

// Exit codes, by class of outcome.
const (
	exitOK       = 0 // every case passed (or was skipped, or is a known difference)
	exitFindings = 1 // a case failed or could not be judged
	exitUsage    = 2 // bad flags, arguments or case files
	exitServer   = 3 // the server could not be reached, started or kept alive
	// exitInterrupted follows the shell's 128+SIGINT: the run was stopped
	// by Ctrl-C after cleaning up (mainRun makes it 143 for SIGTERM).
	exitInterrupted = 130
)

// exitError carries an exit code with the message printed for it.
type exitError struct {
	code int
	err  error
	// hint adds "Run 'respcheck help' for usage." (flag and argument
	// errors, not case-file errors).
	hint bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...), hint: true}
}

// caseErr is an exit-2 error about case files or goldens: their own
// file:line:col messages say what to fix, without the usage hint.
func caseErr(err error) error { return &exitError{code: exitUsage, err: err} }

func serverErr(err error) error { return &exitError{code: exitServer, err: err} }

func main() {
	if os.Getenv(clients.GoAdapterEnv) == "1" {
		// respcheck started as the adapter process of a Go client library
		// (see clients.GoAdapters).
		if err := clients.ServeGoAdapter(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "respcheck go adapter:", err)
			os.Exit(1)
		}
		return
	}
	realProcess = true
	os.Exit(mainRun(os.Args[1:], os.Stdout, os.Stderr))
}

// realProcess is set when respcheck runs as its own process (main, or
// the test binary acting as respcheck): only then may a signal end the
// process without the command's return (handleSignals).
var realProcess bool

// mainRun runs the command line args and returns the exit status. Every
// command runs under the one signal handler (handleSignals): interrupted,
// a command that ended with its findings or with none exits 130 (SIGINT)
// or 143 (SIGTERM); a lost server (3) or a usage error (2) keeps its own.
func mainRun(args []string, stdout, stderr io.Writer) int {
	ctx, stop := handleSignals(context.Background(), realProcess)
	defer stop()
	code, msg, hint := execute(ctx, args, stdout, stderr)
	if in := interruption(ctx); in != nil && (code == exitOK || code == exitFindings || code == exitInterrupted) {
		if code != exitInterrupted || msg == "" {
			msg = "respcheck: " + in.Error()
		}
		code = in.code()
	}
	for _, m := range []string{msg, hint} {
		if m != "" {
			fmt.Fprintln(stderr, m)
		}
	}
	return code
}

// execute runs the command line and returns the exit status, the
// message that says why (or "") and the usage hint to print after it
// (or "").
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, msg, hint string) {
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	sub, err := cmd.ExecuteContextC(ctx)
	if err == nil {
		return exitOK, "", ""
	}
	// The help of the command that failed ("respcheck run --help").
	hint = "Run 'respcheck help' for usage."
	if sub != nil && sub != cmd {
		hint = "Run '" + sub.CommandPath() + " --help' for usage."
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != errSilent {
			msg = "respcheck: " + ee.err.Error()
		}
		if !ee.hint {
			hint = ""
		}
		return ee.code, msg, hint
	}
	// Errors from cobra itself: unknown command, bad flag.
	return exitUsage, "respcheck: " + err.Error(), hint
}

// errSilent marks an exit whose message was already printed.
var errSilent = errors.New("")
