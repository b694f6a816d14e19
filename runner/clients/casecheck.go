package clients

import (
	"context"
	"errors"
	"fmt"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// checkCases runs the selected cases of files in protos as respcheck run
// runs them, on the target of opts, after the libraries (Report.Cases):
// the same executor, expectations, known differences and gates as run.
// Its keys are its own (run's key prefixes, not a library's). On a server
// respcheck did not start (Options.Existing) it is a shared run: each
// case's keys deleted after it, the destructive cases allowed, as the
// clients command's --allow-destructive allowed them; a case known to
// crash the server is not run (run cannot start it again here; the
// libraries skip it too). It returns run's *target.Error when the target
// cannot be reached.
func checkCases(ctx context.Context, files []*cases.File, opts Options, protos []int) (*runner.Report, error) {
	cfg := opts.Target
	rep, err := runner.Run(ctx, files, runner.Options{Addr: cfg.Addr, Username: cfg.Username, Password: cfg.Password, DB: cfg.DB, TLS: cfg.TLS,
		Protos: protos, Run: opts.Run, Jobs: opts.Jobs, StepTimeout: opts.StepTimeout, RunID: opts.RunID,
		Shared: opts.Existing, AllowDestructive: true, Limits: cfg.Limits})
	if err != nil {
		var te *target.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, fmt.Errorf("checking the cases: %w", err)
	}
	return rep, nil
}
