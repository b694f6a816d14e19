package replay

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
)

// tiny is a golden with one case: SET and GET of a small and a large value.
func tiny(t *testing.T) *golden.Dir {
	t.Helper()
	ph := golden.Placeholder
	big := strings.Repeat("0123456789", 1000)
	blob := func(s string) *golden.Blob { b := golden.NewBlob([]byte(s)); return &b }
	cmd := func(args ...string) *golden.Blob { return blob(string(resp.AppendCommandString(nil, args...))) }
	steps := []*golden.Step{
		{Index: 0, Action: "send", Conn: "default", Sent: cmd("SET", ph+"key", "original"), Reply: blob("+OK\r\n")},
		{Index: 1, Action: "send", Conn: "default", Sent: cmd("GET", ph+"key"), Reply: blob("$8\r\noriginal\r\n")},
		{Index: 2, Action: "send", Conn: "default", Sent: cmd("SET", ph+"big", big), Reply: blob("+OK\r\n")},
		{Index: 3, Action: "send", Conn: "default", Sent: cmd("GET", ph+"big"), Reply: blob("$10000\r\n" + big + "\r\n")},
	}
	if steps[3].Reply.Full() || steps[2].Sent.Full() {
		t.Fatal("the large blobs are stored whole")
	}
	return &golden.Dir{Path: "tiny", Server: golden.Server{Family: "redis", Version: "7.0.15",
		Hello2: []byte("*2\r\n$5\r\nproto\r\n:2\r\n"), Hello3: []byte("%1\r\n$5\r\nproto\r\n:3\r\n")},
		Files: map[string]*golden.File{"tiny": {Path: "suite/tiny.yaml", Cases: []*golden.Case{
			{Name: "c", Proto: 2, Status: "pass", Prefix: "rc:{01234567}:", Steps: steps},
			{Name: "c", Proto: 3, Status: "pass", Prefix: "rc:{89abcdef}:", Steps: steps}}}}}
}

// reads sends cmd on a raw connection and returns the sizes of the reads
// that brought in want bytes, each read as small as what had arrived.
func reads(t *testing.T, addr string, cmd []byte, want int) ([]int, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(cmd)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var sizes []int
	var got []byte
	buf := make([]byte, 1<<16)
	for len(got) < want {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("read after %q: %v", got, err)
		}
		sizes = append(sizes, n)
		got = append(got, buf[:n]...)
	}
	return sizes, got
}

func TestSplitReachesTheSocketAsSeparateWrites(t *testing.T) {
	_, addr := start(t, tiny(t), Options{Split: []int{1, 5}, SplitDelay: 20 * time.Millisecond})
	get := resp.AppendCommandString(nil, "GET", "rc:{01234567}:key")
	sizes, got := reads(t, addr, get, 14)
	if string(got) != "$8\r\noriginal\r\n" || len(sizes) != 3 || sizes[0] != 1 || sizes[1] != 4 || sizes[2] != 9 {
		t.Errorf("reads %v of %q; want 1, 4 and 9 bytes of \"$8\\r\\noriginal\\r\\n\"", sizes, got)
	}
	// And a client library still decodes it.
	goRedisGet(t, addr, 2, "rc:{01234567}:key", "split replies")
}

// goRedisGet wants go-redis, speaking proto, to decode "original" as the
// reply to GET key over replies served with the fault how.
func goRedisGet(t *testing.T, addr string, proto int, key, how string) {
	t.Helper()
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto})
	defer cl.Close()
	if v, err := cl.Do(context.Background(), "GET", key).Text(); err != nil || v != "original" {
		t.Errorf("go-redis GET over %s = %q, %v", how, v, err)
	}
}

func TestTrickleWritesOneByteAtATime(t *testing.T) {
	_, addr := start(t, tiny(t), Options{Trickle: 3 * time.Millisecond})
	sizes, got := reads(t, addr, resp.AppendCommandString(nil, "GET", "rc:{01234567}:key"), 14)
	if string(got) != "$8\r\noriginal\r\n" || len(sizes) < 10 {
		t.Errorf("reads %v of %q; want about one byte per read", sizes, got)
	}
	goRedisGet(t, addr, 3, "rc:{89abcdef}:key", "trickled replies (after a trickled HELLO 3)")
}

func TestCloseAfterGivesTheClientAnErrorNotAHang(t *testing.T) {
	_, addr := start(t, tiny(t), Options{CloseAfter: 6})
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, ReadTimeout: 10 * time.Second})
	defer cl.Close()
	start := time.Now()
	_, err := cl.Do(context.Background(), "GET", "rc:{01234567}:key").Text()
	if err == nil || err == redis.Nil {
		t.Fatalf("GET cut after 6 bytes: err = %v, want an error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the client took %v to fail: a hang, not a closed connection", d)
	}
}

func TestLargeReplyRebuiltAndPrefixWrittenBack(t *testing.T) {
	_, addr := start(t, tiny(t), Options{})
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer cl.Close()
	ctx := context.Background()
	big := strings.Repeat("0123456789", 1000)
	// Another run id's prefix: the reply carries it back.
	if err := cl.Do(ctx, "SET", "rc:{feedface}:big", big).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := cl.Do(ctx, "GET", "rc:{feedface}:big").Text(); err != nil || v != big {
		t.Errorf("GET of the large value: %d bytes, %v", len(v), err)
	}
}

func TestUnrecordedAndRewrittenCommandsAreFindings(t *testing.T) {
	s, addr := start(t, tiny(t), Options{})
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer cl.Close()
	ctx := context.Background()
	// A client that lower-cases the command name rewrites it (go-redis's
	// typed methods send "get").
	err := cl.Do(ctx, "get", "rc:{01234567}:key").Err()
	if err == nil || !strings.Contains(err.Error(), "respcheck serve: no recording of") {
		t.Errorf("rewritten command: err = %v", err)
	}
	if err := cl.Do(ctx, "DBSIZE").Err(); err == nil {
		t.Error("unrecorded DBSIZE: no error")
	}
	f := s.Findings()
	if len(f) != 2 || !strings.Contains(f[0], "a client rewrite? recorded at tiny.golden") || !strings.Contains(f[1], "DBSIZE") {
		t.Errorf("findings = %q", f)
	}
}
