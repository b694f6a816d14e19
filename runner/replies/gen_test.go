package replies

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestFramesAreValid: every generated frame is exact RESP of its protocol
// (one reply, after its pushes; no RESP3 type in RESP2 but in HELLO 3's
// reply), the same seed
// gives the same frames, and the generator covers every kind.
func TestFramesAreValid(t *testing.T) {
	for _, proto := range []int{2, 3} {
		g, again := newGenerator(7, proto), newGenerator(7, proto)
		kinds := map[resp.Kind]int{}
		classes := map[Class]int{}
		for range 3000 {
			f := g.Next()
			b := f.Bytes()
			if !bytes.Equal(b, again.Next().Bytes()) {
				t.Fatalf("proto %d frame %d: another generator of the same seed made other bytes", proto, f.ID)
			}
			rest := b
			for range f.Pushes {
				n, v, err := resp.ParseLimits(rest, resp.AnyDepth(rest))
				if err != nil || v.Kind != resp.Push {
					t.Fatalf("frame %d: push %s: %v", f.ID, short(rest), err)
				}
				rest = rest[n:]
			}
			n, v, err := resp.ParseLimits(rest, resp.AnyDepth(rest))
			for range f.More {
				// The further frames of the reply.
				m, _, merr := resp.ParseLimits(rest[n:], resp.AnyDepth(rest[n:]))
				n, err = n+m, cmp.Or(err, merr)
			}
			if err == nil && n != len(rest) {
				err = fmt.Errorf("%d bytes after the reply", len(rest)-n)
			}
			if err != nil {
				t.Fatalf("proto %d frame %d: %v in %s", proto, f.ID, err, short(b))
			}
			walk(v, func(v resp.Value) {
				kinds[v.Kind]++
				if proto == 2 && commandArgs(f.ID)[0] != "HELLO" && !slices.Contains([]resp.Kind{resp.SimpleString, resp.SimpleError, resp.Integer,
					resp.BlobString, resp.NilBlobString, resp.Array, resp.NilArray}, v.Kind) {
					t.Fatalf("RESP2 frame %d holds a %s: %s", f.ID, v.Kind, short(b))
				}
			})
			classes[f.Class]++
		}
		want := []resp.Kind{resp.SimpleString, resp.SimpleError, resp.Integer, resp.BlobString, resp.Array}
		if proto == 2 {
			want = append(want, resp.NilBlobString, resp.NilArray)
		} else {
			want = append(want, resp.Null, resp.Double, resp.Boolean, resp.BlobError, resp.VerbatimString,
				resp.BigNumber, resp.Map, resp.Set, resp.Attribute)
		}
		for _, k := range want {
			if kinds[k] == 0 {
				t.Errorf("proto %d: 3000 frames and no %s", proto, k)
			}
		}
		if proto == 3 && (classes[Served] < 1000 || classes[SpecOnly] < 100) {
			t.Errorf("RESP3 classes: %v, want both", classes)
		}
		t.Logf("RESP%d: %v, %v", proto, kinds, classes)
	}
}

func walk(v resp.Value, f func(resp.Value)) {
	if v.Attr != nil {
		walk(*v.Attr, f)
	}
	f(v)
	for _, e := range v.Elems {
		walk(e, f)
	}
}

// TestLuaReproduces: a served frame's Lua script, run by EVAL on Redis
// 8.6.3 and Valkey 9.1.2, makes the server send the frame (map pairs and
// set members in any order), in each protocol.
func TestLuaReproduces(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			srv := servers.ForTest(t, build)
			for _, proto := range []int{2, 3} {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cn, err := target.Config{Addr: srv.Addr(), Timeout: 5 * time.Second}.Dial(ctx, proto)
				if err != nil {
					t.Fatal(err)
				}
				defer cn.Close()
				g, tried := newGenerator(11, proto), 0
				for tried < 400 {
					f := g.Next()
					script, ok := f.Lua()
					if !ok {
						continue
					}
					tried++
					got, err := cn.Do("EVAL", script, "0")
					if err != nil {
						t.Fatalf("frame %d: %v", f.ID, err)
					}
					want, _ := resp.ParseExactLimits(f.Bytes(), resp.AnyDepth(f.Bytes()))
					if !sameUpToOrder(got, want) {
						t.Errorf("RESP%d frame %d: EVAL %s sent %s, want %s", proto, f.ID, short([]byte(script)), short(got.Raw), short(f.Bytes()))
					}
				}
			}
		})
	}
}

// short is b escaped, cut to 300 bytes.
func short(b []byte) string {
	if len(b) > 300 {
		return resp.Escape(b[:300]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return resp.Escape(b)
}

// TestClassify: shapes no pinned build sends are spec-only — a null map
// key or set member (Lua has no nil table key), DEBUG PROTOCOL attrib's
// attribute before anything but a blob string, a blob error — and the
// shapes servers send are served.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		frame string
		want  Class
	}{
		{"%1\r\n$1\r\nk\r\n_\r\n", Served},
		{"%1\r\n_\r\n:1\r\n", SpecOnly},
		{"~2\r\n:1\r\n_\r\n", SpecOnly},
		{"*2\r\n_\r\n$-1\r\n", Served},
		{"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$1\r\nx\r\n", Served},
		{"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n:1\r\n", SpecOnly},
		{"*1\r\n!1\r\nx\r\n", SpecOnly},
		{",1E10\r\n", SpecOnly},
		{",5e-324\r\n", Served},
	} {
		_, v, err := resp.Parse([]byte(tc.frame))
		if err != nil {
			t.Fatal(err)
		}
		if got := classify(Frame{Proto: 3, Reply: v}); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.frame, got, tc.want)
		}
	}
}
