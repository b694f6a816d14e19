package clients

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// proofCase is one tiny case every configuration can run: four commands
// with replies of three types, sent async (a pipeline for "/pipeline"
// configurations, calls queued one after another for the others); SET and
// SET ... GET have typed wrappers in every typed configuration.
const proofCase = `suite: proof
cases:
  - name: four pipelined replies of three types
    steps:
      - {send: [SET, "{key}", alpha], async: true}
      - {send: [GET, "{key}"], async: true}
      - {send: [INCR, "{key:n}"], async: true}
      - {send: [SET, "{key}", beta, GET], async: true}
      - {read: true, reply: "+OK\r\n"}
      - {read: true, reply: "$5\r\nalpha\r\n"}
      - {read: true, reply: ":1\r\n"}
      - {read: true, reply: "$5\r\nalpha\r\n"}
`

// TestConfigurationProof shows, for every available configuration (so
// for those added later without a test of their own), that its contract
// is not one that accepts everything: the known-correct replies of the
// proof case are judged match (or converted, erased), each value judged
// against another step's reply (a shifted reply) is not, and with the
// proxy injecting a frame after SET's reply (Fault.ExtraAfter) the
// library that reads it is judged mismatch or desync, never match.
func TestConfigurationProof(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("proof.yaml", []byte(proofCase))
	if err != nil {
		t.Fatal(err)
	}
	ds, notes := allDrivers()
	// The /pubsub configurations skip a case without a subscribe (their
	// proof is TestPubsubWrongMessage), the /cluster ones a standalone
	// server (theirs is TestClusterClients).
	ds = slices.DeleteFunc(ds, func(d Driver) bool { return pubsubWhere(d) != "" || IsCluster(d) })
	if len(ds) == 0 {
		t.Fatalf("no configuration available: %v", notes)
	}
	opts := Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 4}
	rep, err := Run(context.Background(), []*cases.File{f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Fault = Fault{ExtraAfter: "SET"}
	shifted, err := Run(context.Background(), []*cases.File{f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	wrong := map[string]*Result{}
	for _, res := range shifted.Results {
		wrong[res.Client] = res
	}
	unseen := 0
	for _, res := range rep.Results {
		judged := proofCorrect(t, res)
		proofShifted(t, res.Client, judged)
		if !proofFault(t, wrong[res.Client]) {
			unseen++
		}
	}
	// Once in a CI run under load, go-redis/pipeline/resp3 returned the
	// four right values with no step showing the injected frame (not
	// reproduced in 10 runs since, under -race and three CPU burners): the
	// frame went where no step looked. One such client is logged; more
	// would mean the fault is not injected at all.
	if unseen > 1 {
		t.Errorf("%d clients show no injected frame", unseen)
	}
	t.Logf("%d configurations (%d clients) proved", len(ds), len(rep.Results))
}

// proofCorrect returns the views of res judged on a correct reply
// without a finding: at least two. A finding is logged (a library's own,
// such as redis-py's SET ... GET as False, reproduced in
// testdata/clients/repro), not failed.
func proofCorrect(t *testing.T, res *Result) []StepView {
	t.Helper()
	var judged []StepView
	for _, sv := range res.Steps {
		switch {
		case sv.Verdict.Finding():
			t.Logf("%s: correct reply %q judged %s: %v %v", res.Client, sv.Reply, sv.Verdict, sv.Native, sv.Notes)
		case sv.Native != nil && sv.Reply != nil && sv.Verdict != Skip:
			judged = append(judged, sv)
		}
	}
	if len(judged) < 2 {
		t.Errorf("%s: %d steps judged match (%s %s), want at least 2", res.Client, len(judged), res.Verdict, res.Reason)
	}
	return judged
}

// proofShifted judges each value against the next judged step's reply
// that is other bytes (redis-py-typed's SET … GET and GET both read
// "$5\r\nalpha\r\n": a shift onto the same bytes shows nothing) under the
// client's contract: never acceptable.
func proofShifted(t *testing.T, client string, judged []StepView) {
	t.Helper()
	c := contractFor(client)
	for i, sv := range judged {
		var other []byte
		for k := 1; k < len(judged) && other == nil; k++ {
			if r := judged[(i+k)%len(judged)].Reply; !bytes.Equal(r, sv.Reply) {
				other = r
			}
		}
		if other == nil {
			continue
		}
		_, v, err := resp.Parse(other)
		if err != nil {
			t.Fatalf("%s: reply %q: %v", client, other, err)
		}
		if vd, _ := c.Judge(v, *sv.Native); !vd.Finding() {
			t.Errorf("%s: %v (the value of %s) judged %s against the shifted reply %q", client, sv.Native, resp.EscapeCommand(sv.Args), vd, other)
		}
	}
}

// proofFault checks the run with an injected frame: a library that read
// it (a value carries it, or a canary found the connection shifted) has a
// finding; one that dropped it shows the injected frame. It returns false
// when neither the values nor the steps show the frame (logged with the
// steps, counted by the caller).
func proofFault(t *testing.T, res *Result) bool {
	t.Helper()
	if res == nil {
		t.Error("a client missing from the run with an injected frame")
		return true
	}
	read := false
	for _, sv := range res.Steps {
		if sv.Native != nil && strings.Contains(sv.Native.String(), "respcheck-extra") || sv.Canary != "" && sv.Canary != "ok" {
			read = true
		}
	}
	switch {
	case read && !res.Verdict.Finding():
		t.Errorf("%s: read the injected frame, judged %s", res.Client, res.Verdict)
	case !read && res.Verdict.Finding():
		t.Logf("%s: %s without reading the injected frame", res.Client, res.Verdict)
	case !read && !injectedNoted(res):
		t.Logf("%s: %s, and no step shows the injected frame", res.Client, res.Verdict)
		for _, sv := range res.Steps {
			t.Logf("  step %s: reply %q, pushes %q, injected %q, native %v, %s, notes %v", resp.EscapeCommand(sv.Args), sv.Reply, sv.Pushes, sv.Injected, sv.Native, sv.Verdict, sv.Notes)
		}
		return false
	}
	t.Logf("%s: injected frame read: %v, %s", res.Client, read, res.Verdict)
	return true
}
