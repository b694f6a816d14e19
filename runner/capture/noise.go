package capture

import (
	"context"
	"fmt"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/clients"
)

// LearnNoise learns which captured replies vary from run to run on the
// upstream's build, as Twitter's Diffy learns from a second instance of
// the old version: it runs the case file of exchanges on a fresh server
// of the upstream's build (twin starts one for each run and returns how
// to reach it and how to stop it: a server that kept an earlier run's
// functions or scripts would answer otherwise) and marks the reply of
// every step that failed as noise (its step then expects any reply: the
// file's case goes on after a failure), then runs it again, until the
// file passes or rounds runs were made (a reply learned can change what
// follows it: a value carried no longer). It returns o with Noise set, and the
// number of replies learned. A failure that is not a reply's (a push that
// did not come, a server lost) ends the learning with an error: what
// follows it cannot be told apart.
func LearnNoise(ctx context.Context, exchanges []clients.Exchange, o Options, twin func(context.Context) (runner.Options, func(), error), rounds int) (Options, int, error) {
	noise := map[int]bool{}
	for k := range o.Noise {
		noise[k] = true
	}
	o.Noise = noise
	learned := 0
	for round := range rounds {
		data, expectAt := caseFile(exchanges, o)
		f, err := cases.Load("capture.yaml", data)
		if err != nil {
			return o, learned, fmt.Errorf("the capture's case file does not load (a bug of respcheck): %w", err)
		}
		opts, stop, err := twin(ctx)
		if err != nil {
			return o, learned, fmt.Errorf("the twin did not start: %w", err)
		}
		opts.RunID = fmt.Sprintf("c0a7%04d", round)
		rep, err := runner.Run(ctx, []*cases.File{f}, opts)
		stop()
		if err != nil {
			return o, learned, err
		}
		if ctx.Err() != nil {
			// The steps not run are skips, not passes: what they would
			// have learned is not known (a Ctrl-C's 3 s ran out, and "0
			// differed" was said of a capture that still differed).
			return o, learned, fmt.Errorf("the learning ran out of time (%v): the replies after the last run's first interrupted step were not compared", context.Cause(ctx))
		}
		if rep.ServerLost != nil {
			return o, learned, fmt.Errorf("the twin stopped answering: %w", rep.ServerLost)
		}
		failed := false
		for _, r := range rep.Results {
			if r.Status == runner.Pass || r.Status == runner.Skip {
				continue
			}
			failed = true
			if r.Failure == nil {
				return o, learned, fmt.Errorf("on the twin: %s", r.Reason)
			}
			for _, f := range append([]*runner.Failure{r.Failure}, r.More...) {
				i, ok := expectAt[f.Where().Line]
				if !ok || noise[i] {
					return o, learned, fmt.Errorf("on the twin, line %d: %s", f.Where().Line, f.Message)
				}
				noise[i] = true
				learned++
			}
			if r.Status == runner.Error {
				// The failures before it are learned; what follows the
				// error cannot be told apart.
				return o, learned, fmt.Errorf("on the twin: %s", r.Reason)
			}
		}
		if !failed {
			return o, learned, nil
		}
	}
	return o, learned, fmt.Errorf("the capture still differs on the twin after %d runs", rounds)
}
