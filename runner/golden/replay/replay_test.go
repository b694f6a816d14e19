package replay

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/servers"
)

const goldens = "../../../testdata/golden/"

func start(t testing.TB, d *golden.Dir, opt Options) (*Server, string) {
	t.Helper()
	s, err := New(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	// Serve installs the redcon server asynchronously; wait until it answers.
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s, ln.Addr().String()
}

// goValue is what go-redis's Do returns for a reply: its value, or
// isErr with the error text (redis.Nil for nil replies).
func goValue(v resp.Value) (any, string) {
	switch v.Kind {
	case resp.SimpleString, resp.BlobString:
		return string(v.Str), ""
	case resp.VerbatimString:
		return string(v.Str), ""
	case resp.SimpleError, resp.BlobError:
		return nil, string(v.Str)
	case resp.Integer:
		return v.Int, ""
	case resp.Double:
		return v.Float, ""
	case resp.Boolean:
		return v.Bool, ""
	case resp.BigNumber:
		b, _ := v.BigInt()
		return b, ""
	case resp.NilBlobString, resp.NilArray, resp.Null:
		return nil, "redis: nil"
	case resp.Array, resp.Set, resp.Push:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = elem(e)
		}
		return out, ""
	case resp.Map:
		m := map[any]any{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			m[elem(v.Elems[i])] = elem(v.Elems[i+1])
		}
		return m, ""
	}
	return fmt.Sprintf("unhandled kind %v", v.Kind), ""
}

// elem is an element of an aggregate: nils are nil, errors are redis.Error.
func elem(v resp.Value) any {
	x, e := goValue(v)
	switch {
	case e == "redis: nil":
		return nil
	case e != "":
		return proto(e)
	}
	return x
}

type proto string

// same compares a go-redis value with the expected one.
func same(want, got any) bool {
	switch w := want.(type) {
	case proto:
		err, ok := got.(error)
		return ok && err.Error() == string(w)
	case *big.Int:
		g, ok := got.(*big.Int)
		return ok && g.Cmp(w) == 0
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !same(w[i], g[i]) {
				return false
			}
		}
		return true
	case map[any]any:
		g, ok := got.(map[any]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !same(v, g[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

// skipCommand lists commands that change what a go-redis connection is
// (pub/sub, protocol, connection state): not driven through Do.
var skipCommand = map[string]bool{"SUBSCRIBE": true, "PSUBSCRIBE": true, "SSUBSCRIBE": true, "UNSUBSCRIBE": true,
	"PUNSUBSCRIBE": true, "SUNSUBSCRIBE": true, "MONITOR": true, "QUIT": true, "RESET": true, "HELLO": true,
	"CLIENT": true, "AUTH": true, "SELECT": true}

func TestGoRedisDecodesEveryRecordedReply(t *testing.T) {
	for _, build := range servers.Pinned {
		t.Run(build, func(t *testing.T) {
			d, err := golden.Load(goldens + build)
			if err != nil {
				t.Fatal(err)
			}
			s, addr := start(t, d, Options{})
			ctx := context.Background()
			driven, skipped := 0, 0
			for _, f := range d.Sorted() {
				for _, c := range f.Cases {
					if unreplayable(c) {
						continue
					}
					clients := map[string]*redis.Client{}
					// Connections of this case that sent a SUBSCRIBE.
					subscribed := map[string]bool{}
					for _, st := range c.Steps {
						if st.Sent != nil && bytes.Contains(bytes.ToUpper(st.Sent.Data[:min(len(st.Sent.Data), 32)]), []byte("SUBSCRIBE\r\n")) {
							subscribed[c.Name+st.Conn] = true
						}
						if st.Action != "send" || st.Async || st.Sent == nil || st.Reply == nil || len(st.Pushes) > 0 {
							continue
						}
						sent := st.Sent.Data
						if !st.Sent.Full() {
							skipped++
							continue
						}
						sent = bytes.ReplaceAll(sent, []byte(golden.Placeholder), []byte(c.Prefix))
						_, cmd, err := resp.Parse(sent)
						if err != nil {
							t.Fatalf("%s:%d: recorded command: %v", f.Base(), st.Line, err)
						}
						args := make([]any, len(cmd.Elems))
						for i, e := range cmd.Elems {
							args[i] = string(e.Str)
						}
						if skipCommand[strings.ToUpper(args[0].(string))] {
							skipped++
							continue
						}
						// go-redis's Do cannot drive a subscribed connection,
						// so its later replies (RESP2's subscribed PING) are
						// outside what this test can replay.
						if subscribed[c.Name+st.Conn] {
							skipped++
							continue
						}
						var want resp.Value
						if st.Reply.Full() {
							data := bytes.ReplaceAll(st.Reply.Data, []byte(golden.Placeholder), []byte(c.Prefix))
							if _, want, err = resp.Parse(data); err != nil {
								t.Fatalf("%s:%d: recorded reply: %v", f.Base(), st.Line, err)
							}
							if want.Kind == resp.Push || want.Attr != nil {
								skipped++
								continue
							}
						}
						if !st.Reply.Full() {
							skipped++
							continue
						}
						cl := clients[st.Conn]
						if cl == nil {
							cl = redis.NewClient(&redis.Options{Addr: addr, Protocol: c.Proto, PoolSize: 1, MaxRetries: -1,
								DisableIdentity: false, ReadTimeout: 5 * time.Second})
							defer cl.Close()
							clients[st.Conn] = cl
						}
						got, err := cl.Do(ctx, args...).Result()
						driven++
						where := fmt.Sprintf("%s:%d [RESP%d] %q", f.Base(), st.Line, c.Proto, args)
						if !st.Reply.Full() {
							// The large SET before it was not driven (see TestLargeReplyRebuilt).
							continue
						}
						if st.Volatile {
							continue // another recording's bytes may answer it
						}
						wv, werr := goValue(want)
						switch {
						case werr != "":
							if err == nil || err.Error() != werr {
								t.Errorf("%s: got %#v, %v; want error %q", where, got, err, werr)
							}
						case err != nil:
							t.Errorf("%s: got error %v; want %#v (%s)", where, err, wv, resp.Escape(st.Reply.Data))
						case !same(wv, got):
							t.Errorf("%s: got %#v; want %#v (%s)", where, got, wv, resp.Escape(st.Reply.Data))
						}
					}
				}
			}
			for _, fnd := range s.Findings() {
				t.Errorf("finding: %s", fnd)
			}
			t.Logf("%s: %d recorded replies decoded by go-redis, %d steps not driven", build, driven, skipped)
			if driven < 200 {
				t.Errorf("only %d steps driven", driven)
			}
		})
	}
}

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
