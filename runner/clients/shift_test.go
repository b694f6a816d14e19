package clients

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

const shiftCases = `suite: shift
cases:
  - name: an extra reply after GET shifts every later reply
    steps:
      - {send: [SET, "{key}", v1], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$2\r\nv1\r\n"}
      - {send: [INCR, "{key:n}"], reply: ":1\r\n"}
      - {send: [INCR, "{key:n}"], reply: ":2\r\n"}
`

// TestExtraReplyIsDesync makes the proxy send one reply no command asked
// for (after the first GET): every client that reads it must end in
// desync, never in a bare mismatch; a client that fails on it hangs or
// crashes; a client that drops the frame matches.
func TestExtraReplyIsDesync(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("shift.yaml", []byte(shiftCases))
	if err != nil {
		t.Fatal(err)
	}
	// Through the adapter processes, Go libraries included: rueidis
	// 1.0.79 panics in its reader goroutine on the extra frame.
	ds := externalDrivers(t, "go-redis", "rueidis", "valkey-go", "redigo", "radix", "ioredis", "node-redis", "iovalkey", "valkey-glide", "redis-py")
	// The /cluster configurations skip a standalone server (their shift
	// test is TestClusterClients's).
	ds = slices.DeleteFunc(ds, IsCluster)
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2,
		Fault: Fault{ExtraAfter: "GET"}})
	if err != nil {
		t.Fatal(err)
	}
	desyncs := 0
	for _, res := range rep.Results {
		if res.Verdict == Skip && (res.Reason == noBatch || res.Reason == noPubsub) {
			continue // a /pipeline or /pubsub configuration: nothing to batch or subscribe here
		}
		readExtra := false
		for _, sv := range res.Steps {
			if sv.Native != nil && strings.Contains(sv.Native.String(), "respcheck-extra") {
				readExtra = true
			}
		}
		switch {
		case res.Verdict == Desync:
			desyncs++
			t.Logf("%s: desync", res.Client)
		case (res.Verdict == Hang || res.Verdict == Crash) && !readExtra:
			// The library failed on the frame instead of returning it
			// (node-redis 4.7.1 throws in its own reader and then hangs:
			// repro node-redis-4-resp2-unclaimed-frame.js): a finding,
			// not a wrong value.
			t.Logf("%s: %s on the extra frame", res.Client, res.Verdict)
		case readExtra || res.Verdict >= Mismatch:
			t.Errorf("%s: %s, read the extra frame: %v; want desync", res.Client, res.Verdict, readExtra)
			for _, sv := range res.Steps {
				t.Logf("  %s %s %v canary=%q", resp.EscapeCommand(sv.Args), sv.Verdict, sv.Native, sv.Canary)
			}
		default:
			t.Logf("%s: %s (the library dropped the extra frame)", res.Client, res.Verdict)
			if !injectedNoted(res) {
				t.Errorf("%s: no step shows the injected frame", res.Client)
			}
		}
	}
	if desyncs == 0 {
		t.Error("no client reported desync")
	}
}

// injectedNoted reports whether a step of res shows the frame the proxy
// injected.
func injectedNoted(res *Result) bool {
	for _, sv := range res.Steps {
		if len(sv.Injected) > 0 {
			return true
		}
	}
	return false
}
