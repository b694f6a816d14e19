package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestLinkRelaysBytesInOrder sends a 1 MB random value and 1,000
// pipelined ECHOs through a link with latency, jitter and a bandwidth
// limit to Redis 8.6.3 and checks that every byte comes back unchanged
// and every reply in order (never how long it took).
func TestLinkRelaysBytesInOrder(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	l, err := NewLink(srv.Addr(), LinkConfig{Latency: time.Millisecond, Jitter: 2 * time.Millisecond, Bandwidth: 50e6})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := target.Config{Addr: l.Addr(), Timeout: 20 * time.Second}.Dial(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	val := make([]byte, 1<<20)
	rand.Read(val)
	key := []byte("rcbench:{link}:v")
	if v, err := c.DoBytes(resp.AppendCommand(nil, []byte("SET"), key, val)); err != nil || string(v.Str) != "OK" {
		t.Fatalf("SET: %v %s", err, v.Raw)
	}
	v, err := c.DoBytes(resp.AppendCommand(nil, []byte("GET"), key))
	if err != nil || !bytes.Equal(v.Str, val) {
		t.Fatalf("GET through the link: %v, %d bytes, equal %v", err, len(v.Str), bytes.Equal(v.Str, val))
	}
	c.DoBytes(resp.AppendCommand(nil, []byte("DEL"), key))

	// 1,000 ECHOs in one write, read back in order.
	var req []byte
	for i := range 1000 {
		req = resp.AppendCommand(req, []byte("ECHO"), []byte(strconv.Itoa(i)))
	}
	nc, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(nc)
	for i := range 1000 {
		want := fmt.Sprintf("$%d\r\n%d\r\n", len(strconv.Itoa(i)), i)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
			t.Fatalf("reply %d: %q, %v; want %q", i, got, err, want)
		}
	}
}

// TestBenchThroughLink: a bench run through a link reports the link and
// a PING round trip of at least twice the latency (a property of the
// relay's schedule, not a timing assertion on the server: the relay
// never delivers a chunk before its due time).
func TestBenchThroughLink(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), Options{Target: target.Config{Addr: srv.Addr()}, Quick: true,
		Link: LinkConfig{Latency: 2 * time.Millisecond}, Tables: []string{"incr-expire"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Link != "+2ms each way" || rep.RTT.P10 < 4 || rep.Server.Addr != srv.Addr() || len(rep.Tables) != 1 {
		t.Errorf("link %q, RTT %+v, addr %s (want %s), %d tables", rep.Link, rep.RTT, rep.Server.Addr, srv.Addr(), len(rep.Tables))
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"link: +2ms each way; PING round trip", "appendonly=no", "appendfsync=everysec", "io-threads="} {
		if !bytes.Contains(text.Bytes(), []byte(want)) {
			t.Errorf("header lacks %q:\n%s", want, text.String())
		}
	}
}

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]float64{"10MB/s": 10e6, "500KB/s": 500e3, "1.5GB/s": 1.5e9, "100B/s": 100} {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got, _ := ParseBandwidth(formatBandwidth(want)); got != want {
			t.Errorf("formatBandwidth(%v) = %q does not parse back", want, formatBandwidth(want))
		}
	}
	for _, bad := range []string{"10MB", "-1MB/s", "fastMB/s", ""} {
		if _, err := ParseBandwidth(bad); err == nil {
			t.Errorf("ParseBandwidth(%q) accepted", bad)
		}
	}
}

// TestConfigRefused: where CONFIG is renamed away (as on managed or shared
// servers), the header says so and reports INFO's aof_enabled and
// io_threads_active (Redis 8.6.3) instead.
func TestConfigRefused(t *testing.T) {
	srv := servers.ForTestWith(t, "redis-8.6.3", servers.Options{ExtraArgs: []string{"--rename-command", "CONFIG", ""}})
	rep, err := Run(context.Background(), Options{Target: target.Config{Addr: srv.Addr()}, Quick: true,
		Tables: []string{"incr-expire"}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rep.Config, ", ")
	if !strings.HasPrefix(got, "CONFIG GET refused (ERR unknown command 'CONFIG'") || !strings.Contains(got, "INFO aof_enabled=0") || !strings.Contains(got, "INFO io_threads_active=0") {
		t.Errorf("config %q", got)
	}
}

// BenchmarkLinkPing: one PING round trip to Redis 8.6.3 directly and
// through a Link that adds nothing (the relay's own cost: two goroutine
// hand-offs per direction).
func BenchmarkLinkPing(b *testing.B) {
	srv := servers.ForTest(b, "redis-8.6.3")
	l, err := NewLink(srv.Addr(), LinkConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ping := resp.AppendCommand(nil, []byte("PING"))
	for _, tc := range []struct{ name, addr string }{{"direct", srv.Addr()}, {"link", l.Addr()}} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := target.Config{Addr: tc.addr, Timeout: 10 * time.Second}.Dial(context.Background(), 2)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			for b.Loop() {
				if v, err := c.DoBytes(ping); err != nil || string(v.Str) != "PONG" {
					b.Fatalf("PING: %v %q", err, v.Raw)
				}
			}
		})
	}
}
