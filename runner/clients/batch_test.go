package clients

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestPlanBatches checks which steps of the transaction cases form batch
// groups: a MULTI … EXEC block of one connection, a run of async sends
// with their reads; a DISCARD block runs step by step.
func TestPlanBatches(t *testing.T) {
	f := loadTestdata(t, "transactions.yaml")[0]
	want := map[string][]string{
		"EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set": {"0:multi:10"},
		"EXEC array holding a map of fields and a nested array":                                      {"2:multi:4"},
		"simple string OK from DISCARD, then an EXEC without MULTI error":                            nil,
		"nil EXEC after a WATCH conflict, then an array EXEC after UNWATCH":                          {"3:multi:3", "6:multi:3"},
		"EXECABORT error after an unknown command at queue time":                                     {"0:multi:4"},
		"EXEC array with a WRONGTYPE error between two replies":                                      {"0:multi:5"},
		"pipelined MULTI, commands and EXEC":                                                         {"0:pipeline:8"},
	}
	for _, c := range f.Cases {
		var got []string
		plan := planBatches(c)
		for i := range c.Steps {
			if g := plan[i]; g != nil {
				got = append(got, fmtGroup(i, g))
			}
		}
		if w, ok := want[c.Name]; !ok || !equalStrings(got, w) {
			t.Errorf("%q: groups %v, want %v", c.Name, got, w)
		}
	}
}

const interleaved = `suite: interleaved
cases:
  - name: a MULTI block with another connection's step inside
    steps:
      - {conn: a, send: [MULTI]}
      - {conn: a, send: [INCR, "{key}"]}
      - {conn: b, send: [GET, "{key}"]}
      - {conn: a, send: [EXEC]}
  - name: async sends with another connection's step before their reads
    steps:
      - {conn: a, send: [ECHO, x], async: true}
      - {conn: b, send: [ECHO, y]}
      - {conn: a, read: true}
  - name: two async groups, a plain send between
    steps:
      - {send: [ECHO, x], async: true}
      - {read: true}
      - {send: [ECHO, y]}
      - {send: [ECHO, z], async: true}
      - {send: [ECHO, w], async: true}
      - {read: true}
      - {read: true}
`

// TestPlanBatchesInterleaved: a group with another connection's step
// inside runs step by step; separate groups are separate batches.
func TestPlanBatchesInterleaved(t *testing.T) {
	f, err := cases.Load("interleaved.yaml", []byte(interleaved))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{nil, nil, {"0:pipeline:2", "3:pipeline:4"}}
	for i, c := range f.Cases {
		var got []string
		plan := planBatches(c)
		for k := range c.Steps {
			if g := plan[k]; g != nil {
				got = append(got, fmtGroup(k, g))
			}
		}
		if !equalStrings(got, want[i]) {
			t.Errorf("%q: groups %v, want %v", c.Name, got, want[i])
		}
	}
}

func fmtGroup(i int, g *batchGroup) string {
	return itoa(i) + ":" + g.mode + ":" + itoa(len(g.steps))
}

func itoa(i int) string { return strconv.Itoa(i) }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBatchGoConfigurations runs the transaction, error, attribute and
// push cases through the Go "/pipeline" configurations on Redis and
// Valkey in both protocols: no finding, every queued command of a
// transaction judged against its element of EXEC's reply (go-redis) or its
// own reply (rueidis, valkey-go DoMulti), and cases without a batch
// skipped.
func TestBatchGoConfigurations(t *testing.T) {
	var files []*cases.File
	for _, n := range []string{"transactions.yaml", "errors.yaml", "attributes.yaml", "pushes.yaml"} {
		files = append(files, loadTestdata(t, n)...)
	}
	for _, server := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(server, func(t *testing.T) {
			srv := servers.ForTest(t, server)
			rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()},
				Drivers: []Driver{goRedisPipelineDriver, rueidisPipelineDriver, valkeyGoPipelineDriver}, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, res := range rep.Results {
				counts[res.Verdict.String()]++
				if res.Reason == noBatch {
					counts["no batch"]++
				}
				for _, sv := range res.Steps {
					if sv.Verdict.Finding() {
						t.Errorf("%s %q line %d: %s %q %v %v canary=%q", res.Client, res.Case.Name, sv.Step.Pos.Line,
							sv.Verdict, sv.Reply, sv.Native, sv.Notes, sv.Canary)
					}
					for _, n := range sv.Notes {
						if strings.HasPrefix(n, "queued (") {
							counts["queued judged"]++
						}
					}
				}
			}
			t.Logf("%s: %d results %v", server, len(rep.Results), counts)
			if counts["queued judged"] == 0 || counts["no batch"] == 0 {
				t.Errorf("no queued command judged or no case skipped: %v", counts)
			}
		})
	}
}
