package runner

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/internal/testrelay"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestWatchdogConnectsBeforeTheCases: once the lanes are made, each
// watchdog has its connection, so no case sees it dialled beside it (a
// case counting INFO stats' total_connections_received saw one more
// connection once, under load).
func TestWatchdogConnectsBeforeTheCases(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	cfg := target.Config{Addr: srv.Addr()}
	// The lanes reach the server through a relay that dials it 200 ms
	// after each accept: a watchdog that dials in the background has no
	// connection on the server yet when newLanes returns.
	tg, err := target.Open(context.Background(), target.Config{Addr: testrelay.Start(t, srv.Addr(), testrelay.Options{DialDelay: 200 * time.Millisecond})})
	if err != nil {
		t.Fatal(err)
	}
	conns := func() int {
		c, err := cfg.Dial(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		v, err := c.Do("INFO", "stats")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`total_connections_received:(\d+)`).FindSubmatch(v.Str)
		if m == nil {
			t.Fatalf("INFO stats: %q", v.Str)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	before := conns()
	ctx, cancel := context.WithCancelCause(context.Background())
	ls := newLanes(context.Background(), ctx, cancel, nil, []*target.Target{tg}, 5*time.Second)
	defer ls.stop()
	// before's own connection, then the watchdog's, then this one.
	if got := conns(); got != before+2 {
		t.Errorf("total_connections_received %d right after the lanes were made, want %d (the watchdog's connection made)", got, before+2)
	}
}
