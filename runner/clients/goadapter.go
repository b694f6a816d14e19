package clients

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// GoAdapterEnv is the environment variable that turns a process into the
// Go adapter: a program (respcheck, or a test binary in its TestMain) that
// finds GoAdapterEnv=1 calls ServeGoAdapter instead of doing its own job.
const GoAdapterEnv = "RESPCHECK_GO_ADAPTER"

// GoAdapters returns one Adapter process per built-in Go library, each
// running the executable exe (respcheck itself) with GoAdapterEnv=1. A
// library that panics in a goroutine of its own (rueidis on a reply out of
// order) then ends its adapter process, which is that client's crash and a
// restart, not the end of respcheck.
func GoAdapters(exe string) []*Adapter {
	var as []*Adapter
	for _, d := range goLibraries() {
		as = append(as, &Adapter{Name: "go " + d.Library(), Cmd: []string{exe},
			Env: []string{GoAdapterEnv + "=1", "RESPCHECK_LIBS=" + d.Library()}, Label: d.Library()})
	}
	return as
}

// ServeGoAdapter serves the adapter protocol (see Adapter) on in and out
// for the Go drivers that $RESPCHECK_LIBS names (all when it is empty),
// until in ends. Calls on one connection run one at a time, in order; a
// panic inside a call is that call's exception, with its stack.
func ServeGoAdapter(in io.Reader, out io.Writer) error {
	g := &goAdapter{out: json.NewEncoder(out), sessions: map[string]*goSession{}}
	only := strings.Split(os.Getenv("RESPCHECK_LIBS"), ",")
	for _, d := range goLibraries() {
		if os.Getenv("RESPCHECK_LIBS") == "" || slices.Contains(only, d.Library()) {
			g.libs = append(g.libs, d)
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var req goRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "go adapter: bad request %q: %v\n", sc.Text(), err)
			continue
		}
		g.handle(req)
	}
	return sc.Err()
}

type goRequest struct {
	ID      int64    `json:"id"`
	Op      string   `json:"op"`
	Session string   `json:"session"`
	Lib     string   `json:"lib"`
	Proto   int      `json:"proto"`
	Addr    string   `json:"addr"`
	Conn    string   `json:"conn"`
	Args    []string `json:"args"`
	// Mode and Cmds are a "batch" request's.
	Mode string     `json:"mode"`
	Cmds [][]string `json:"cmds"`
	// Kind and WaitMS are a "next" request's.
	Kind   string `json:"kind"`
	WaitMS int64  `json:"wait_ms"`
}

type goAdapter struct {
	mu       sync.Mutex
	out      *json.Encoder
	libs     []Driver
	sessions map[string]*goSession
}

type goSession struct {
	sess  Session
	mu    sync.Mutex
	conns map[string]chan func()
}

func (g *goAdapter) send(v map[string]any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.out.Encode(v); err != nil {
		fmt.Fprintf(os.Stderr, "go adapter: %v\n", err)
	}
}

func (g *goAdapter) handle(req goRequest) {
	switch req.Op {
	case "hello":
		var libs []map[string]any
		for _, d := range g.libs {
			tx, noTx := clusterTx(d)
			libs = append(libs, map[string]any{"name": d.Library(), "version": d.Version(), "protos": d.Protos(),
				"api": d.API(), "typed": isTyped(d), "batch": isBatch(d), "pubsub": pubsubWhere(d), "source": sourceOf(d),
				"cluster_tx": tx, "no_tx": noTx})
		}
		g.send(map[string]any{"id": req.ID, "libraries": libs})
	case "open":
		g.open(req)
	case "do", "typed", "batch", "subscribe", "next":
		g.call(req)
	case "close":
		g.mu.Lock()
		s := g.sessions[req.Session]
		delete(g.sessions, req.Session)
		g.mu.Unlock()
		if s != nil {
			s.sess.Close()
		}
		g.send(map[string]any{"id": req.ID, "ok": true})
	default:
		g.send(map[string]any{"id": req.ID, "error": "unknown op " + req.Op})
	}
}

func (g *goAdapter) open(req goRequest) {
	for _, d := range g.libs {
		if d.Library() != req.Lib {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		sess, err := d.Open(ctx, req.Addr, req.Proto)
		cancel()
		if err != nil {
			g.send(map[string]any{"id": req.ID, "error": err.Error()})
			return
		}
		g.mu.Lock()
		g.sessions[req.Session] = &goSession{sess: sess, conns: map[string]chan func(){}}
		g.mu.Unlock()
		g.send(map[string]any{"id": req.ID, "ok": true})
		return
	}
	g.send(map[string]any{"id": req.ID, "error": "library not available: " + req.Lib})
}

// call queues a do or typed request on its connection's worker.
func (g *goAdapter) call(req goRequest) {
	g.mu.Lock()
	s := g.sessions[req.Session]
	g.mu.Unlock()
	if s == nil {
		g.send(map[string]any{"id": req.ID, "error": "no session " + req.Session})
		return
	}
	args, err := decodeArgs(req.Args)
	cmds := make([][][]byte, len(req.Cmds))
	for i := range req.Cmds {
		if err == nil {
			cmds[i], err = decodeArgs(req.Cmds[i])
		}
	}
	if err != nil {
		g.send(map[string]any{"id": req.ID, "error": "bad argument: " + err.Error()})
		return
	}
	s.worker(req.Conn) <- func() {
		resp := g.run(s, req, args, cmds)
		cutResponse(resp)
		g.send(resp)
	}
}

func decodeArgs(enc []string) ([][]byte, error) {
	args := make([][]byte, len(enc))
	for i, a := range enc {
		b, err := base64.StdEncoding.DecodeString(a)
		if err != nil {
			return nil, err
		}
		args[i] = b
	}
	return args, nil
}

// worker returns the queue of a connection's calls, started on first use.
func (s *goSession) worker(name string) chan func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.conns[name]
	if !ok {
		q = make(chan func(), 64)
		s.conns[name] = q
		go func() {
			for f := range q {
				f()
			}
		}()
	}
	return q
}

// run makes one call; a panic is the call's exception.
func (g *goAdapter) run(s *goSession, req goRequest, args [][]byte, cmds [][][]byte) (resp map[string]any) {
	resp = map[string]any{"id": req.ID}
	defer func() {
		if r := recover(); r != nil {
			resp["value"] = errNative("exception", "panic", "panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
		}
	}()
	ctx := context.Background()
	c, err := s.sess.Conn(ctx, req.Conn)
	if err != nil {
		resp["value"] = errNative("exception", fmt.Sprintf("%T", err), "connect", err.Error())
		return resp
	}
	if req.Op == "batch" {
		return batchResponse(resp, c, req.Mode, cmds)
	}
	if req.Op == "subscribe" || req.Op == "next" {
		sc, ok := c.(subscriber)
		switch {
		case !ok:
			resp["error"] = "library has no subscribe API"
		case req.Op == "next":
			resp["value"] = sc.Next(ctx, req.Kind, time.Duration(req.WaitMS)*time.Millisecond)
		default:
			resp["value"] = sc.Subscribe(ctx, args)
		}
		return resp
	}
	if req.Op == "typed" {
		w, ok := c.(wrapper)
		if !ok {
			resp["error"] = "library has no typed mode"
			return resp
		}
		n, call := w.DoTyped(ctx, args)
		resp["wrapper"] = call.Wrapper
		if call.Limit != "" {
			resp["limit"] = call.Limit
		}
		if call.Sent {
			resp["value"] = n
		}
		return resp
	}
	resp["value"] = c.Do(ctx, args)
	return resp
}

// batchResponse answers a "batch" request through c's batcher.
func batchResponse(resp map[string]any, c Conn, mode string, cmds [][][]byte) map[string]any {
	b, ok := c.(batcher)
	switch {
	case !ok:
		resp["error"] = "library has no pipeline or transaction API"
	case mode == modePipeline:
		resp["values"] = b.Pipeline(context.Background(), cmds)
	case mode == modeMulti:
		per, exec := b.Transaction(context.Background(), cmds)
		resp["values"] = per
		if exec != nil {
			resp["exec"] = exec
		}
	default:
		resp["error"] = "unknown batch mode " + mode
	}
	return resp
}
