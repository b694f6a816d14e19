package replies

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestMain lets this test binary serve as the Go adapter process (see
// clients.GoAdapters), as respcheck itself does.
func TestMain(m *testing.M) {
	if os.Getenv(clients.GoAdapterEnv) == "1" {
		clients.ServeGoAdapter(os.Stdin, os.Stdout)
		return
	}
	os.Exit(m.Run())
}

// TestOwnDecoderMatchesEverything: respcheck's own decoder, as a library
// that keeps every RESP type, gets 1,500 generated frames per protocol
// through the proxy and the judge finds no fault: a finding here would be
// the generator's, the proxy's or the judge's, never a library's.
func TestOwnDecoderMatchesEverything(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: []clients.Driver{ownDriver{}},
		Seed: 5, Frames: 1500, Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"respcheck-resp/resp2", "respcheck-resp/resp3"} {
		if rep.Judged[c] != 1500 {
			t.Errorf("%s: %d frames judged, want 1500 (%d served)", c, rep.Judged[c], rep.Served[c])
		}
	}
	for _, f := range rep.Findings {
		t.Errorf("%s: %d frames, first %s: %q", f.Key(), f.Count, short(f.Frame.Bytes()), f.Notes)
	}
}

// typedNested is a two-element array whose first element is an error go-redis
// v9.23.0 has a type for (internal/proto/redis_errors.go: parseTypedRedisError's
// prefixes), then a reply that is not an aggregate.
var typedNested = regexp.MustCompile(`^\*2\r\n-(LOADING|READONLY|MOVED|ASK|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|NOREPLICAS|NOAUTH|WRONGPASS|NOPERM|EXECABORT|OOM)\b[^\r]*\r\n[^*%~]`)

// goDrivers are the Go libraries named, as adapter processes of this test
// binary.
func goDrivers(t testing.TB, names ...string) []clients.Driver {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ds []clients.Driver
	for _, a := range clients.GoAdapters(exe) {
		for _, n := range names {
			if a.Label != n {
				continue
			}
			got, _, err := a.Drivers(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, got...)
		}
	}
	t.Cleanup(func() { clients.CloseDrivers(ds) })
	return ds
}

// TestGoRedisNestedTypedError: go-redis v9.23.0 returns an error it has
// a type for (LOADING, READONLY, MOVED, ASK, NOAUTH...) found inside an array as
// the whole reply and leaves the rest of the array unread
// (testdata/clients/repro/go-redis-nested-typed-error.go shows it without
// respcheck); the generator finds the desync in RESP2 and shrinks it to a
// two-element array that starts with that error, which EVAL makes a real
// server send.
func TestGoRedisNestedTypedError(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: goDrivers(t, "go-redis"),
		Protos: []int{2}, Seed: 42, Frames: 300, Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	var found *Finding
	for _, f := range rep.Findings {
		t.Logf("%s: %d frames, alone %v, shrunk to %s; notes %.300q; canary %.200q; %d before", f.Key(), f.Count, f.Alone, short(f.Shrunk.Bytes()), f.Notes, f.Canary, len(f.Before))
		if f.Client == "go-redis/resp2" && f.Verdict == clients.Desync {
			found = f
		}
	}
	if found == nil {
		t.Fatal("no desync of go-redis/resp2")
	}
	b := string(found.Shrunk.Bytes())
	if !typedNested.MatchString(b) {
		t.Errorf("shrunk to %q, want *2 and a typed error first", b)
	}
	if _, ok := found.Shrunk.Lua(); !ok || found.Shrunk.Class != Served {
		t.Errorf("shrunk frame %q: class %s, no Lua: want one a server sends", b, found.Shrunk.Class)
	}
}
