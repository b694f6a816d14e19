package replies

import (
	"context"
	"slices"
	"sync"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/clients"
)

// lane is one client configuration in one protocol, served frames in
// sessions (a case, one library connection), at its own pace: frames 0,
// 1, 2 ... of its protocol's sequence. Its sessions may overlap (up to
// its driver's processes, clients.SessionsAtOnce, shared with the
// driver's other protocol; unbounded for a command-line client).
type lane struct {
	d         clients.Driver
	proto     int
	pipelined bool
	name      string
	// next is the first frame id not handed out yet.
	next int
	// redo are frames handed out that were not judged: a hang, a desync
	// or a finding the connection did not get over came before them on
	// their connection, or a pipeline of them failed as a whole. They are
	// served again, first, on a new one.
	redo []int
	// size bounds a pipeline lane's sessions while it looks for the frame
	// that made a pipeline fail as a whole (halved each time, doubled
	// back after a pipeline that did not); 0: the batch.
	size int
}

// session hands out the frames of l's next session, at most batch: the
// frames to serve again first, else new ones. A terminal command (HELLO 3,
// SUBSCRIBE...: it changes the connection) is a session of its own; a
// pipeline sends none (terminal ids are passed over). None when l has
// served limit frames (0: no limit) and has none to serve again.
func (l *lane) session(batch, limit int) []int {
	if l.size > 0 {
		batch = min(batch, l.size)
	}
	take := func(id int, ids []int) (ok, stop bool) {
		switch {
		case terminal(id) && l.pipelined:
			return false, false
		case terminal(id) && len(ids) > 0:
			return false, true
		case terminal(id):
			return true, true
		}
		return true, false
	}
	var ids []int
	for len(l.redo) > 0 && len(ids) < batch {
		ok, stop := take(l.redo[0], ids)
		if !ok && stop {
			return ids
		}
		if ok {
			ids = append(ids, l.redo[0])
		}
		l.redo = l.redo[1:]
		if stop {
			return ids
		}
	}
	for len(ids) < batch && (limit <= 0 || l.next < limit) {
		ok, stop := take(l.next, ids)
		if !ok && stop {
			return ids
		}
		if ok {
			ids = append(ids, l.next)
		}
		l.next++
		if stop {
			break
		}
	}
	return ids
}

// resize sets a pipeline lane's next sessions' size after one of n
// frames: halved when it failed as a whole (whole: its frames are to be
// served again, in halves down to the one that does it alone), else
// doubled back towards batch (a pipeline of one frame too). It returns
// whole.
func (l *lane) resize(whole bool, n, batch int) bool {
	if whole {
		l.size = max(1, n/2)
	} else if l.size > 0 {
		l.size = min(2*l.size, batch)
	}
	return whole
}

// lanes are the lanes of drivers (plain generic calls, piped
// pipelines) in protos.
func lanes(plain, piped []clients.Driver, protos []int) []*lane {
	var out []*lane
	for _, part := range []struct {
		ds        []clients.Driver
		pipelined bool
	}{{plain, false}, {piped, true}} {
		for _, d := range part.ds {
			for _, p := range d.Protos() {
				if slices.Contains(protos, p) {
					out = append(out, &lane{d: d, proto: p, pipelined: part.pipelined, name: clients.ClientName(d, p)})
				}
			}
		}
	}
	return out
}

// serveLanes serves frames from src to every lane, opts.Jobs sessions at
// once, until ctx ends, every lane has served opts.Frames frames, or the
// server stops answering. The next session goes to the lane with the
// fewest frames judged among those that can start one (its driver's
// processes: clients.SessionsAtOnce), so that slow configurations (hangs,
// a pipeline that stops at each finding) get their share: no session
// waits for another lane's.
func serveLanes(ctx context.Context, opts Options, src frameSet, ls []*lane, rep *Report, byKey map[string]*Finding) error {
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		running = map[clients.Driver]int{}
		active  = 0
		failed  error
	)
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer stop()
	// pick returns the next session's lane and frames, or nil; mu held.
	pick := func() (*lane, []int) {
		for {
			var best *lane
			for _, l := range ls {
				if n := clients.SessionsAtOnce(l.d); n > 0 && running[l.d] >= n {
					continue
				}
				if len(l.redo) == 0 && opts.Frames > 0 && l.next >= opts.Frames {
					continue
				}
				if best == nil || rep.Judged[l.name] < rep.Judged[best.name] {
					best = l
				}
			}
			if best == nil {
				return nil, nil
			}
			// None when a pipeline's last frames up to the limit are
			// terminal ones: the lane is done, look again.
			if ids := best.session(opts.Batch, opts.Frames); len(ids) > 0 {
				return best, ids
			}
		}
	}
	worker := func() {
		mu.Lock()
		defer mu.Unlock()
		for {
			var l *lane
			var ids []int
			for {
				if ctx.Err() != nil || failed != nil || rep.ServerLost != "" {
					return
				}
				if l, ids = pick(); l != nil {
					break
				}
				if active == 0 {
					return // nothing left to serve
				}
				cond.Wait()
			}
			running[l.d]++
			active++
			mu.Unlock()
			crep, err := serveSession(ctx, opts, src, l, ids)
			mu.Lock()
			running[l.d]--
			active--
			cond.Broadcast()
			if err != nil {
				failed = err
				return
			}
			rep.Server = crep.Server
			rep.Clients = mergeClients(rep.Clients, crep.Clients)
			if crep.ServerLost != "" && rep.ServerLost == "" {
				rep.ServerLost = crep.ServerLost
			}
			if l.pipelined && rep.ServerLost == "" && l.resize(len(ids) > 1 && failedWhole(crep), len(ids), opts.Batch) {
				// Which frame did it is not known: serve them again.
				l.redo = append(l.redo, ids...)
				slices.Sort(l.redo)
				for _, res := range crep.Results {
					rep.Busy[res.Client] += res.Duration
				}
				continue
			}
			if stopped := collect(rep, crep, src, byKey); stopped >= 0 {
				for _, id := range ids {
					if id > stopped {
						l.redo = append(l.redo, id)
					}
				}
				slices.Sort(l.redo)
			}
			if opts.Progress != nil {
				opts.Progress(Progress{Frames: total(rep.Judged), Findings: len(rep.Findings)})
			}
		}
	}
	var wg sync.WaitGroup
	for range max(1, opts.Jobs) {
		wg.Go(worker)
	}
	wg.Wait()
	return failed
}

// serveSession serves frames ids to l's library: one case, one
// connection.
func serveSession(ctx context.Context, opts Options, src frameSet, l *lane, ids []int) (*clients.Report, error) {
	file, err := casesFile(ids, len(ids), l.pipelined)
	if err != nil {
		return nil, err
	}
	return clients.Run(ctx, []*cases.File{file}, clients.Options{Target: opts.Target, Opened: opts.opened, Drivers: []clients.Driver{l.d},
		Protos: []int{l.proto}, StepTimeout: opts.StepTimeout, Jobs: 1, Fault: clients.Fault{Serve: serveFrom(src)}, StopAtFatal: true})
}

// failedWhole reports whether a pipeline's session failed as a whole:
// its first frame's step hung or crashed (the call that sent them all
// gave no values, or raised), which says nothing of which frame did it.
func failedWhole(crep *clients.Report) bool {
	for _, res := range crep.Results {
		if res == nil {
			continue
		}
		for _, fst := range stepFrames(res.Steps) {
			v := fst.sv.Verdict
			return v == clients.Hang || v == clients.Crash
		}
	}
	return false
}
