package replies

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestLaneSessions: a lane hands out the frames to serve again first, a
// terminal command's frame alone (none to a pipeline), at most its size,
// and stops at the limit.
func TestLaneSessions(t *testing.T) {
	tm := terminalEvery - 1 // the first terminal id
	plain := &lane{next: tm - 2}
	if got := plain.session(40, 0); !slices.Equal(got, []int{tm - 2, tm - 1}) {
		t.Errorf("plain before a terminal id: %v, want the two before it", got)
	}
	if got := plain.session(40, 0); !slices.Equal(got, []int{tm}) {
		t.Errorf("plain at a terminal id: %v, want it alone", got)
	}
	if got := plain.session(3, 0); !slices.Equal(got, []int{tm + 1, tm + 2, tm + 3}) {
		t.Errorf("plain after it: %v", got)
	}
	piped := &lane{pipelined: true, next: tm - 1}
	if got := piped.session(3, 0); !slices.Equal(got, []int{tm - 1, tm + 1, tm + 2}) {
		t.Errorf("pipeline across a terminal id: %v, want it passed over", got)
	}
	again := &lane{next: 100, redo: []int{7, 8, 9}}
	if got := again.session(2, 0); !slices.Equal(got, []int{7, 8}) {
		t.Errorf("frames to serve again: %v, want 7 8 first", got)
	}
	if got := again.session(3, 0); !slices.Equal(got, []int{9, 100, 101}) {
		t.Errorf("the last one to serve again, then new ones: %v", got)
	}
	again.size = 1
	if got := again.session(40, 0); !slices.Equal(got, []int{102}) {
		t.Errorf("a lane halved down to one frame: %v", got)
	}
	halving := &lane{pipelined: true}
	for _, c := range []struct {
		whole bool
		n     int
		want  int
	}{{true, 40, 20}, {true, 20, 10}, {false, 10, 20}, {true, 20, 10}, {true, 10, 5}, {true, 5, 2}, {true, 2, 1}, {false, 1, 2}, {false, 2, 4}, {false, 4, 8}, {false, 8, 16}, {false, 16, 32}, {false, 32, 40}, {false, 40, 40}} {
		if halving.resize(c.whole, c.n, 40); halving.size != c.want {
			t.Errorf("after a pipeline of %d that failed whole %v: size %d, want %d", c.n, c.whole, halving.size, c.want)
		}
	}
	done := &lane{next: 10}
	if got := done.session(40, 12); !slices.Equal(got, []int{10, 11}) {
		t.Errorf("up to the limit: %v", got)
	}
	if got := done.session(40, 12); len(got) != 0 {
		t.Errorf("past the limit: %v, want none", got)
	}
}

// TestFrameByID: a frame drawn by its id is the one the sequence gives
// at that place, in any order and for any protocol: a lane at its own
// pace serves the same frames as every other.
func TestFrameByID(t *testing.T) {
	for _, proto := range []int{2, 3} {
		seq := newGenerator(9, proto)
		var want [][]byte
		for range 300 {
			want = append(want, seq.Next().Bytes())
		}
		g := newGenerator(9, proto)
		for _, id := range []int{299, 0, 150, 63, 64, 1, 298} {
			if got := g.Frame(id).Bytes(); string(got) != string(want[id]) {
				t.Errorf("proto %d: Frame(%d) = %q, the sequence's %q", proto, id, short(got), short(want[id]))
			}
		}
		other := newGenerator(10, proto)
		same := 0
		for id := range 300 {
			if string(other.Frame(id).Bytes()) == string(want[id]) {
				same++
			}
		}
		if same > 150 {
			t.Errorf("proto %d: seed 10 gives %d of seed 9's 300 frames", proto, same)
		}
	}
}

// TestEveryFrameJudgedOnce: go-redis v9.23.0 desyncs on frames of both
// protocols (a typed error inside an array in RESP2, pushes and
// attributes in RESP3) and its pipeline fails as a whole on others (a
// streamed string: every command of the Exec gets the error); the frames
// after such a frame on its connection, and a failed pipeline's, are
// served again on a new one, so that each frame is judged exactly once:
// 300 per configuration, but for the HELLO and (un)subscribe frames a
// pipeline does not send.
func TestEveryFrameJudgedOnce(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const frames = 300
	rep, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: goDrivers(t, "go-redis", "go-redis/pipeline"),
		Seed: 42, Frames: frames, Jobs: 8, NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	piped := 0
	for id := range frames {
		if !terminal(id) {
			piped++
		}
	}
	fatal := map[string]int{}
	for _, f := range rep.Findings {
		if f.Verdict == clients.Desync || f.Verdict == clients.Hang || f.Verdict == clients.Crash {
			fatal[f.Client] += f.Count
		}
	}
	for _, c := range []struct {
		name string
		want int
	}{{"go-redis/resp2", frames}, {"go-redis/resp3", frames}, {"go-redis/pipeline/resp2", piped}, {"go-redis/pipeline/resp3", piped}} {
		if rep.Judged[c.name] != c.want {
			t.Errorf("%s: %d frames judged, want %d (%d served)", c.name, rep.Judged[c.name], c.want, rep.Served[c.name])
		}
		t.Logf("%s: %d judged, %d frames a desync, hang or crash", c.name, rep.Judged[c.name], fatal[c.name])
	}
	if fatal["go-redis/resp3"] == 0 || fatal["go-redis/pipeline/resp3"] == 0 {
		t.Errorf("no desync, hang or crash of go-redis in RESP3 (%v): nothing was served again", fatal)
	}
	// A pipeline that failed as a whole was served again in halves: the
	// frame a crash is found on does it alone (go-redis's Exec gives every
	// command the error; a hang is left out, a loaded machine's timing).
	opts := Options{Target: target.Config{Addr: srv.Addr()}, StepTimeout: time.Second}
	if opts.opened, err = target.Open(ctx, opts.Target); err != nil {
		t.Fatal(err)
	}
	src := newSeeded(42, []int{2, 3})
	whole := 0
	for _, f := range rep.Findings {
		if !strings.Contains(f.Client, "/pipeline/") || f.Verdict != clients.Crash {
			continue
		}
		whole++
		l := lanes(nil, goDrivers(t, "go-redis/pipeline"), []int{f.Proto})[0]
		crep, err := serveSession(ctx, opts, src, l, []int{f.Frame.ID, f.Frame.ID + 1})
		if err != nil {
			t.Fatal(err)
		}
		if !failedWhole(crep) {
			t.Errorf("%s: frame %d (%s) first in a pipeline of two: it did not fail as a whole", f.Key(), f.Frame.ID, short(f.Frame.Bytes()))
		}
	}
	if whole == 0 {
		t.Error("no pipeline of go-redis crashed as a whole")
	}
}

// TestCollect: a class's frame is the lowest id that gave it, whichever
// session ended first; a connection stops being judged at a desync, or
// before a frame its library then refused to send; the frames after are
// left to serve again (stopped), neither served nor judged here.
func TestCollect(t *testing.T) {
	src := newSeeded(3, []int{3})
	step := func(id int, v clients.Verdict, canary string) clients.StepView {
		var args [][]byte
		for _, a := range commandWith(id, fmt.Sprintf("rc:{t}:g%d", id)) {
			args = append(args, []byte(a))
		}
		return clients.StepView{Args: args, Verdict: v, Rule: "r", Canary: canary}
	}
	session := func(steps ...clients.StepView) *clients.Report {
		return &clients.Report{Results: []*clients.Result{{Client: "lib/resp3", Proto: 3, Steps: steps}}}
	}
	rep := &Report{Judged: map[string]int{}, Served: map[string]int{}, Busy: map[string]time.Duration{}}
	byKey := map[string]*Finding{}
	// The later session ends first.
	if stopped := collect(rep, session(step(40, clients.Match, ""), step(41, clients.Mismatch, "ok"), step(42, clients.Desync, ""), step(43, clients.Match, "")), src, byKey); stopped != 42 {
		t.Errorf("stopped at %d, want 42 (the desync)", stopped)
	}
	if stopped := collect(rep, session(step(5, clients.Match, ""), step(6, clients.Mismatch, "ok"), step(7, clients.Skip, ""), step(8, clients.Match, "")), src, byKey); stopped != 6 {
		t.Errorf("stopped at %d, want 6 (the frame before one not sent)", stopped)
	}
	if rep.Judged["lib/resp3"] != 5 || rep.Served["lib/resp3"] != 5 {
		t.Errorf("judged %d, served %d: want 5 each (40-42, 5-6)", rep.Judged["lib/resp3"], rep.Served["lib/resp3"])
	}
	for _, f := range rep.Findings {
		t.Logf("%s frame %d count %d", f.Key(), f.Frame.ID, f.Count)
	}
	var mismatch *Finding
	for _, f := range rep.Findings {
		if f.Verdict == clients.Mismatch {
			mismatch = f
		}
	}
	if mismatch == nil || mismatch.Frame.ID != 6 || mismatch.Count != 2 || len(mismatch.Before) != 1 || mismatch.Before[0].ID != 5 {
		t.Fatalf("the mismatch class: %+v, want frame 6 (the lower id), count 2, frame 5 before it", mismatch)
	}
	if g, _ := src.get(3, 6); string(mismatch.Frame.Bytes()) != string(g.Bytes()) {
		t.Errorf("the class's frame is not frame 6")
	}
}

// TestSessionsLeaveNothingRunning: every session's goroutines end with it
// (each case connection's call worker waited for calls for as long as
// respcheck ran, holding its session's recording: a 10-minute run of
// every configuration grew to 22 GB and was killed).
func TestSessionsLeaveNothingRunning(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	ds := goDrivers(t, "go-redis")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The adapter processes start (and their readers with them) first.
	if _, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Seed: 1, Frames: 40, NoShrink: true}); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	rep, err := Run(ctx, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Seed: 2, Frames: 600, NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+10 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+10 {
		t.Errorf("%d goroutines after %d frames in %d sessions or more, %d before", n, total(rep.Judged), total(rep.Judged)/40, before)
	}
}
