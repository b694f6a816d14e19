package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// otherKeys is how many keys of their own TestSharedServerKeepsOtherData
// gives the servers: 20 rounds of the cleanup's SCAN COUNT 1000 per case.
// It was 100,000, and the cleanup's SCAN of the whole keyspace after each
// case was most of the test's CPU (a server's scanCallback in a CI
// profile); that cost on a large shared server is the overhead issue's.
const otherKeys = 20000

// TestSharedServerKeepsOtherData loads otherKeys keys of mixed types, runs the
// whole bundled suite against the server as a shared (external) target, and
// proves the data set is unchanged (DEBUG DIGEST, DBSIZE) and no key of the
// run is left behind.
func TestSharedServerKeepsOtherData(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 20,000 keys")
	}
	for _, name := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // two servers side by side
			srv := servers.ForTest(t, name)
			c := dialRaw(t, srv.Addr())
			loadMixed(t, c, otherKeys)
			digest := string(c.do(t, "DEBUG", "DIGEST").Str)
			size := c.do(t, "DBSIZE").Int
			if size != otherKeys {
				t.Fatalf("DBSIZE %d after loading", size)
			}
			files, err := cases.Bundled()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := runner.Run(context.Background(), files, runner.Options{
				Addr: srv.Addr(), RunID: runner.NewRunID(), Shared: true, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status == runner.Fail || r.Status == runner.Error {
					t.Errorf("%s [RESP%d]: %s", r.Case.FullName(), r.Proto, r.Reason)
				}
			}
			refused := 0
			for _, r := range rep.Results {
				if r.Status == runner.Skip && strings.Contains(r.Reason, "reaches beyond the run's own keys") {
					refused++
				}
			}
			t.Logf("%+v; %d results refused as destructive; %d keys removed", rep.Summary, refused, rep.KeysRemoved)
			if rep.KeysRemoved == 0 {
				t.Error("the cleanup removed no keys: the suite writes keys, so it should")
			}
			if rep.DBSize != [2]int64{otherKeys, otherKeys} {
				t.Errorf("DBSize before/after = %v", rep.DBSize)
			}
			if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
				t.Errorf("DEBUG DIGEST changed: %s before, %s after", digest, after)
			}
			left := c.do(t, "SCAN", "0", "MATCH", "rc:*", "COUNT", "1000000")
			if keys := left.Elems[1].Elems; len(keys) > 0 {
				t.Errorf("%d keys of the run left behind, e.g. %q", len(keys), keys[0].Str)
			}
		})
	}
}
