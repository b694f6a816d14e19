package clients

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/runner/servers"
)

// Adapter is an external process that drives client libraries of another
// language (docs/adapters.md is this protocol for adapter authors; respcheck
// clients --adapter CMD plugs one in, see AdapterSource). It speaks JSON lines: one request per line on its stdin, one
// response per line on its stdout, in any order, matched by "id"; its
// stderr is for logs. Requests:
//
//	{"id":1,"op":"hello"}
//	  → {"id":1,"libraries":[{"name":"ioredis","version":"6.0.0","protos":[2,3],"source":"npm ioredis 6.0.0"},
//	                         {"name":"x","error":"cannot load: ..."}]}
//	{"id":2,"op":"open","session":"s1","lib":"ioredis","proto":3,"addr":"127.0.0.1:1234"}
//	  → {"id":2,"ok":true}          or {"id":2,"error":"..."}
//	{"id":3,"op":"do","session":"s1","conn":"default","args":["U0VU",...]}   (args base64)
//	  → {"id":3,"value":{"kind":"string","type":"str","text":"OK"}}   (a Native)
//	{"id":4,"op":"close","session":"s1"}
//	  → {"id":4,"ok":true}
//
// docs/adapters.md has the rest: the hello fields, and the ops a library
// asks for in its hello entry ("typed", "batch", "subscribe" and "next",
// and "settle" for what a library throws outside a call), with their
// requests and answers; adapterLibrary and adapterResp are their JSON.
//
// A "do" must report what the library's generic command API returned or
// raised, without normalising it (see Native). Calls of one connection are
// made one at a time; calls of different connections may overlap.
// respcheck enforces the deadline of every call itself (verdict hang).
type Adapter struct {
	// Name names the adapter in messages ("node", "redis-py-6.4.0").
	Name string
	// Cmd is the command line; Env is added to the environment.
	Cmd []string
	Env []string
	// Suffix is appended to each library's name ("-6.4.0"), to tell
	// several installs of one library apart.
	Suffix string
	// Label is the one configuration the adapter serves, when it is known
	// before the process starts ("ioredis-6.0.0[replyMapping=resp3]",
	// "go-redis/pipeline"); else Family is the library its
	// configurations are of, as a client name starts ("redis-py",
	// "redis-rb": see family). AvailableFor starts an adapter with
	// neither always.
	Label, Family string

	mu      sync.Mutex
	proc    *exec.Cmd
	stdin   io.WriteCloser
	waiters map[int64]chan adapterResp
	nextID  atomic.Int64
	nextSes atomic.Int64
	dead    error
	served  bool
	stderr  *servers.Tail
	// sessionMark is the stderr mark when the current session opened.
	sessionMark atomic.Int64
	// pool holds the processes of this configuration that no session
	// uses (see acquire): one session at a time uses a process, so what a
	// library does outside a call (an exception from its event handler, a
	// hang that gets the process killed) lands on that session alone.
	poolMu sync.Mutex
	pool   chan *Adapter
	clones []*Adapter
	// softAbandons counts the hung sessions the current process
	// outlived (see adapterSession.Abandon).
	softAbandons atomic.Int32
	// booted is the process whose hello boot saw answered.
	bootMu sync.Mutex
	booted *exec.Cmd
	// merged marks an adapter oneProcessEach made: one process for
	// several configurations, for their hello only.
	merged bool
}

// poolSize is how many processes of one adapter configuration run
// sessions at once: a configuration whose sessions hang (2 s each, then a
// restart) would otherwise be the whole run's tail.
const poolSize = 2

// acquire returns a process of a's configuration that no session uses:
// a itself, or a copy of it started on first use (at most poolSize in
// all), waiting for one to be released when all are in use.
func (a *Adapter) acquire(ctx context.Context) (*Adapter, error) {
	a.poolMu.Lock()
	if a.pool == nil {
		a.pool = make(chan *Adapter, poolSize)
		a.pool <- a
	}
	select {
	case p := <-a.pool:
		a.poolMu.Unlock()
		return p, nil
	default:
	}
	if 1+len(a.clones) < poolSize {
		c := &Adapter{Name: a.Name, Cmd: a.Cmd, Env: a.Env, Suffix: a.Suffix}
		a.clones = append(a.clones, c)
		a.poolMu.Unlock()
		return c, nil
	}
	pool := a.pool
	a.poolMu.Unlock()
	select {
	case p := <-pool:
		return p, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// release gives back a process that acquire returned.
func (a *Adapter) release(p *Adapter) { a.pool <- p }

type adapterResp struct {
	ID        int64            `json:"id"`
	OK        bool             `json:"ok"`
	Error     string           `json:"error"`
	Value     *Native          `json:"value"`
	Wrapper   string           `json:"wrapper"`
	Limit     string           `json:"limit"`
	Libraries []adapterLibrary `json:"libraries"`
	// Values and Exec answer a "batch".
	Values []Native `json:"values"`
	Exec   *Native  `json:"exec"`
	// Thrown answers a "settle": what the library threw outside any call.
	Thrown []string `json:"thrown"`
	// Deep holds the subtrees cut from deeply nested natives (cutDeep).
	Deep []Native `json:"deep"`
}

type adapterLibrary struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Protos  []int  `json:"protos"`
	Error   string `json:"error"`
	Typed   bool   `json:"typed"`
	Batch   bool   `json:"batch"`
	// ClusterTx marks a cluster configuration that runs MULTI … EXEC
	// blocks through its cluster client's transaction API ("batch" mode
	// "multi"); NoTx, if not, says why (see clusterTx).
	ClusterTx bool   `json:"cluster_tx"`
	NoTx      string `json:"no_tx"`
	// Pubsub is where a "/pubsub" configuration's subscribe API runs
	// ("same", "own", "callback"), "" for other configurations.
	Pubsub string `json:"pubsub"`
	Note   string `json:"note"`
	API    string `json:"api"`
	// Source is where the library comes from ("npm ioredis 6.0.0",
	// "Debian package python3-redis 4.3.4-3 (...)", "Go module ..."),
	// for the client list.
	Source string `json:"source"`
}

// start launches the process (once).
func (a *Adapter) start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.proc != nil || a.dead != nil {
		return a.dead
	}
	cmd := exec.Command(a.Cmd[0], a.Cmd[1:]...)
	cmd.Env = append(os.Environ(), a.Env...)
	cmd.SysProcAttr = ownGroup()
	a.stderr = &servers.Tail{}
	cmd.Stderr = a.stderr
	if os.Getenv("RESPCHECK_ADAPTER_LOG") != "" {
		cmd.Stderr = io.MultiWriter(a.stderr, os.Stderr)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		a.dead = err
		return err
	}
	a.proc, a.stdin, a.waiters = cmd, in, map[int64]chan adapterResp{}
	a.softAbandons.Store(0)
	go a.read(out)
	return nil
}

func (a *Adapter) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		r, err := decodeResponse(sc.Bytes())
		if err != nil {
			// stdout must hold only responses: a stray line is an
			// adapter bug, reported on the next call's failure.
			fmt.Fprintf(a.stderr, "respcheck: stray adapter stdout line: %q\n", sc.Text())
			continue
		}
		a.mu.Lock()
		ch := a.waiters[r.ID]
		delete(a.waiters, r.ID)
		a.served = true
		a.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	a.mu.Lock()
	err := fmt.Errorf("adapter %s exited: %s", a.Name, exitText(a.stderr.Since(a.sessionMark.Load())))
	for id, ch := range a.waiters {
		ch <- adapterResp{ID: id, Error: err.Error()}
		delete(a.waiters, id)
	}
	p := a.proc
	// A process that served requests may be restarted (after a hang);
	// one that never answered hello is dead for good.
	if a.served {
		a.proc = nil
	} else {
		a.dead = err
	}
	a.mu.Unlock()
	p.Wait()
}

// decodeResponse decodes one line of an adapter's stdout: a response.
func decodeResponse(line []byte) (adapterResp, error) {
	var r adapterResp
	err := json.Unmarshal(line, &r)
	resolveResponse(&r)
	return r, err
}

// exitText is what a dead adapter process said since the current session
// began: the lines that name the error (a Node "TypeError: ...", a Go
// "panic: ...", a Python "...Error: ...") and the last lines.
func exitText(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if errorLine.MatchString(t) && len(out) < 3 {
			out = append(out, t)
		}
	}
	tail := lastLines(s, 3)
	if len(out) == 0 {
		return tail
	}
	return strings.Join(out, " | ") + " | … | " + tail
}

var errorLine = regexp.MustCompile(`^(panic: |fatal error: |Uncaught |[A-Za-z.]*(Error|Exception)\b[:(])`)

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// call sends a request and waits for its response or ctx.
func (a *Adapter) call(ctx context.Context, req map[string]any) (adapterResp, error) {
	if err := a.start(); err != nil {
		return adapterResp{}, err
	}
	id := a.nextID.Add(1)
	req["id"] = id
	line, err := json.Marshal(req)
	if err != nil {
		return adapterResp{}, err
	}
	ch := make(chan adapterResp, 1)
	a.mu.Lock()
	if a.dead != nil {
		a.mu.Unlock()
		return adapterResp{}, a.dead
	}
	a.waiters[id] = ch
	_, err = a.stdin.Write(append(line, '\n'))
	a.mu.Unlock()
	if err != nil {
		return adapterResp{}, fmt.Errorf("adapter %s: %w", a.Name, err)
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		a.mu.Lock()
		delete(a.waiters, id)
		a.mu.Unlock()
		return adapterResp{}, ctx.Err()
	}
}

// Close ends the adapter process.
func (a *Adapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.proc == nil {
		return nil
	}
	a.stdin.Close()
	p := a.proc.Process
	go func() {
		time.Sleep(2 * time.Second)
		p.Kill()
	}()
	return nil
}

// bootError is a Driver's Open error when the library's adapter process
// did not start (or did not answer its hello within bootTimeout): the
// process starts on its configuration's first session, so this is no
// verdict on the library's decoding (Run makes it an Error).
type bootError struct{ Err error }

func (e *bootError) Error() string { return "the adapter process did not start: " + e.Err.Error() }
func (e *bootError) Unwrap() error { return e.Err }

// bootTimeout bounds a process's start, up to its hello answered: a Node
// process took over 2 s (a step's deadline) on a loaded machine.
const bootTimeout = 20 * time.Second

// boot starts the process if it is not running and waits for its hello
// (at most bootTimeout), so that a session's first call, bound by the step
// deadline, never waits for the runtime to start.
func (a *Adapter) boot() error {
	a.bootMu.Lock()
	defer a.bootMu.Unlock()
	if p := a.current(); p != nil && p == a.booted {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	r, err := a.call(ctx, map[string]any{"op": "hello"})
	if err == nil && r.Error != "" {
		err = errors.New(r.Error)
	}
	if err != nil {
		return fmt.Errorf("adapter %s: hello: %w", a.Name, err)
	}
	a.mu.Lock()
	a.booted = a.proc
	a.mu.Unlock()
	return nil
}

// current is the running process, or nil.
func (a *Adapter) current() *exec.Cmd {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.proc
}

// kill ends the process at once; the next call starts a new one.
func (a *Adapter) kill() {
	a.mu.Lock()
	p := a.proc
	a.mu.Unlock()
	if p == nil {
		return
	}
	p.Process.Kill()
	// read() sees EOF, fails the waiters and clears proc.
	for i := 0; i < 200; i++ {
		a.mu.Lock()
		gone := a.proc != p
		a.mu.Unlock()
		if gone {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Drivers asks the adapter which libraries it can drive (hello); notes
// explain libraries that cannot load.
func (a *Adapter) Drivers(ctx context.Context) ([]Driver, []string, error) {
	r, err := a.call(ctx, map[string]any{"op": "hello"})
	if errors.Is(err, context.DeadlineExceeded) {
		// Say what the process said instead: a stray stdout line (not a
		// JSON response) or a message on stderr.
		if said := exitText(a.stderr.Since(0)); said != "" {
			err = fmt.Errorf("no answer to hello (docs/adapters.md) in time; it said: %s", said)
		} else {
			err = fmt.Errorf("no answer to hello (docs/adapters.md) in time, and nothing on stderr")
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if r.Error != "" {
		return nil, nil, errors.New(r.Error)
	}
	a.mu.Lock()
	a.booted = a.proc
	a.mu.Unlock()
	var ds []Driver
	var notes []string
	for _, l := range r.Libraries {
		if l.Error != "" {
			// "label: why (adapter NAME)": a listing reads the label
			// up to the colon (Configurations).
			notes = append(notes, fmt.Sprintf("%s%s: %s (adapter %s)", l.Name, a.Suffix, l.Error, a.Name))
			continue
		}
		if l.Note != "" {
			notes = append(notes, l.Note)
		}
		ds = append(ds, &adapterDriver{a: a, lib: l})
	}
	return ds, notes, nil
}

type adapterDriver struct {
	a   *Adapter
	lib adapterLibrary
}

func (d *adapterDriver) Library() string { return d.lib.Name + d.a.Suffix }
func (d *adapterDriver) Version() string { return d.lib.Version }
func (d *adapterDriver) Protos() []int   { return d.lib.Protos }
func (d *adapterDriver) API() string     { return d.lib.API }

// Source is the package the adapter says the library comes from.
func (d *adapterDriver) Source() string { return d.lib.Source }

// exclusive returns d on a process of its adapter that no other session
// uses (see Adapter.acquire) and the function that releases it.
func (d *adapterDriver) exclusive(ctx context.Context) (Driver, func(), error) {
	p, err := d.a.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	return &adapterDriver{a: p, lib: d.lib}, func() { d.a.release(p) }, nil
}

// pool is the adapter whose processes d's sessions share.
func (d *adapterDriver) pool() any { return d.a }

// isTyped marks libraries in typed-wrapper mode (their connections use
// DoTyped).
func (d *adapterDriver) isTyped() bool { return d.lib.Typed }

// isBatch marks "/pipeline" configurations (their connections are
// Batchers).
func (d *adapterDriver) isBatch() bool { return d.lib.Batch }

// clusterTx reports whether a cluster configuration runs transactions
// through its cluster client's transaction API, or why not.
func (d *adapterDriver) clusterTx() (bool, string) { return d.lib.ClusterTx, d.lib.NoTx }

// pubsubWhere is where a "/pubsub" configuration's subscribe API runs.
func (d *adapterDriver) pubsubWhere() string { return d.lib.Pubsub }

func (d *adapterDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	if err := d.a.boot(); err != nil {
		return nil, &bootError{Err: err}
	}
	id := "s" + strconv.FormatInt(d.a.nextSes.Add(1), 10)
	d.a.mu.Lock()
	if d.a.stderr != nil {
		d.a.sessionMark.Store(d.a.stderr.Mark())
	}
	d.a.mu.Unlock()
	r, err := d.a.call(ctx, map[string]any{"op": "open", "session": id, "lib": d.lib.Name, "proto": proto, "addr": addr})
	if err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return &adapterSession{d: d, id: id, proc: d.a.current()}, nil
}

type adapterSession struct {
	d  *adapterDriver
	id string
	// proc is the process the session was opened in.
	proc *exec.Cmd
	// closed is set when Abandon closed the session; abandoned when
	// Abandon ran (it may be called again after a server check).
	closed, abandoned bool
}

// Abandon ends the session after a hang (its proxied connections are
// already closed, so a library waiting on one sees it end). The process
// is kept when it answers the session's "close" within abandonGrace:
// calls of one session never queue behind another's, and what the
// abandoned library throws later is its session's, which is gone (see the
// adapters' close). Otherwise, or after maxSoftAbandons in one process
// (each may leave a stuck thread or timer behind), the process is killed,
// so one stuck library call cannot stall later cases, and the next one
// started at once: it boots while this session ends, not in the next
// one's first call. Keeping it saved the restarts that were most of the
// Node libraries' time (a Node process takes 0.3-0.5 s of CPU to start).
func (s *adapterSession) Abandon() {
	if s.abandoned {
		return // once: a second kill would take the next session's process
	}
	s.abandoned = true
	a := s.d.a
	if a.current() == s.proc && a.softAbandons.Add(1) <= maxSoftAbandons {
		ctx, cancel := context.WithTimeout(context.Background(), abandonGrace)
		r, err := a.call(ctx, map[string]any{"op": "close", "session": s.id})
		cancel()
		if err == nil && r.Error == "" && a.current() == s.proc {
			s.closed = true
			return
		}
	}
	a.kill()
	go a.boot()
}

// abandonGrace bounds the wait for a hung session's "close": a process
// that does not answer it in time is killed.
const abandonGrace = time.Second

// maxSoftAbandons is how many hung sessions one adapter process may
// outlive before it is restarted anyway.
const maxSoftAbandons = 16

func (s *adapterSession) Conn(ctx context.Context, name string) (Conn, error) {
	return &adapterConn{s: s, name: name}, nil
}

func (s *adapterSession) Close() error {
	if s.closed || s.d.a.current() != s.proc {
		return nil // the process that held the session is gone, and it with it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := s.d.a.call(ctx, map[string]any{"op": "close", "session": s.id})
	return err
}

// Settle implements settler with the "settle" request.
func (s *adapterSession) Settle(ctx context.Context, wait time.Duration) ([]string, error) {
	if s.d.a.current() != s.proc {
		return nil, nil // the process is gone, and what it threw with it
	}
	r, err := s.d.a.call(ctx, map[string]any{"op": "settle", "session": s.id, "wait_ms": wait.Milliseconds()})
	if err != nil || r.Error != "" {
		return nil, err
	}
	return r.Thrown, nil
}

type adapterConn struct {
	s    *adapterSession
	name string
}

func (c *adapterConn) Do(ctx context.Context, args [][]byte) Native {
	r, err := c.call(ctx, "do", args)
	return adapterValue(r, err)
}

// DoTyped runs args through the library's typed wrapper ("typed" request).
// An answer without a value (nor an error) sent nothing: "wrapper" empty
// when the adapter has none for args, else "limit" says why the wrapper
// cannot express them.
func (c *adapterConn) DoTyped(ctx context.Context, args [][]byte) (Native, typedCall) {
	r, err := c.call(ctx, "typed", args)
	call := typedCall{Wrapper: r.Wrapper, Limit: r.Limit}
	if err == nil && r.Error == "" && r.Value == nil {
		return Native{}, call
	}
	call.Sent = true
	return adapterValue(r, err), call
}

// Subscribe sends args through the library's subscribe API ("subscribe"
// request).
func (c *adapterConn) Subscribe(ctx context.Context, args [][]byte) Native {
	r, err := c.call(ctx, "subscribe", args)
	return adapterValue(r, err)
}

// Next asks for the next item the library delivered ("next" request).
func (c *adapterConn) Next(ctx context.Context, kind string, wait time.Duration) Native {
	r, err := c.s.d.a.call(ctx, map[string]any{"op": "next", "session": c.s.id, "conn": c.name, "kind": kind,
		"wait_ms": wait.Milliseconds()})
	return adapterValue(r, err)
}

func (c *adapterConn) call(ctx context.Context, op string, args [][]byte) (adapterResp, error) {
	return c.s.d.a.call(ctx, map[string]any{"op": op, "session": c.s.id, "conn": c.name, "args": encodeArgs(args)})
}

func encodeArgs(args [][]byte) []string {
	enc := make([]string, len(args))
	for i, a := range args {
		enc[i] = base64.StdEncoding.EncodeToString(a)
	}
	return enc
}

// Pipeline runs cmds through the library's pipeline API ("batch" request,
// mode "pipeline").
func (c *adapterConn) Pipeline(ctx context.Context, cmds [][][]byte) []Native {
	vals, _ := c.batch(ctx, modePipeline, cmds)
	return vals
}

// Transaction runs cmds through the library's transaction API ("batch"
// request, mode "multi").
func (c *adapterConn) Transaction(ctx context.Context, cmds [][][]byte) ([]Native, *Native) {
	return c.batch(ctx, modeMulti, cmds)
}

func (c *adapterConn) batch(ctx context.Context, mode string, cmds [][][]byte) ([]Native, *Native) {
	enc := make([][]string, len(cmds))
	for i, a := range cmds {
		enc[i] = encodeArgs(a)
	}
	r, err := c.s.d.a.call(ctx, map[string]any{"op": "batch", "session": c.s.id, "conn": c.name, "mode": mode, "cmds": enc})
	if err != nil || r.Error != "" || r.Values == nil {
		// One failure for the whole call (a panic's value stands for
		// every command).
		n := adapterValue(r, err)
		vals := make([]Native, len(cmds))
		for i := range vals {
			vals[i] = n
		}
		return vals, nil
	}
	return r.Values, r.Exec
}

func adapterValue(r adapterResp, err error) Native {
	switch {
	case err != nil:
		return errNative("exception", "adapter", "adapter", err.Error())
	case r.Error != "":
		return errNative("exception", "adapter", "adapter", r.Error)
	case r.Value == nil:
		return errNative("exception", "adapter", "adapter", "no value in the adapter's response")
	}
	return *r.Value
}

// adaptersDir finds the adapters directory: dir if given, else
// $RESPCHECK_ADAPTERS, else the adapters of the respcheck checkout that
// holds the working directory (./adapters or above it, for go test) once
// scripts/install-clients.sh installed its Node modules, else the copy that
// script keeps in the cache (clientsCache()/adapters, so that a binary run
// from any directory finds them), else the checkout's without its modules,
// else ./adapters.
func adaptersDir(dir string) string {
	if dir != "" {
		return dir
	}
	if d := os.Getenv("RESPCHECK_ADAPTERS"); d != "" {
		return d
	}
	has := func(d string, parts ...string) bool {
		_, err := os.Stat(filepath.Join(append([]string{d}, parts...)...))
		return err == nil
	}
	checkout := checkoutAdapters()
	cached := filepath.Join(clientsCache(), "adapters")
	switch {
	case checkout != "" && has(checkout, "node", "node_modules"):
		return checkout
	case has(cached, "node", "adapter.js"):
		return cached
	case checkout != "":
		return checkout
	}
	return "adapters"
}

// clientsCache is the cache of scripts/install-clients.sh.
func clientsCache() string {
	if c := os.Getenv("RESPCHECK_CACHE"); c != "" {
		return filepath.Join(c, "clients")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "respcheck", "clients")
}

// checkoutAdapters is the adapters directory of the respcheck checkout
// that holds the working directory (./adapters or above it), or "".
func checkoutAdapters() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "adapters", "node", "adapter.js")); err == nil {
			return filepath.Join(d, "adapters")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// staleAdapters says, when dir is the cache's copy of the adapters and the
// working directory is in a checkout whose adapters differ from it (a
// checkout updated since scripts/install-clients.sh copied them), which
// files differ: the libraries then run another adapter's code than the
// checkout's. "" otherwise.
func staleAdapters(dir string) string {
	checkout := checkoutAdapters()
	if checkout == "" || filepath.Clean(dir) != filepath.Join(clientsCache(), "adapters") {
		return ""
	}
	var differ []string
	filepath.WalkDir(checkout, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(checkout, p)
		a, errA := os.ReadFile(p)
		b, errB := os.ReadFile(filepath.Join(dir, rel))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			differ = append(differ, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(differ) == 0 {
		return ""
	}
	if len(differ) > 3 {
		differ = append(differ[:3], fmt.Sprintf("%d more", len(differ)-3))
	}
	return fmt.Sprintf(StaleAdaptersNote+"the libraries run the cache's copy of the adapters (%s), which differs from this checkout's (%s: %s): scripts/install-clients.sh installs the checkout's",
		dir, checkout, strings.Join(differ, ", "))
}

// StaleAdaptersNote starts the note of a stale copy of the adapters
// (staleAdapters), among the notes AvailableFor and Listed return.
const StaleAdaptersNote = "adapters: "

// pythonBin is the interpreter the Python adapter runs with: Debian's, which
// sees Debian's python3-redis.
const pythonBin = "/usr/bin/python3.11"

// pyRedisSid is the redis-py version unpacked from Debian sid by
// scripts/install-clients.sh.
const pyRedisSid = "6.4.0"

// externalAdapters returns the adapters whose runtimes and packages are
// installed, and notes about those that are not.
func externalAdapters(dir string) ([]*Adapter, []string) {
	dir = adaptersDir(dir)
	var as []*Adapter
	var notes []string
	if n := staleAdapters(dir); n != "" {
		notes = append(notes, n)
	}
	node := filepath.Join(dir, "node")
	if _, err := os.Stat(filepath.Join(node, "node_modules")); err != nil {
		notes = append(notes, "node adapter: "+filepath.Join(node, "node_modules")+" missing (run scripts/install-clients.sh)")
	} else if nodeBin, err := exec.LookPath("node"); err != nil {
		notes = append(notes, "node adapter: node not on PATH")
	} else if labels, err := nodeConfigurations(nodeBin, node); err != nil {
		notes = append(notes, "node adapter: "+err.Error())
	} else {
		// One process per configuration: a library that wedges its
		// process cannot stall the others.
		for _, lib := range labels {
			as = append(as, &Adapter{Name: "node " + lib, Cmd: []string{nodeBin, filepath.Join(node, "adapter.js")},
				Env: []string{"RESPCHECK_LIBS=" + lib}, Label: lib})
		}
	}
	more, n := langAdapters(dir)
	as, notes = append(as, more...), append(notes, n...)
	py := filepath.Join(dir, "python", "adapter.py")
	if _, err := os.Stat(pythonBin); err != nil {
		notes = append(notes, "python adapter: "+pythonBin+" missing")
		return as, notes
	}
	for _, cfg := range pyConfigs {
		as = append(as, &Adapter{Name: "redis-py" + cfg + " (system)", Cmd: []string{pythonBin, "-I", py},
			Env: []string{"RESPCHECK_PY_CONFIG=" + cfg}, Family: "redis-py"})
	}
	sid := filepath.Join(clientsCache(), "python", "redis-"+pyRedisSid, "usr", "lib", "python3", "dist-packages")
	if _, err := os.Stat(filepath.Join(sid, "redis")); err != nil {
		notes = append(notes, "redis-py "+pyRedisSid+": "+sid+" missing (run scripts/install-clients.sh)")
		return as, notes
	}
	for _, cfg := range pyConfigs {
		as = append(as, &Adapter{Name: "redis-py-" + pyRedisSid + cfg, Cmd: []string{pythonBin, py},
			Env: []string{"PYTHONPATH=" + sid, "PYTHONNOUSERSITE=1", "RESPCHECK_PY_CONFIG=" + cfg}, Label: "redis-py-" + pyRedisSid + cfg})
	}
	// The typed configuration, on the newest redis-py as the Node ones
	// are on their newest versions.
	as = append(as, &Adapter{Name: pyTyped, Cmd: []string{pythonBin, py},
		Env: []string{"PYTHONPATH=" + sid, "PYTHONNOUSERSITE=1", "RESPCHECK_PY_CONFIG=" + pyTypedConfig}, Label: pyTyped})
	return as, notes
}

// pyTyped is the label of redis-py's typed configuration (its command
// methods: set(name, value, get=True), zadd(name, mapping), ...) on
// redis-py pyRedisSid, and pyTypedConfig its RESPCHECK_PY_CONFIG.
const (
	pyTyped       = "redis-py-typed"
	pyTypedConfig = "-typed"
)

// pyConfigs are the label suffixes of the redis-py configurations
// (adapters/python/adapter.py CONFIGS), each run in a process of its own:
// the pure-Python parser, the hiredis parser, no response callbacks,
// decode_responses=True, the pipeline and transaction API, and the
// cluster client (RedisCluster, run against a cluster only) and the pub/sub
// API.
var pyConfigs = []string{"", "+hiredis", "[callbacks=none]", "[decode_responses=True]", "/pipeline", ClusterVariant, "/pubsub"}

// nodeConfigurations lists the Node adapter's configurations (node
// adapter.js --list: one label a line, such as "ioredis-6.0.0" or
// "node-redis-6.3.1/pipeline", each version read from the installed
// package).
func nodeConfigurations(nodeBin, dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, nodeBin, filepath.Join(dir, "adapter.js"), "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("adapter.js --list: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// Available returns every library whose adapter process starts (the Go
// libraries' adapters are this executable, see GoAdapters) and the
// command-line clients of the installed server builds, with notes about
// those that do not.
func Available(src AdapterSource) ([]Driver, []string) {
	return AvailableFor(context.Background(), src, "all")
}

// AdapterSource says where the adapter processes come from: the adapters
// directory (Dir; "" for the default, see adaptersDir) and the command
// lines of the user's own adapters (Commands, respcheck clients
// --adapter), each a program that speaks the adapter protocol
// (docs/adapters.md) and is started whatever --clients names: the
// libraries its hello lists are configurations like the others.
type AdapterSource struct {
	Dir      string
	Commands [][]string
}

// AvailableFor is Available for the clients that list (as Select reads
// it) may select: only the adapter processes of the libraries it names
// start ("all" or "": every one), so that a run of one library does not
// wait for some fifty processes to boot. Select picks the drivers from
// what it returns. Once ctx is done (Ctrl-C), no further adapter starts;
// each not started has a note.
func AvailableFor(ctx context.Context, src AdapterSource, list string) ([]Driver, []string) {
	ds, as, notes := adapterSet(src)
	as = adaptersFor(as, list)
	// Merged: the adapters that serve one known configuration (Label);
	// the system redis-py's label waits for its version.
	labelled := func(a *Adapter) bool { return a.Label != "" }
	all, notes := start(ctx, ds, oneProcessEach(as, labelled), notes)
	return rebind(all, as), notes
}

// rebind hands each driver that a merged process (oneProcessEach)
// answered for to the adapter of as that serves its configuration alone
// (by Label): that process starts when the driver's first session opens
// (Adapter.boot), so a configuration no selected case reaches never
// starts. A merged process's driver without one (a configuration list did
// not select) is left out, and the merged processes end.
func rebind(ds []Driver, as []*Adapter) []Driver {
	byLabel := map[string]*Adapter{}
	for _, a := range as {
		if a.Label != "" {
			byLabel[a.Label] = a
		}
	}
	var out []Driver
	merged := map[*Adapter]bool{}
	for _, d := range ds {
		ad, ok := d.(*adapterDriver)
		if !ok || !ad.a.merged {
			out = append(out, d)
			continue
		}
		merged[ad.a] = true
		if a := byLabel[ad.Library()]; a != nil {
			out = append(out, &adapterDriver{a: a, lib: ad.lib})
		}
	}
	for a := range merged {
		a.Close()
	}
	return out
}

// Listed is Available for a listing of the configurations
// (--list-clients), whose drivers open no session: the adapters that
// differ only in the configuration they load start as one process that
// loads them all (oneProcessEach), which answers for every configuration.
// Close the drivers with CloseDrivers.
func Listed(ctx context.Context, src AdapterSource) ([]Driver, []string) {
	return ListedFor(ctx, src, "all")
}

// ListedFor is Listed for the adapters a name of list may select (as
// AvailableFor reads it): --explain NAME starts those only.
func ListedFor(ctx context.Context, src AdapterSource, list string) ([]Driver, []string) {
	ds, as, notes := adapterSet(src)
	return start(ctx, ds, oneProcessEach(adaptersFor(as, list), nil), notes)
}

// adapterSet is every adapter process, the Go ones first (this
// executable, see GoAdapters), the user's own (src.Commands) last, and the
// notes on those not installed; when this executable cannot be found, the
// Go libraries are drivers in this process (ds) instead.
func adapterSet(src AdapterSource) (ds []Driver, as []*Adapter, notes []string) {
	as, notes = externalAdapters(src.Dir)
	for _, cmd := range src.Commands {
		as = append(as, &Adapter{Name: strings.Join(cmd, " "), Cmd: cmd})
	}
	if exe, err := os.Executable(); err == nil {
		// The Go libraries run in adapter processes too: a panic in a
		// library's own goroutine cannot be recovered in-process.
		as = append(GoAdapters(exe), as...)
	} else {
		notes = append(notes, "go libraries run inside respcheck (no executable path: "+err.Error()+")")
		ds = goLibraries()
	}
	return ds, as, notes
}

// configEnv are the variables that make an adapter process load one
// configuration of its adapter (all of them when unset): the Go and Node
// adapters' RESPCHECK_LIBS, the Python adapter's RESPCHECK_PY_CONFIG.
var configEnv = []string{"RESPCHECK_LIBS=", "RESPCHECK_PY_CONFIG="}

// oneProcessEach merges the adapters (those only that only allows, when
// it is not nil) that differ only in the configuration they load
// (configEnv) into one adapter, first in place, that loads them all; the
// others stay as they are. The Node adapter's 39 configurations answer
// hello in 1.5 s from one process, against about 0.35 CPU-seconds each
// from a process each here.
func oneProcessEach(as []*Adapter, only func(*Adapter) bool) []*Adapter {
	var out []*Adapter
	merged := map[string]bool{}
	for _, a := range as {
		env := slices.DeleteFunc(slices.Clone(a.Env), isConfigEnv)
		if len(env) == len(a.Env) || only != nil && !only(a) {
			out = append(out, a)
			continue
		}
		key := strings.Join(a.Cmd, "\x00") + "\x01" + strings.Join(env, "\x00") + "\x01" + a.Suffix
		if merged[key] {
			continue
		}
		merged[key] = true
		name, _, _ := strings.Cut(a.Name, " ")
		out = append(out, &Adapter{Name: name, Cmd: a.Cmd, Env: env, Suffix: a.Suffix, Family: a.Family, merged: true})
	}
	return out
}

// isConfigEnv says whether the environment entry e is one of configEnv.
func isConfigEnv(e string) bool {
	return slices.ContainsFunc(configEnv, func(p string) bool { return strings.HasPrefix(e, p) })
}

// start starts the adapters as, asks each for its libraries, and returns
// them after ds, with the command-line clients of the installed builds,
// and the notes, after notes.
func start(ctx context.Context, ds []Driver, as []*Adapter, notes []string) ([]Driver, []string) {
	// The processes start 4 at a time (about 50 of them: started one by
	// one, their start-up alone took 10 s here); the drivers keep the
	// adapters' order.
	type hello struct {
		ds    []Driver
		notes []string
	}
	hellos := make([]hello, len(as))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for i, a := range as {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if ctx.Err() != nil {
				// Interrupted: the adapters not started yet are not.
				hellos[i].notes = []string{fmt.Sprintf("adapter %s: not started: %v", a.Name, ctx.Err())}
				return
			}
			ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			more, n, err := a.Drivers(ctx)
			if err != nil {
				hellos[i].notes = []string{fmt.Sprintf("adapter %s: %v", a.Name, err)}
				a.Close()
				return
			}
			hellos[i] = hello{more, n}
		}()
	}
	wg.Wait()
	for _, h := range hellos {
		ds, notes = append(ds, h.ds...), append(notes, h.notes...)
	}
	cli, n := cliDrivers()
	return append(ds, cli...), append(notes, n...)
}

// adaptersFor keeps the adapters a name of list may select (all for
// "all" or ""): by their Label as Select reads it, else by their Family;
// and those with neither.
func adaptersFor(as []*Adapter, list string) []*Adapter {
	if list == "" || list == "all" {
		return as
	}
	names := splitNames(list)
	keep := func(a *Adapter) bool {
		for _, n := range names {
			n = strings.TrimSpace(n)
			switch {
			case a.Label != "" && selects(n, a.Label), a.Label == "" && (a.Family == "" || a.Family == family(n)):
				return true
			}
		}
		return false
	}
	var out []*Adapter
	for _, a := range as {
		if keep(a) {
			out = append(out, a)
		}
	}
	return out
}

// family is the library a client name or configuration label is of: the
// name up to its options, parser or API ("[", "+", "/"), without a
// version ("-" and a digit): "redis-py-6.4.0[callbacks=none]" and
// "redis-py" are "redis-py", "go-redis/pipeline" is "go-redis",
// "ioredis-typed" stays itself.
func family(name string) string {
	if i := strings.IndexAny(name, "[+/"); i >= 0 {
		name = name[:i]
	}
	for i := len(name) - 2; i > 0; i-- {
		if name[i] == '-' && name[i+1] >= '0' && name[i+1] <= '9' {
			return name[:i]
		}
	}
	return name
}

// CloseDrivers ends the adapter processes behind ds.
func CloseDrivers(ds []Driver) {
	seen := map[*Adapter]bool{}
	for _, d := range ds {
		if ad, ok := d.(*adapterDriver); ok && !seen[ad.a] {
			seen[ad.a] = true
			ad.a.Close()
			ad.a.poolMu.Lock()
			for _, c := range ad.a.clones {
				c.Close()
			}
			ad.a.poolMu.Unlock()
		}
	}
}
