package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestUserAdapter: --adapter drives a library respcheck does not know, in
// the protocol of docs/adapters.md: the example adapter
// (adapters/example/adapter.py, a socket and a RESP parser) is a client
// of its own (raw-resp 1.0.0) that runs the nil-kinds cases in RESP2 and
// RESP3 on Redis 8.6.3, every case judged (no error, crash or hang: it
// reports the wire as is, so the judge's verdicts are match or, for what
// any host value erases, erased); an adapter command that does not start
// is a note naming it, and the library an unknown client (exit 2).
func TestUserAdapter(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	adapter := py + " " + filepath.Join("..", "..", "adapters", "example", "adapter.py")
	srv := servers.ForTest(t, "redis-8.6.3")
	code, out, errs := respcheck(t, "clients", "--adapter", adapter, "--clients", "raw-resp", "--addr", srv.Addr(), "--allow-destructive",
		"--format", "json", "../../testdata/clients/nil-kinds.yaml")
	var rep report.ClientsJSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	protos := map[int]int{}
	for _, r := range rep.Results {
		protos[r.Proto]++
		if r.Client != "raw-resp/resp2" && r.Client != "raw-resp/resp3" || r.Verdict != clients.Match && r.Verdict != clients.Erased {
			t.Errorf("%s %s: %s (%s)", r.Client, r.Name, r.Verdict, r.Rule)
		}
	}
	if len(rep.Clients) != 2 || rep.Clients[0].Library != "raw-resp" || rep.Clients[0].Version != "1.0.0" {
		t.Errorf("clients %+v", rep.Clients)
	}
	if protos[2] == 0 || protos[2] != protos[3] || rep.Counts["match"] == 0 {
		t.Errorf("results by protocol %v, counts %v", protos, rep.Counts)
	}
	code, _, errs = respcheck(t, "clients", "--adapter", "nosuchprogram --flag", "--clients", "raw-resp", "--addr", srv.Addr(), "--allow-destructive",
		"../../testdata/clients/nil-kinds.yaml")
	if code != exitUsage || !strings.Contains(errs, `note: adapter nosuchprogram --flag: exec: "nosuchprogram"`) || !strings.Contains(errs, `unknown or unavailable client "raw-resp"`) {
		t.Errorf("a missing adapter program: exit %d\n%s", code, errs)
	}
}
