package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The command-line clients (redis-cli, valkey-cli) are drivers too: each
// case connection is one long-lived CLI process in its interactive loop
// (src/redis-cli.c repl(), which reads stdin line by line when stdin is not
// a terminal: linenoiseNoTTY), started with -2 or -3 and, for the
// [--no-raw] configurations, --no-raw (stdout is a pipe, so the default is
// the raw format). State carries over between steps as it does for a user
// typing commands: MULTI, SUBSCRIBE, HELLO. A process whose case left no
// such state serves a later case's connection after the loop's `connect`
// (see cliPool).
//
// Each step writes one command line, its arguments double-quoted with
// \xNN escapes (sdssplitargs reads them back byte for byte), then, once
// the CLI has read that line (the stdin pipe is empty: FIONREAD), two
// lines the CLI handles itself without sending anything: ":respcheck-end-N"
// (cliSetPreferences prints "unknown redis-cli internal command
// ':respcheck-end-N'") and a lone `"` (sdssplitargs fails: repl prints
// "Invalid argument(s)" and flushes stdout). Everything the CLI printed
// before that pair is the step's output. The second write waits for the
// first to be read because the CLI reads stdin through stdio: lines read
// ahead into its buffer are invisible to the select() on stdin that ends
// its wait for messages in subscribed mode (cliWaitForMessagesOrStdin),
// which would then wait for more input.

// cliTool is one installed command-line client binary.
type cliTool struct {
	name    string // "redis-cli" or "valkey-cli"
	family  string // "redis" or "valkey"
	version string // "8.6.3"
	bin     string
	source  string // where the binary comes from, for --list-clients
}

// cliDriver is one CLI binary in one output format.
type cliDriver struct {
	tool  *cliTool
	noRaw bool
	contr *contract
	pool  cliPool
}

func newCLIDriver(t *cliTool, noRaw bool) *cliDriver {
	d := &cliDriver{tool: t, noRaw: noRaw}
	d.contr = cliContract(d)
	return d
}

// Library is "redis-cli-8.6.3" or "redis-cli-8.6.3[--no-raw]".
func (d *cliDriver) Library() string {
	if d.noRaw {
		return d.tool.name + "-" + d.tool.version + "[--no-raw]"
	}
	return d.tool.name + "-" + d.tool.version
}

func (d *cliDriver) Version() string { return d.tool.version }
func (d *cliDriver) Protos() []int   { return []int{2, 3} }

// Source is the package or build the binary comes from.
func (d *cliDriver) Source() string { return d.tool.source }

func (d *cliDriver) API() string {
	s := d.tool.name + " -h HOST -p PORT -2|-3"
	if d.noRaw {
		s += " --no-raw"
	}
	return s + " (interactive loop: one command line per step on stdin, its stdout judged)"
}

func (d *cliDriver) contract() *contract { return d.contr }

func (d *cliDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	args := []string{"-h", host, "-p", port, fmt.Sprintf("-%d", proto)}
	if d.noRaw {
		args = append(args, "--no-raw")
	}
	return &cliSession{d: d, host: host, port: port, proto: proto, args: args, procs: map[string]*cliProc{}}, nil
}

// cliSession is one case: a CLI process per case connection, new or
// reused (see cliPool).
type cliSession struct {
	d          *cliDriver
	host, port string
	proto      int
	args       []string
	mu         sync.Mutex
	procs      map[string]*cliProc
}

func (s *cliSession) Conn(ctx context.Context, name string) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.procs[name]; ok {
		return &cliConn{d: s.d, p: p}, nil
	}
	p, err := s.d.get(ctx, s.proto, s.host, s.port, s.args)
	if err != nil {
		return nil, err
	}
	s.procs[name] = p
	return &cliConn{d: s.d, p: p}, nil
}

// Close gives every process that can serve another case back to the
// driver's pool (cliReusable) and ends the others: stdin closed (the loop
// ends at EOF), killed if it has not exited a second later.
func (s *cliSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if !p.tainted.Load() && !p.exited() {
			s.d.pool.put(s.proto, p)
			continue
		}
		p.stop(time.Second)
	}
	return nil
}

// Abandon kills the processes at once (after a hang).
func (s *cliSession) Abandon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		p.tainted.Store(true)
		p.stop(0)
	}
}

type cliConn struct {
	d *cliDriver
	p *cliProc
}

// outputKind is the Native kind of a command-line client's output.
const outputKind = "output"

// Do runs one command line and returns what the CLI printed, or why it
// did not send the command, or that it exited.
func (c *cliConn) Do(ctx context.Context, args [][]byte) Native {
	if why := cliLocal(c.d.tool, args); why != "" {
		return errNative("exception", c.d.tool.name, "not sent", why)
	}
	if p := c.p; p.exited() {
		return errNative("exception", c.d.tool.name, "not sent", c.d.tool.name+" exited at an earlier step, "+p.exitText(""))
	}
	c.p.harness.Store(true)
	defer c.p.harness.Store(false)
	n := c.do(ctx, args)
	if !cliReusable(c.d.tool, args, n) {
		c.p.tainted.Store(true)
	}
	return n
}

func (c *cliConn) do(ctx context.Context, args [][]byte) Native {
	out, err := c.p.run(ctx, c.d.tool.name, cliLine(args))
	stderr := strings.TrimSpace(c.p.drainStderr())
	switch {
	case errors.Is(err, errCLIExited):
		select {
		case <-c.p.done: // its exit status and the rest of stderr
		case <-time.After(time.Second):
		}
		// Type "adapter" and " exited": the session's process is gone,
		// as when an adapter process dies (see session.finish).
		n := errNative("exception", "adapter", "exit", c.d.tool.name+" exited, "+c.p.exitText(stderr))
		n.Text = &out
		return n
	case err != nil:
		return errNative("exception", c.d.tool.name, "harness", err.Error())
	case stderr != "":
		n := errNative("exception", c.d.tool.name, "stderr", stderr)
		n.Text = &out
		return n
	}
	n := stringNative(c.d.tool.name+" output", out)
	n.Kind = outputKind
	return n
}

// cliLine is args as one line of the CLI's loop: each argument
// double-quoted, with \" \\ and \xNN escapes for everything but printable
// ASCII (sdssplitargs, src/sds.c).
func cliLine(args [][]byte) string {
	n := 1
	for _, a := range args {
		n += 3 + 4*len(a)
	}
	b := make([]byte, 0, n)
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '"')
		for _, c := range a {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20 && c <= 0x7e:
				b = append(b, c)
			default:
				b = append(b, '\\', 'x', hexDigit[c>>4], hexDigit[c&15])
			}
		}
		b = append(b, '"')
	}
	return string(append(b, '\n'))
}

const hexDigit = "0123456789abcdef"

// errCLIExited says the process ended before the step's end marker.
var errCLIExited = errors.New("the CLI exited")

// cliProc is one CLI process and its pipes.
type cliProc struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end
	stderr *os.File // read end, non-blocking (drained after each step)
	mu     sync.Mutex
	out    []byte        // stdout not yet returned by a step
	more   chan struct{} // signalled when out grows or the process ends
	done   chan struct{} // closed when stdout ended and the process was waited for
	err    error         // the process's exit status
	errLog []byte        // stderr read at the exit
	marks  int
	// tainted: a step left state a connect does not reset, or failed
	// (cliReusable); written by the step's Do, read at Close.
	tainted atomic.Bool
	// harness: a step's Do is at work (building its line, writing it,
	// reading and converting the output: a 10 MiB argument takes the
	// race-built harness seconds), not waiting for the CLI's output.
	harness atomic.Bool
	// printed counts the bytes read from stdout.
	printed atomic.Int64
	// searched is how much of out run has searched for its end marker.
	searched int
}

func startCLI(bin string, args []string) (*cliProc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.Env = cliEnv()
	cmd.SysProcAttr = ownGroup()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &cliProc{cmd: cmd, stdin: inW, stderr: errR, more: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read(outR)
	return p, nil
}

// cliEnv is the environment without what changes the CLI's behaviour: a
// password (REDISCLI_AUTH: the proxy authenticates upstream), FAKETTY
// (the terminal format and its prompts), a history or rc file.
func cliEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "REDISCLI_") || strings.HasPrefix(e, "VALKEYCLI_") || strings.HasPrefix(e, "FAKETTY") {
			continue
		}
		env = append(env, e)
	}
	return env
}

func (p *cliProc) read(out *os.File) {
	buf := make([]byte, 64<<10)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			p.printed.Add(int64(n))
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.mu.Unlock()
			p.signal()
		}
		if err != nil {
			break
		}
	}
	out.Close()
	err := p.cmd.Wait()
	log := p.drainStderr()
	p.mu.Lock()
	p.err, p.errLog = err, []byte(log)
	p.mu.Unlock()
	close(p.done)
	p.signal()
}

func (p *cliProc) signal() {
	select {
	case p.more <- struct{}{}:
	default:
	}
}

func (p *cliProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitText is "exit status N", then what the CLI wrote to stderr: more
// (read by the step) and what was left at the exit.
func (p *cliProc) exitText(more string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := "exit status 0"
	if p.err != nil {
		s = p.err.Error()
	}
	if t := strings.TrimSpace(more + string(p.errLog)); t != "" {
		s += ": " + t
	}
	return s
}

// run writes line, waits until the CLI has read it, writes the end
// marker and returns the output before it.
func (p *cliProc) run(ctx context.Context, name, line string) (string, error) {
	if _, err := p.stdin.WriteString(line); err != nil {
		return p.rest(), errCLIExited
	}
	if err := p.waitRead(ctx); err != nil {
		return p.rest(), err
	}
	p.marks++
	mark := fmt.Sprintf(":respcheck-end-%d", p.marks)
	if _, err := p.stdin.WriteString(mark + "\n\"\n"); err != nil {
		return p.rest(), errCLIExited
	}
	end := []byte(fmt.Sprintf("unknown %s internal command '%s'\nInvalid argument(s)\n", name, mark))
	p.searched = 0
	for {
		p.mu.Lock()
		// Only the output that came since the last search (and an end
		// marker's length before it): a 10 MiB reply, printed escaped,
		// arrives in some 500 pipe reads.
		from := max(0, p.searched-len(end))
		if i := bytes.Index(p.out[from:], end); i >= 0 {
			out := string(p.out[:from+i])
			p.out = p.out[from+i+len(end):]
			p.mu.Unlock()
			return out, nil
		}
		p.searched = len(p.out)
		p.mu.Unlock()
		p.harness.Store(false)
		select {
		case <-p.more:
		case <-p.done:
			// read has taken all of stdout before closing done.
			p.mu.Lock()
			found := bytes.Contains(p.out, end)
			p.mu.Unlock()
			if !found {
				return p.rest(), errCLIExited
			}
		case <-ctx.Done():
			return p.rest(), ctx.Err()
		}
		p.harness.Store(true)
	}
}

// rest takes the output not returned yet.
func (p *cliProc) rest() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := string(p.out)
	p.out = nil
	return s
}

// waitRead waits until the stdin pipe is empty: the CLI has read the line.
func (p *cliProc) waitRead(ctx context.Context) error {
	delay := 50 * time.Microsecond
	for {
		n, err := pipeUnread(p.stdin)
		if err != nil || n == 0 {
			return nil // unknown: go on (see pipeUnread)
		}
		p.harness.Store(false)
		select {
		case <-p.done:
			return errCLIExited
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		p.harness.Store(true)
		delay = min(2*delay, 5*time.Millisecond)
	}
}

// drainStderr reads what the CLI wrote to stderr so far, without waiting.
func (p *cliProc) drainStderr() string {
	rc, err := p.stderr.SyscallConn()
	if err != nil {
		return ""
	}
	var b []byte
	buf := make([]byte, 4096)
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true // never wait: EAGAIN ends the loop
		}); err != nil || rerr != nil || n <= 0 {
			return string(b)
		}
		b = append(b, buf[:n]...)
	}
}

// stop closes stdin and kills the process if it has not ended after
// grace.
func (p *cliProc) stop(grace time.Duration) {
	p.stdin.Close()
	if grace > 0 {
		select {
		case <-p.done:
			return
		case <-time.After(grace):
		}
	}
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}

// IO is how much of the CLI's stdout the harness has read, and whether it
// is at work on the current step rather than waiting for the CLI (see
// busyConn).
func (c *cliConn) IO() (int64, bool) { return c.p.printed.Load(), c.p.harness.Load() }

// Busy is how long the connection's CLI process has run or waited for a
// CPU so far (see busyConn).
func (c *cliConn) Busy() (time.Duration, bool) {
	if c.p.cmd.Process == nil {
		return 0, false
	}
	return procBusy(c.p.cmd.Process.Pid)
}
