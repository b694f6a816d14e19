package target_test

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/respcheck/respcheck/runner/target"
)

// TestIdentifyByHello identifies a server without INFO server (miniredis)
// by the server and version fields of HELLO 3.
func TestIdentifyByHello(t *testing.T) {
	m := miniredis.RunT(t)
	s, err := target.Identify(context.Background(), target.Config{Addr: m.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Family != "miniredis" || s.Version == "" || !s.Proto3 || s.Debug {
		t.Errorf("identified as %+v, want family miniredis, a version, RESP3, no DEBUG", s)
	}
}
