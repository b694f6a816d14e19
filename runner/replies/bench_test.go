package replies

import (
	"context"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// BenchmarkServe measures generated frames judged per second for one
// configuration at a time (frames/s; Jobs 8, both protocols): respcheck's
// own decoder (the harness alone: generator, proxy, judge) and go-redis
// (an adapter process). Compare configurations within one run:
//
//	go test -run '^$' -bench Serve -benchtime 4000x -count 5 ./runner/replies
func BenchmarkServe(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	for _, c := range []struct {
		name string
		ds   []clients.Driver
	}{
		{"own", []clients.Driver{ownDriver{}}},
		{"go-redis", goDrivers(b, "go-redis")},
	} {
		b.Run(c.name, func(b *testing.B) {
			ds := c.ds
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			b.ResetTimer()
			start := time.Now()
			rep, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Seed: 1,
				Frames: max(b.N/2, 1), Jobs: 8, NoShrink: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(total(rep.Judged))/time.Since(start).Seconds(), "frames/s")
		})
	}
}
