package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LinkConfig describes the network a Link simulates between the client and
// the server. The zero value is a plain relay.
type LinkConfig struct {
	// Latency is added to each direction (one way): a chunk read from one
	// side is written to the other Latency after it arrived, so a round
	// trip gains 2×Latency. The seed article's remote table was measured
	// at about 58 ms of round trip: Latency 29ms.
	Latency time.Duration
	// Jitter adds a uniformly random [0, Jitter) to each chunk's latency;
	// chunks are never reordered (a chunk is not delivered before the one
	// read before it).
	Jitter time.Duration
	// Bandwidth, in bytes per second and per direction, limits how fast
	// bytes leave: a chunk of n bytes occupies the direction for
	// n/Bandwidth after the previous chunk has left (a token bucket with
	// no burst), then travels Latency. 0 means unlimited.
	Bandwidth float64
}

// IsZero reports whether c adds nothing (no latency, jitter or limit).
func (c LinkConfig) IsZero() bool { return c == LinkConfig{} }

// String describes c for report headers: "loopback" for the zero value,
// else "+10ms each way, jitter 1ms, 10 MB/s".
func (c LinkConfig) String() string {
	if c.IsZero() {
		return "loopback"
	}
	parts := []string{"+" + c.Latency.String() + " each way"}
	if c.Jitter > 0 {
		parts = append(parts, "jitter "+c.Jitter.String())
	}
	if c.Bandwidth > 0 {
		parts = append(parts, formatBandwidth(c.Bandwidth))
	}
	return strings.Join(parts, ", ")
}

// ParseBandwidth parses a rate such as "10MB/s", "500KB/s" or "1GB/s"
// (decimal units: 1 MB = 1,000,000 bytes; "B/s" alone is bytes per
// second) into bytes per second.
func ParseBandwidth(s string) (float64, error) {
	t := strings.TrimSpace(s)
	num, ok := strings.CutSuffix(t, "B/s")
	if !ok {
		return 0, fmt.Errorf("bad bandwidth %q: want a rate such as 10MB/s", s)
	}
	mult := 1.0
	for _, u := range []struct {
		p string
		m float64
	}{{"K", 1e3}, {"M", 1e6}, {"G", 1e9}} {
		if v, ok := strings.CutSuffix(num, u.p); ok {
			num, mult = v, u.m
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("bad bandwidth %q: want a positive rate such as 10MB/s", s)
	}
	return f * mult, nil
}

// formatBandwidth writes bytes per second as ParseBandwidth reads them.
func formatBandwidth(bps float64) string {
	switch {
	case bps >= 1e9:
		return strconv.FormatFloat(bps/1e9, 'g', 4, 64) + " GB/s"
	case bps >= 1e6:
		return strconv.FormatFloat(bps/1e6, 'g', 4, 64) + " MB/s"
	case bps >= 1e3:
		return strconv.FormatFloat(bps/1e3, 'g', 4, 64) + " KB/s"
	}
	return strconv.FormatFloat(bps, 'g', 4, 64) + " B/s"
}

// Link is a TCP relay on 127.0.0.1 in front of a server that delays and
// paces the bytes of each direction as its LinkConfig says. It forwards
// bytes unchanged and in order; it knows nothing of RESP.
type Link struct {
	cfg      LinkConfig
	upstream string
	ln       net.Listener
	mu       sync.Mutex
	conns    map[net.Conn]bool
	closed   bool
	wg       sync.WaitGroup
}

// NewLink listens on 127.0.0.1 with a free port and relays every accepted
// connection to upstream (host:port, plain TCP) through cfg.
func NewLink(upstream string, cfg LinkConfig) (*Link, error) {
	if cfg.Latency < 0 || cfg.Jitter < 0 || cfg.Bandwidth < 0 {
		return nil, errors.New("bench: negative latency, jitter or bandwidth")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Link{cfg: cfg, upstream: upstream, ln: ln, conns: map[net.Conn]bool{}}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Addr is the link's host:port, where clients connect.
func (l *Link) Addr() string { return l.ln.Addr().String() }

// Close stops listening, closes every relayed connection and waits for the
// relay goroutines.
func (l *Link) Close() error {
	l.mu.Lock()
	l.closed = true
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close()
	l.wg.Wait()
	return err
}

// track remembers c for Close; it reports false (and closes c) once the
// link is closed.
func (l *Link) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.Close()
		return false
	}
	l.conns[c] = true
	return true
}

// forget closes c and drops it from the connections Close closes.
func (l *Link) forget(c net.Conn) {
	c.Close()
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

func (l *Link) accept() {
	defer l.wg.Done()
	for {
		client, err := l.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", l.upstream, 10*time.Second)
		if err != nil {
			client.Close()
			continue
		}
		if !l.track(client) || !l.track(server) {
			client.Close()
			server.Close()
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			var pipes sync.WaitGroup
			pipes.Go(func() { l.pipe(client, server) })
			pipes.Go(func() { l.pipe(server, client) })
			pipes.Wait()
			l.forget(client)
			l.forget(server)
		}()
	}
}

// chunk is one read of a direction and when it is due at the other side;
// a nil data is the end of the direction.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe relays src to dst: a reader stamps each chunk with its delivery
// time, a writer delivers the chunks in order at those times. When src
// ends, dst's write side is closed after the last chunk; on an error both
// connections are closed.
func (l *Link) pipe(src, dst net.Conn) {
	ch := make(chan chunk, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range ch {
			if c.data == nil {
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
				return
			}
			if d := time.Until(c.due); d > 0 {
				time.Sleep(d)
			}
			if _, err := dst.Write(c.data); err != nil {
				src.Close()
				dst.Close()
				for range ch { // drain so the reader never blocks
				}
				return
			}
		}
	}()
	var wireFree, lastDue time.Time
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			now := time.Now()
			leave := now
			if l.cfg.Bandwidth > 0 {
				leave = maxTime(now, wireFree).Add(time.Duration(float64(n) / l.cfg.Bandwidth * float64(time.Second)))
				wireFree = leave
			}
			due := leave.Add(l.cfg.Latency)
			if l.cfg.Jitter > 0 {
				due = due.Add(rand.N(l.cfg.Jitter))
			}
			due = maxTime(due, lastDue)
			lastDue = due
			ch <- chunk{data: append([]byte(nil), buf[:n]...), due: due}
		}
		if err != nil {
			if err == io.EOF {
				ch <- chunk{due: lastDue}
			} else {
				dst.Close()
			}
			close(ch)
			<-done
			return
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
