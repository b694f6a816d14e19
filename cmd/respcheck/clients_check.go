package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// checkCases starts the cases' own check of a clients run
// (clients.Report.Cases): the selected cases run as respcheck run runs
// them, in the protocols the libraries speak (checkProtos), --jobs cases
// at once. Against a throwaway target it starts at once, beside the
// libraries, on throwaway servers (or a cluster) of its own, as many as
// run starts, each started again after a known crash as run's are: what the libraries leave on theirs (a pause, a
// stopped server) does not reach it. Against an existing server
// (external) it runs when the returned function is called, after the
// libraries, as a shared run with the consent --allow-destructive gave.
// The function returns the check's report, or nil and why it could not
// run.
func checkCases(ctx context.Context, f clientsFlags, t endpoint, files []*cases.File, protos []int, runRE *regexp.Regexp, runID string) func() (*runner.Report, error) {
	external := t.spawned == nil
	// --jobs bounds the check too; it starts as many servers as run does.
	opts := runner.Options{Addr: t.Addr, Username: t.Username, Password: t.Password, DB: t.DB, TLS: t.TLS,
		Protos: protos, Run: runRE, Jobs: f.jobs, StepTimeout: f.timeout, RunID: runID, Shared: external, AllowDestructive: true,
		Limits: f.limits()}
	if external {
		return func() (*runner.Report, error) { return runner.Run(ctx, files, opts) }
	}
	var rep *runner.Report
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		ct, fl, ferr := f.openFleet(ctx, f.servers)
		if ferr != nil {
			err = ferr
			return
		}
		defer fl.stop()
		opts.Addr, opts.Pool = ct.Addr, fl.pool()
		if fl != nil && fl.spawn != nil { // a throwaway cluster is not started again
			opts.Respawn, opts.Kill = fl.respawn, fl.kill
		}
		rep, err = runner.Run(ctx, files, opts)
	}()
	return func() (*runner.Report, error) {
		<-done
		return rep, err
	}
}

// checkProtos are the protocols of protos that one of the drivers speaks:
// the cases are checked in those the libraries ran.
func checkProtos(drivers []clients.Driver, protos []int) []int {
	var out []int
	for _, p := range protos {
		for _, d := range drivers {
			if slices.Contains(d.Protos(), p) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// addCaseCheck puts the check's outcome into rep: its report, and when it
// could not run or its server stopped answering, why, as the server lost
// (respcheck exits 3), unless the run was interrupted.
func addCaseCheck(ctx context.Context, rep *clients.Report, check *runner.Report, err error) {
	rep.Cases = check
	if ctx.Err() != nil || rep.ServerLost != "" {
		return
	}
	var why error
	switch {
	case err != nil:
		var ee *exitError
		if errors.As(err, &ee) && ee.err != nil {
			err = ee.err
		}
		why = err
	case check.ServerLost != nil:
		why = check.ServerLost
	}
	if why != nil {
		rep.ServerLost = fmt.Sprintf("checking the cases: %v", why)
	}
}
