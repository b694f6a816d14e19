// Command respcheck is a raw RESP2/RESP3 protocol conformance tester for
// Redis-compatible servers. See "respcheck help" and the README.
package main

import (
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
	// by Ctrl-C or SIGTERM after cleaning up.
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
	os.Exit(mainRun(os.Args[1:], os.Stdout, os.Stderr))
}

// mainRun runs the command line args and returns the exit status.
func mainRun(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	sub, err := cmd.ExecuteC()
	if err == nil {
		return exitOK
	}
	// The help of the command that failed ("respcheck run --help").
	hint := "Run 'respcheck help' for usage."
	if sub != nil && sub != cmd {
		hint = "Run '" + sub.CommandPath() + " --help' for usage."
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != errSilent {
			fmt.Fprintln(stderr, "respcheck: "+ee.err.Error())
		}
		if ee.hint {
			fmt.Fprintln(stderr, hint)
		}
		return ee.code
	}
	// Errors from cobra itself: unknown command, bad flag.
	fmt.Fprintln(stderr, "respcheck: "+err.Error())
	fmt.Fprintln(stderr, hint)
	return exitUsage
}

// errSilent marks an exit whose message was already printed.
var errSilent = errors.New("")
