package clients

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// goAdapterDrivers are the Go libraries as respcheck clients runs them:
// each in its adapter process (this test binary, see TestMain), its
// natives sent back as JSON.
func goAdapterDrivers(t *testing.T, libs ...string) []Driver {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ds []Driver
	for _, a := range GoAdapters(exe) {
		if !slices.Contains(libs, a.Label) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		d, _, err := a.Drivers(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { CloseDrivers(d) })
		ds = append(ds, d...)
	}
	return ds
}

// nodes counts the values of a frame, attributes included.
func nodes(v *resp.Value) int64 {
	n := int64(1)
	if v.Attr != nil {
		n += nodes(v.Attr)
	}
	for i := range v.Elems {
		n += nodes(&v.Elems[i])
	}
	return n
}

// TestDeepestRepliesThroughGoClients: the deepest replies a pinned build
// sends (testdata/depth/nesting.yaml: up to 7,997 levels) reach every Go
// library through its adapter process, which decodes them, and are judged
// with one visit per node (a contract with conversions judged each array
// twice: 2^7,997 visits).
func TestDeepestRepliesThroughGoClients(t *testing.T) {
	f, err := cases.LoadFile(filepath.Join("..", "..", "testdata", "depth", "nesting.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	drivers := goAdapterDrivers(t, "go-redis", "rueidis", "valkey-go", "redigo", "radix")
	if len(drivers) < 5 {
		t.Fatalf("%d drivers", len(drivers))
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	before := judgeVisits.Load()
	rep, err := Run(ctx, []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: drivers, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	visits := judgeVisits.Load() - before
	var size int64
	deep := 0
	for _, res := range rep.Results {
		if res.Verdict.Finding() || res.Verdict == Skip {
			t.Errorf("%s %s: %s %s", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
		for _, sv := range res.Steps {
			if sv.Verdict.Finding() {
				t.Errorf("%s %s line %d: %s %.300q", res.Client, res.Case.Name, sv.Step.Pos.Line, sv.Verdict, sv.Notes)
			}
			v, err := resp.ParseExactLimits(sv.Reply, resp.AnyDepth(sv.Reply))
			if err != nil {
				t.Fatalf("%s: %v", res.Client, err)
			}
			size += nodes(&v)
			if strings.HasPrefix(string(sv.Reply), "*1\r\n*1\r\n") && sv.Verdict == Match {
				deep++
			}
		}
	}
	// The library clients (5 libraries, 9 configurations with a protocol)
	// all decode the three deep replies.
	if deep < 3*9 {
		t.Errorf("%d deep replies judged a match, want at least %d", deep, 3*9)
	}
	if visits > size {
		t.Errorf("%d judge visits for %d nodes received", visits, size)
	}
	t.Logf("%d results, %d nodes received, %d judge visits", len(rep.Results), size, visits)
}

// TestOverMaxDepthIsNotTheLibrarys: a valid reply deeper than the
// proxy's limit is an error of the step that names the flag, not bytes
// that are not RESP blamed on the server or a crash of the library.
func TestOverMaxDepthIsNotTheLibrarys(t *testing.T) {
	f, err := cases.Load("deep.yaml", []byte(`suite: deep
cases:
  - name: deeper than the limit
    steps:
      - send: [EVAL, "local t={1} for i=1,200 do t={ t } end return t", "0"]
        any: true
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	rep, err := Run(ctx, []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr(), Limits: resp.Limits{MaxDepth: 100}},
		Drivers: []Driver{goRedisDriver}, Protos: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	sv := stepView(t, rep, "go-redis/resp2", "deeper than the limit", 5)
	if sv.Verdict != Error || !strings.Contains(strings.Join(sv.Notes, "\n"), "depth over 100") ||
		!strings.Contains(strings.Join(sv.Notes, "\n"), "--max-depth raises the limit") {
		t.Errorf("%s %q", sv.Verdict, sv.Notes)
	}
	if rep.ServerLost != "" {
		t.Errorf("server lost: %s", rep.ServerLost)
	}
}

// TestDeepNativeJSON: a native nested deeper than encoding/json reads
// crosses the adapter protocol whole, in lists, maps and attributes.
func TestDeepNativeJSON(t *testing.T) {
	leaf := tx("int", "int64", "1")
	build := func() (top, deep Native) {
		deep = nestedNative(leaf, deepestReply, list("list"))
		inner := nestedNative(leaf, deepestReply, list("list"))
		m := Native{Kind: "map", Type: "map", Pairs: [][2]Native{{stringNative("string", "k"), inner}}}
		top = nestedNative(m, 3000, list("list"))
		attr := nestedNative(leaf, 2500, list("list"))
		top.Elems[0].Elems[0].Attr = &attr
		return top, deep
	}
	top, deep := build()
	sentTop, sentDeep := build() // cutResponse changes what it sends
	msg := map[string]any{"id": 7, "value": sentTop, "values": []Native{sentDeep, leaf}}
	cutResponse(msg)
	if len(msg["deep"].([]Native)) == 0 {
		t.Fatal("nothing cut")
	}
	line, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeResponse(line)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*r.Value, top) || len(r.Values) != 2 || !reflect.DeepEqual(r.Values[0], deep) || r.Deep != nil {
		a, _ := json.Marshal(*r.Value)
		b, _ := json.Marshal(top)
		i := resp.FirstDiff(a, b)
		t.Errorf("the natives differ after the round trip, at %d: %.80s vs %.80s", i, a[i:], b[i:])
	}
}
