package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/respcheck/respcheck/runner/scenario"
)

// Metrics are the figures of a scenario result (see scenario.Metrics).
type Metrics = scenario.Metrics

// runScenario runs it.c.Scenario (package scenario) and checks its
// invariants and known differences; res has been gated already. The
// scenario's keys are deleted afterwards, whatever happened: they are its
// own, and a rate-limiter scenario may leave many without a TTL.
func (r *run) runScenario(ctx context.Context, it item, res *Result) {
	sc := it.c.Scenario
	res.KeyPrefix = r.keyPrefix(it)
	defer r.deleteKeys(it.t, it.w, res.KeyPrefix, nil)
	var err error
	res.Metrics, err = scenario.Run(ctx, it.t, sc, it.proto, res.KeyPrefix, r.opts.StepTimeout)
	if err != nil {
		res.Status, res.Reason = Error, fmt.Sprintf("%s: %s: %v", sc.Pos, sc.Pattern, err)
		return
	}
	if broken := brokenInvariants(it, res.Metrics); len(broken) > 0 {
		res.Status, res.Reason = Fail, strings.Join(broken, "; ")
	}
	r.applyKnown(res)
}

// brokenInvariants says, for each invariant of the scenario that does not
// hold on m, which and why, with the figures.
func brokenInvariants(it item, m Metrics) []string {
	var broken []string
	for _, iv := range it.c.Scenario.Expect {
		holds, ok := iv.Holds(m)
		switch {
		case !ok:
			broken = append(broken, fmt.Sprintf("%s: %s: a figure is missing", iv.Pos, iv))
		case !holds:
			lhs := iv.Metric + " is " + m.Figure(iv.Metric)
			if iv.Ref != "" {
				lhs += ", " + iv.Ref + " is " + m.Figure(iv.Ref)
			}
			broken = append(broken, fmt.Sprintf("%s: invariant %s does not hold: %s", iv.Pos, iv, lhs))
		}
	}
	return broken
}
