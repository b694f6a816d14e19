package clients

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

func loadTestdata(t *testing.T, name string) []*cases.File {
	t.Helper()
	f, err := cases.LoadFile(filepath.Join("..", "..", "testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	return []*cases.File{f}
}

// externalDrivers returns the adapter libraries; a missing one fails under
// CI and is skipped loudly otherwise.
func externalDrivers(t *testing.T, want ...string) []Driver {
	t.Helper()
	ds, notes := allDrivers()
	var out []Driver
	for _, w := range want {
		sel, err := Select(ds, w)
		if err != nil {
			msg := "client " + w + " is not installed (run scripts/install-clients.sh): " + strings.Join(notes, "; ")
			if servers.InCI() {
				t.Fatal("CI is set and " + msg)
			}
			t.Log("SKIPPING " + msg)
			continue
		}
		out = append(out, sel...)
	}
	return out
}

// stepView finds the view of the step at line of the case named name for
// client.
func stepView(t *testing.T, rep *Report, client, name string, line int) *StepView {
	t.Helper()
	for _, res := range rep.Results {
		if res.Client != client || res.Case.Name != name {
			continue
		}
		for i := range res.Steps {
			if res.Steps[i].Step.Pos.Line == line {
				return &res.Steps[i]
			}
		}
		t.Fatalf("%s %q: no step at line %d (result %s: %s)", client, name, line, res.Verdict, res.Reason)
	}
	t.Fatalf("no result for %s %q", client, name)
	return nil
}

// TestSeed000 shows that respcheck catches seed 000's redis-py bug by
// itself: redis-py's execute_command turns the old value that SET ... GET
// returns into False, in both redis-py versions, on Redis 7.0.15 (SET k new
// GET) and Redis 8.6.3 (SET k new IFEQ x GET), while go-redis, rueidis and
// the Node clients decode the blob string.
func TestSeed000(t *testing.T) {
	files := loadTestdata(t, "seed000.yaml")
	// The /pipeline and /pubsub configurations skip these cases (no
	// pipeline, transaction or subscribe in them).
	ext := slices.DeleteFunc(externalDrivers(t, "redis-py-4.3.4", "redis-py-6.4.0", "ioredis", "node-redis", "iovalkey", "valkey-glide"), special)
	drivers := append([]Driver{goRedisDriver, rueidisDriver, valkeyGoDriver}, ext...)
	for _, tc := range []struct {
		server, name string
		line         int
	}{
		{"redis-7.0.15", "SET GET over an existing value", 8},
		{"redis-8.6.3", "SET IFEQ GET with a failed condition", 18},
	} {
		t.Run(tc.server, func(t *testing.T) {
			srv := servers.ForTest(t, tc.server)
			rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: drivers, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Clients {
				sv := stepView(t, rep, c.Name, tc.name, tc.line)
				if string(sv.Reply) != "$8\r\noriginal\r\n" {
					t.Errorf("%s received %q, want the old value as a blob string (%s %v)", c.Name, sv.Reply, sv.Verdict, sv.Notes)
				}
				if strings.HasPrefix(c.Name, "redis-py") {
					if sv.Verdict != Mismatch || sv.Native == nil || sv.Native.Kind != "bool" || *sv.Native.Text != "false" {
						t.Errorf("%s: %s %v, want a mismatch for bool False (%v)", c.Name, sv.Verdict, sv.Native, sv.Notes)
					} else {
						t.Logf("%s on %s: %s decoded as %s: %s", c.Name, tc.server, resp.Escape(sv.Reply), sv.Native, sv.Verdict)
					}
					continue
				}
				if sv.Verdict.Finding() {
					t.Errorf("%s: %s (%v) decoded as %v", c.Name, sv.Verdict, sv.Notes, sv.Native)
				}
			}
		})
	}
}

// TestGoClientsFaults runs the fault-class cases through the Go clients
// and checks the harness itself: every client got every reply, nothing
// hung, and every finding is explained.
func TestGoClientsFaults(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	files := loadTestdata(t, "faults.yaml")
	drivers := append(goDrivers(), goRedisTypedDriver)
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: drivers, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep, false)
	for _, res := range rep.Results {
		if res.Verdict == Hang {
			t.Errorf("%s %s: hang: a Go client should not hang on these replies", res.Client, res.Case.FullName())
		}
		for _, sv := range res.Steps {
			if sv.Verdict.Finding() && len(sv.Notes) == 0 {
				t.Errorf("%s %s: a finding without an explanation", res.Client, res.Case.FullName())
			}
		}
	}
	// The attribute is dropped by go-redis in RESP3: erased, not a failure.
	sv := stepView(t, rep, "go-redis/resp3", "attribute before a reply", 66)
	if sv.Verdict != Erased {
		t.Errorf("go-redis/resp3 attribute: %s %v", sv.Verdict, sv.Notes)
	}
	// A canary must not be sent inside MULTI.
	for _, res := range rep.Results {
		for _, sv := range res.Steps {
			if strings.Contains(sv.Canary, "QUEUED") {
				t.Errorf("%s: canary sent inside MULTI: %s", res.Client, sv.Canary)
			}
		}
	}
}

// TestNodeIntegers shows JavaScript numbers losing integers beyond 2^53,
// in every version of ioredis and node-redis, but with ioredis's
// stringNumbers option, which keeps the integer's text (erased).
func TestNodeIntegers(t *testing.T) {
	ext := slices.DeleteFunc(externalDrivers(t, "ioredis", "node-redis"), special)
	if len(ext) == 0 {
		return
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), loadTestdata(t, "faults.yaml"),
		Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ext, Protos: []int{2}, Run: mustRE(t, "integers beyond")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Clients {
		sv := stepView(t, rep, c.Name, "integers beyond 2^53", 55)
		if strings.Contains(c.Name, "[stringNumbers=true]") {
			if sv.Verdict != Erased || sv.Native.Kind != "string" || *sv.Native.Text != "9007199254740993" {
				t.Errorf("%s INCR to 2^53+1: %s %v %v, want the text, erased", c.Name, sv.Verdict, sv.Native, sv.Notes)
			}
			continue
		}
		if sv.Verdict != Mismatch || !strings.Contains(strings.Join(sv.Notes, " "), "precision") {
			t.Errorf("%s INCR to 2^53+1: %s %v %v", c.Name, sv.Verdict, sv.Native, sv.Notes)
		}
	}
}

// TestProxySplit splits every server→client frame into pieces and checks
// that the Go clients still decode every reply and that the recording is
// one frame per reply.
func TestProxySplit(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), loadTestdata(t, "seed000.yaml"), Options{Target: target.Config{Addr: srv.Addr()},
		Drivers: []Driver{goRedisDriver, rueidisDriver, redigoDriver, radixDriver},
		Fault:   Fault{Split: []int{1, 3, 5}, Delay: 5e6}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Verdict.Finding() {
			t.Errorf("%s %s: %s", res.Client, res.Case.Name, res.Verdict)
		}
	}
	sv := stepView(t, rep, "go-redis/resp2", "SET IFEQ GET with a failed condition", 18)
	if string(sv.Reply) != "$8\r\noriginal\r\n" {
		t.Errorf("split reply recorded as %q", sv.Reply)
	}
}

// TestPubSubRunsThrough runs the pub/sub cases (SUBSCRIBE, PSUBSCRIBE,
// SSUBSCRIBE, a transaction beside a subscribed connection) through the Go
// drivers on Redis 8.6.3: the run finishes with a result for every client
// and case, rueidis's refusal of SUBSCRIBE in Arbitrary (a panic in its
// builder) is a skip that names it, and the confirmations pair with their
// commands (every reply recorded for a (un)subscribe step is its own
// confirmation, never a message or another command's reply).
func TestPubSubRunsThrough(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	files := loadTestdata(t, "pubsub.yaml")
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: goDrivers(), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, d := range goDrivers() {
		want += len(d.Protos()) * len(files[0].Cases)
	}
	if len(rep.Results) != want {
		t.Fatalf("%d results, want %d", len(rep.Results), want)
	}
	sawPanicSkip := false
	for _, res := range rep.Results {
		if res.Verdict == Error || strings.HasPrefix(res.Reason, "not run") {
			t.Errorf("%s %q: %s %s", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
		for _, sv := range res.Steps {
			if sv.Step.Action != cases.ActSend {
				continue
			}
			cmd := strings.ToLower(string(sv.Args[0]))
			if strings.HasSuffix(cmd, "subscribe") && sv.Reply != nil {
				if _, v, err := resp.Parse(sv.Reply); err != nil || len(v.Elems) != 3 || strings.ToLower(string(v.Elems[0].Str)) != cmd {
					t.Errorf("%s %s: paired with %q", res.Client, cmd, sv.Reply)
				}
			}
			if strings.HasPrefix(res.Client, "rueidis/") && cmd == "subscribe" {
				sawPanicSkip = sv.Verdict == Skip && len(sv.Notes) > 0 && strings.Contains(sv.Notes[0], "Arbitrary does not support SUBSCRIBE")
				if !sawPanicSkip {
					t.Errorf("rueidis SUBSCRIBE: %s %v", sv.Verdict, sv.Notes)
				}
			}
		}
	}
	if !sawPanicSkip {
		t.Error("no rueidis SUBSCRIBE step seen")
	}
}

// TestMain lets this test binary serve as the Go adapter process (see
// GoAdapters), as respcheck itself does.
func TestMain(m *testing.M) {
	if os.Getenv(GoAdapterEnv) == "1" {
		ServeGoAdapter(os.Stdin, os.Stdout)
		return
	}
	code := m.Run()
	closeShared()
	os.Exit(code)
}
