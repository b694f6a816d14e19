package main

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// cliCorpus are the files of testdata/clients whose command-line client
// findings must each be a known one (cliFindingExplained); the matrix's
// other files are judged by their committed cells only.
var cliCorpus = []string{"aggregates.yaml", "numbers.yaml", "pubsub.yaml", "transactions.yaml", "attributes.yaml", "resp3-types.yaml", "blobs.yaml", "errors.yaml", "protocol-switch.yaml"}

// cliFindings checks, on the client matrix's own run (TestClientMatrix,
// both servers), the command-line clients (redis-cli, valkey-cli, every
// installed build, raw and --no-raw) as runner/clients' TestCLIClients
// did with a run of its own: every printed reply of cliCorpus is what the
// build's source prints, except the findings cliFindingExplained names,
// each reproduced by a script in testdata/clients/repro; and the steps
// that matched are many (at least 1,000 per server), so a run whose CLIs
// printed nothing cannot pass.
type cliFindings struct {
	mu          sync.Mutex
	matched     int
	unexplained []string
}

// add takes one result of the run (from Options.OnResult, before
// keepVerdict drops its steps).
func (c *cliFindings) add(res *clients.Result) {
	if !strings.HasPrefix(res.Client, "redis-cli-") && !strings.HasPrefix(res.Client, "valkey-cli-") {
		return
	}
	if !slices.Contains(cliCorpus, filepath.Base(res.Case.File.Path)) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, sv := range res.Steps {
		if sv.Verdict == clients.Match {
			c.matched++
		}
		if sv.Verdict.Finding() && cliFindingExplained(res.Client, sv, res.Steps[:i]) == "" {
			c.unexplained = append(c.unexplained, res.Client+" "+res.Case.Name+" "+
				resp.EscapeCommand(sv.Args)+": "+sv.Verdict.String()+" "+strings.Join(sv.Notes, "; "))
		}
	}
}

// check fails t with the unexplained findings, or when too few steps
// matched.
func (c *cliFindings) check(t *testing.T, build string) {
	t.Helper()
	for _, u := range c.unexplained {
		t.Errorf("%s: a command-line client's finding that is none of the known ones: %s", build, u)
	}
	if c.matched < 1000 {
		t.Errorf("%s: only %d steps of the command-line clients matched in %v", build, c.matched, cliCorpus)
	}
}

// cliFindingExplained says which known finding of a command-line client
// a step's verdict is, or "": an exit on a big number or an attribute
// (every build: their hiredis has no such reply type), on the double nan
// (redis-cli 7.0.15's hiredis), redis-cli 7.0.15 waiting forever on an
// UNSUBSCRIBE in RESP3 (its confirmation is a push, which its hiredis
// drops), and its steps after an UNSUBSCRIBE of several channels in RESP2
// one reply behind (it reads one confirmation); before are the case's
// steps before sv.
func cliFindingExplained(client string, sv clients.StepView, before []clients.StepView) string {
	msg := ""
	if sv.Native != nil && sv.Native.Err != nil {
		msg = sv.Native.Err.Message
	}
	old := strings.HasPrefix(client, "redis-cli-7.0.15")
	switch {
	case sv.Verdict == clients.Crash && strings.Contains(msg, "Unknown reply type: 13"):
		return "big number"
	case sv.Verdict == clients.Crash && (strings.Contains(msg, `got "|" as reply type byte`) || strings.Contains(msg, "Unknown reply type: 11")):
		return "attribute"
	case sv.Verdict == clients.Crash && old && strings.Contains(msg, "Bad double value"):
		return "nan"
	case sv.Verdict == clients.Hang && old && strings.HasSuffix(client, "/resp3") && isUnsubscribe(sv):
		return "unsubscribe in RESP3"
	case sv.Verdict == clients.Desync && old && strings.HasSuffix(client, "/resp2") && slices.ContainsFunc(before, multiUnsubscribe):
		return "one reply read for an unsubscribe of several channels"
	}
	return ""
}

// multiUnsubscribe reports whether sv sent an (P)UNSUBSCRIBE of several
// channels, which the server confirms once per channel (redis-cli 7.0.15
// reads one reply for it in RESP2: redis-cli-7.0.15-two-channel-unsubscribe-desync.sh).
func multiUnsubscribe(sv clients.StepView) bool {
	return len(sv.Args) > 2 && isUnsubscribe(sv)
}

// isUnsubscribe reports whether sv sent an unsubscribe of the (P|S)
// family.
func isUnsubscribe(sv clients.StepView) bool {
	return len(sv.Args) > 0 && slices.Contains([]string{"UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE"}, strings.ToUpper(string(sv.Args[0])))
}
