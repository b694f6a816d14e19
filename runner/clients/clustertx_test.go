package clients

import (
	"context"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// clusterTxCase is a transaction whose every reply each library decodes
// without a loss: EXEC's array of two integers.
const clusterTxCase = `suite: cluster transaction
cases:
  - name: two INCRs in MULTI
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [INCR, "{key}"], reply: "+QUEUED\r\n"}
      - {send: [INCR, "{key}"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*2\r\n:1\r\n:2\r\n"}
`

// TestClusterTransactions runs a MULTI … EXEC block through each cluster
// configuration's transaction API on a Redis 8.6.3 cluster (3
// primaries): every queued command is judged (against EXEC's element or
// the library's own reply) and matches; with the proxy's extra frame
// after MULTI's +OK (every later reply one behind) the case is a finding.
// redis-py 4.3.4's RedisCluster has no transaction: it skips, saying
// why.
func TestClusterTransactions(t *testing.T) {
	f, err := cases.Load("cluster-tx.yaml", []byte(clusterTxCase))
	if err != nil {
		t.Fatal(err)
	}
	ds := clusterDrivers(t)
	cl := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	opts := Options{Target: target.Config{Addr: cl.Nodes[0].Addr()}, Drivers: ds, RunID: "cluster-tx", Jobs: 2}
	rep, err := Run(context.Background(), []*cases.File{f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 2*len(ds)-1 { // redis-py 4.3.4 speaks RESP2 only
		t.Fatalf("%d results for %d configurations", len(rep.Results), len(ds))
	}
	for _, res := range rep.Results {
		t.Logf("%s: %s", res.Client, res.Verdict)
		if ok, _ := clusterTx(driverNamed(ds, res.Client)); !ok {
			if res.Verdict != Skip || !strings.Contains(res.Reason, "transaction") {
				t.Errorf("%s: %s %q, want a skip naming its missing transaction API", res.Client, res.Verdict, res.Reason)
			}
			continue
		}
		judged := 0
		for _, sv := range res.Steps {
			if len(sv.Notes) > 0 && strings.HasPrefix(sv.Notes[0], "queued (") {
				judged++
			}
			if sv.Verdict.Finding() {
				t.Errorf("%s line %d: %s %v %v", res.Client, sv.Step.Pos.Line, sv.Verdict, sv.Native, sv.Notes)
			}
		}
		if res.Verdict != Match || judged != 2 {
			t.Errorf("%s: %s (%s), %d queued commands judged, want a match with 2", res.Client, res.Verdict, res.Reason, judged)
		}
	}
	opts.Fault, opts.RunID = Fault{ExtraAfter: "MULTI"}, "cluster-tx-shifted"
	rep, err = Run(context.Background(), []*cases.File{f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	unseen := 0
	for _, res := range rep.Results {
		t.Logf("shifted %s: %s", res.Client, res.Verdict)
		if ok, _ := clusterTx(driverNamed(ds, res.Client)); ok && res.Verdict < Mismatch {
			// As in TestConfigurationProof: go-redis/cluster/resp3 once
			// (a CI run under -race) returned the right values with no
			// step showing the injected frame; one such client is logged,
			// more fail, and one that shows the frame and is judged
			// acceptable always fails.
			report := t.Errorf
			if !injectedNoted(res) {
				unseen++
				report = t.Logf
			}
			report("%s: %s after an extra frame following MULTI's +OK, want a finding", res.Client, res.Verdict)
			for _, sv := range res.Steps {
				t.Logf("  line %d %s %v %v %q", sv.Step.Pos.Line, sv.Verdict, sv.Native, sv.Notes, sv.Injected)
			}
		}
	}
	if unseen > 1 {
		t.Errorf("%d cluster clients show no injected frame", unseen)
	}
}

// driverNamed is the driver of ds whose client (library/respN) is client.
func driverNamed(ds []Driver, client string) Driver {
	for _, d := range ds {
		if strings.HasPrefix(client, d.Library()+"/resp") {
			return d
		}
	}
	return nil
}

// TestClusterTxSkip: of the transactions corpus, a cluster configuration
// with a transaction API runs the MULTI … EXEC blocks and skips the
// DISCARD, WATCH and pipelined MULTI cases, naming the step; one without
// skips every case with MULTI, with its own reason or the default one.
func TestClusterTxSkip(t *testing.T) {
	f := loadTestdata(t, "transactions.yaml")[0]
	noTx := &adapterDriver{lib: adapterLibrary{Name: "x/cluster", NoTx: "no transaction here"}}
	want := map[string]string{
		"simple string OK from DISCARD, then an EXEC without MULTI error":                            "MULTI at ",
		"nil EXEC after a WATCH conflict, then an array EXEC after UNWATCH":                          "WATCH at ",
		"pipelined MULTI, commands and EXEC":                                                         "MULTI at ",
		"EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set": "",
	}
	for _, c := range f.Cases {
		got := clusterTxSkip(goRedisClusterDriver, c)
		if w, ok := want[c.Name]; ok && (w == "") != (got == "") || !strings.Contains(got, w) {
			t.Errorf("%s: %q, want one naming %q", c.Name, got, w)
		}
		if got := clusterTxSkip(noTx, c); got != "no transaction here" {
			t.Errorf("%s without a transaction API: %q", c.Name, got)
		}
		if got := clusterTxSkip(&goLibrary{name: "y/cluster"}, c); got != clusterTransactionSkip {
			t.Errorf("%s without a reason: %q", c.Name, got)
		}
	}
}
