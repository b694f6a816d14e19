package clients

import (
	"context"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestCleanupStepsRunOnAStandaloneServer runs through a library a case
// that changes the server's configuration and restores it in its cleanup
// steps (as the bundled busy-script cases do with busy-reply-threshold),
// on a standalone server: the cleanup runs, and the server has its value
// back afterwards (a user's server after clients --allow-destructive, or
// the next case on a throwaway one).
func TestCleanupStepsRunOnAStandaloneServer(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx := context.Background()
	user, err := target.Config{Addr: srv.Addr()}.Dial(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	v, _ := user.Do("CONFIG", "GET", "busy-reply-threshold")
	before := string(v.Raw) // a view of the reader's buffer until the next read
	f, err := cases.Load("cleanup.yaml", []byte(`suite: cleanup
cases:
  - name: a CONFIG SET undone by the cleanup
    exclusive: true
    steps:
      - send: [CONFIG, GET, busy-reply-threshold]
        capture: {name: threshold, match: 'busy-reply-threshold\r\n\$\d+\r\n(\d+)'}
      - {send: [CONFIG, SET, busy-reply-threshold, "100"], reply: "+OK\r\n"}
    cleanup:
      - {send: [CONFIG, SET, busy-reply-threshold, "{cap:threshold}"], reply: "+OK\r\n"}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver}, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict == Skip || res.Verdict.Finding() {
			t.Errorf("%s %s: %s %q", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
	}
	if after, _ := user.Do("CONFIG", "GET", "busy-reply-threshold"); string(after.Raw) != before {
		t.Errorf("busy-reply-threshold is %q after the run, was %q", after.Raw, before)
	}
}
