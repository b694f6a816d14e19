package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestPerlAdapter: adapters/perl/adapter.pl, an adapter for Perl's
// Redis::Fast written from docs/adapters.md alone (without respcheck's
// source), runs the corpus's nil kinds, errors and pub/sub cases with no
// adapter error, every case judged; what it finds in Redis::Fast 0.34 (an
// error element inside an array dies the whole call; SUBSCRIBE through
// the generic call sends nothing and silences the connection) is what
// adapters/perl/repro.pl shows with Redis::Fast alone.
func TestPerlAdapter(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err == nil {
		err = exec.Command(perl, "-MRedis::Fast", "-e", "1").Run()
	}
	if err != nil {
		if servers.InCI() {
			t.Fatalf("CI is set and Perl's Redis::Fast is missing (scripts/install-clients.sh --only perl): %v", err)
		}
		t.Skipf("Perl's Redis::Fast is not installed (scripts/install-clients.sh --only perl): %v", err)
	}
	dir := filepath.Join("..", "..", "adapters", "perl")
	srv := servers.ForTest(t, "redis-8.6.3")
	code, out, errs := respcheck(t, "clients", "--adapter", perl+" "+filepath.Join(dir, "adapter.pl"), "--clients", "redis-fast",
		"--addr", srv.Addr(), "--allow-destructive", "--format", "json",
		"../../testdata/clients/nil-kinds.yaml", "../../testdata/clients/errors.yaml", "../../testdata/clients/pubsub.yaml")
	var rep report.ClientsJSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFindings {
		t.Fatalf("exit %d (want %d: findings), %v\n%s%s", code, exitFindings, err, out, errs)
	}
	verdicts := map[string]clients.Verdict{}
	for _, r := range rep.Results {
		verdicts[r.Name] = r.Verdict
		if !strings.HasPrefix(r.Client, "redis-fast-") || !strings.HasSuffix(r.Client, "/resp2") || r.Verdict == clients.Error {
			t.Errorf("%s %s: %s (%s)", r.Client, r.Name, r.Verdict, r.Rule)
		}
		if strings.HasPrefix(r.Name, "nil-kinds/") && r.Verdict != clients.Match && r.Verdict != clients.Erased {
			t.Errorf("%s: %s, want match or erased", r.Name, r.Verdict)
		}
	}
	for name, want := range map[string]clients.Verdict{
		"errors/EXEC array with an error element from INCR on a string":                 clients.Mismatch,
		"pubsub/SUBSCRIBE confirmation, then a message published on another connection": clients.Desync,
		// The die's text wraps the server's (erased: "[CMD] text, at ..."),
		// which the adapter reports whole: a wrong message is a mismatch.
		"errors/simple error from an unknown command with arguments": clients.Erased,
		"errors/simple error WRONGTYPE from LPUSH on a string":       clients.Erased,
	} {
		if got, ok := verdicts[name]; !ok || got != want {
			t.Errorf("%s: %v (judged: %v), want %s", name, got, ok, want)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, perl, filepath.Join(dir, "repro.pl"), srv.Addr()).CombinedOutput()
	for _, want := range []string{
		`EXEC                                          -> DIE [EXEC] ERR value is not an integer`,
		`ECHO still-in-sync                            -> "still-in-sync"`,
		`SUBSCRIBE ch                                  -> undef`,
		`PING                                          -> undef`,
		`(another connection) PUBSUB NUMSUB ch -> ["ch",0]`,
	} {
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("repro.pl: %v: want %q in\n%s", err, want, b)
		}
	}
}
