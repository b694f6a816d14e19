package servers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	defaultStartTimeout = 10 * time.Second
	stopGrace           = 5 * time.Second
	startAttempts       = 5
	logKeep             = 64 << 10 // bytes of server output kept for Log
)

// Options tune Start.
type Options struct {
	// ExtraArgs are appended to the server's command line, after the
	// arguments Start always passes (later arguments win).
	ExtraArgs []string
	// StartTimeout bounds the wait for the first PONG; 10s when zero.
	StartTimeout time.Duration
	// Stdout and Stderr, when set, receive a copy of the server's output
	// (its log, since it logs to stdout). The tail is always kept for Log
	// and for error messages.
	Stdout, Stderr io.Writer
	// TLSPort adds --tls-port with a second free port, picked again at
	// every attempt as the main port is (Server.TLSPort); the certificate
	// arguments go in ExtraArgs.
	TLSPort bool
}

// Server is one running throwaway server started by Start.
type Server struct {
	build   Build
	addr    string
	port    int
	tlsPort int // 0 without Options.TLSPort
	dir     string
	cmd     *exec.Cmd
	log     *Tail

	done    chan struct{} // closed once the process has been waited for
	waitErr error         // set before done is closed

	stopOnce sync.Once
	stopErr  error
}

// ports handed out by this process and not yet released, so that two Start
// calls racing each other do not pick the same port.
var (
	portsMu sync.Mutex
	ports   = map[int]bool{}
)

// pickPort picks a free port of 127.0.0.1 (a variable: a test makes it
// return a port it holds).
var pickPort = pickFreePort

func pickFreePort() (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("pick a free port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		portsMu.Lock()
		taken := ports[p]
		if !taken {
			ports[p] = true
		}
		portsMu.Unlock()
		if !taken {
			return p, nil
		}
	}
	return 0, errors.New("pick a free port: no unused port after 20 tries")
}

func releasePort(p int) {
	portsMu.Lock()
	delete(ports, p)
	portsMu.Unlock()
}

// Start runs b on 127.0.0.1 with a free port and a fresh temporary --dir,
// without persistence and in the foreground, with the DEBUG command enabled
// where the build accepts --enable-debug-command (Redis >= 7.0, every
// Valkey), and waits until a raw PING answers +PONG. If the server fails to
// bind its port, Start retries with another port. ctx bounds only the start:
// the server runs until Stop or Kill (or until this process dies, on Linux).
func Start(ctx context.Context, b Build, opt Options) (*Server, error) {
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = defaultStartTimeout
	}
	var err error
	for attempt := 0; attempt < startAttempts; attempt++ {
		var s *Server
		var retry bool
		s, retry, err = startOnce(ctx, b, opt)
		if err == nil {
			return s, nil
		}
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("servers: start %s: %w", b.Name, err)
}

// startOnce makes one attempt; retry reports a failure to bind the port.
func startOnce(ctx context.Context, b Build, opt Options) (s *Server, retry bool, err error) {
	if b.Bin == "" {
		return nil, false, errors.New("build has no binary (Bin is empty)")
	}
	port, err := pickPort()
	if err != nil {
		return nil, false, err
	}
	tlsPort := 0
	if opt.TLSPort {
		if tlsPort, err = pickPort(); err != nil {
			releasePort(port)
			return nil, false, err
		}
	}
	dir, err := os.MkdirTemp("", "respcheck-"+b.Name+"-")
	if err != nil {
		releasePort(port)
		releasePort(tlsPort)
		return nil, false, err
	}
	args := []string{
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--protected-mode", "no",
		"--logfile", "",
	}
	if acceptsDebugFlag(b) {
		args = append(args, "--enable-debug-command", "yes")
	}
	if tlsPort != 0 {
		args = append(args, "--tls-port", strconv.Itoa(tlsPort))
	}
	args = append(args, opt.ExtraArgs...)

	s = &Server{
		build:   b,
		addr:    net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		port:    port,
		tlsPort: tlsPort,
		dir:     dir,
		log:     &Tail{Max: logKeep},
		done:    make(chan struct{}),
	}
	cmd := exec.Command(b.Bin, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	cmd.Stdout = io.Writer(s.log)
	cmd.Stderr = io.Writer(s.log)
	if opt.Stdout != nil {
		cmd.Stdout = io.MultiWriter(s.log, opt.Stdout)
	}
	if opt.Stderr != nil {
		cmd.Stderr = io.MultiWriter(s.log, opt.Stderr)
	}
	cmd.SysProcAttr = sysProcAttr()
	// A forked child (BGSAVE, DEBUG RELOAD) may hold the output pipe open;
	// do not let Wait hang on it once the server itself is gone.
	cmd.WaitDelay = 2 * time.Second
	s.cmd = cmd
	if err := startCmd(cmd); err != nil {
		releasePort(port)
		releasePort(tlsPort)
		os.RemoveAll(dir)
		return nil, false, err
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()

	if err := s.waitReady(ctx, opt.StartTimeout); err != nil {
		exited := s.exited()
		s.Kill()
		s.Stop()
		bindFail := exited && strings.Contains(s.log.String(), "Address already in use")
		return nil, bindFail, fmt.Errorf("%w\n%s", err, indentLog(s.Log()))
	}
	return s, false, nil
}

// waitReady polls with a raw PING until +PONG, the process exits, the
// timeout passes or ctx is done.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	delay := 10 * time.Millisecond
	var last error
	for {
		select {
		case <-s.done:
			return fmt.Errorf("server exited before answering PING (%v); log tail:", s.waitErr)
		default:
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for PONG on %s: %w; log tail:", s.addr, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no PONG on %s within %v (last error: %v); log tail:", s.addr, timeout, last)
		}
		if last = ping(s.addr, 500*time.Millisecond); last == nil {
			// The port was free when picked, but another process (another
			// test binary) may have bound it since: then this server exits
			// ("Address already in use", retried) while the other answers
			// the PING. Only this process's PONG counts.
			if last = s.answersAsItself(500 * time.Millisecond); last == nil {
				return nil
			}
		}
		select {
		case <-s.done:
		case <-ctx.Done():
		case <-time.After(delay):
		}
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// answersAsItself checks that the server answering on s's port is s's
// own process: INFO server's process_id is its pid. A server that wants a
// password (-NOAUTH), or an INFO without process_id, cannot tell and is
// taken as itself.
func (s *Server) answersAsItself(timeout time.Duration) error {
	return inline(s.addr, "INFO server", timeout, func(head string, r *bufio.Reader) error {
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
		if !strings.HasPrefix(head, "$") || err != nil || n < 0 || n > 1<<20 {
			return nil // -NOAUTH or another answer: cannot tell
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		for _, line := range strings.Split(string(body), "\r\n") {
			if pid, ok := strings.CutPrefix(line, "process_id:"); ok {
				if s.cmd.Process != nil && pid != strconv.Itoa(s.cmd.Process.Pid) {
					return fmt.Errorf("another server (process_id %s) answers on %s", pid, s.addr)
				}
				return nil
			}
		}
		return nil
	})
}

// ping sends an inline PING on a new connection and expects +PONG, or
// -NOAUTH from a server started with --requirepass (it is up, and says so).
func ping(addr string, timeout time.Duration) error {
	return inline(addr, "PING", timeout, func(head string, _ *bufio.Reader) error {
		if head != "+PONG\r\n" && !strings.HasPrefix(head, "-NOAUTH ") {
			return fmt.Errorf("PING answered %q", head)
		}
		return nil
	})
}

// inline sends cmd as an inline command on a new connection to addr and
// hands the reply's first line (with its CRLF) and the rest of the
// connection to read; dialling, writing and reading all end by timeout.
func inline(addr, cmd string, timeout time.Duration, read func(head string, r *bufio.Reader) error) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, cmd+"\r\n"); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	return read(head, r)
}

// Exited reports whether the server's process has ended (it crashed, was
// killed or shut down); a SIGSTOPped server has not.
func (s *Server) Exited() bool { return s.exited() }

func (s *Server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Addr returns the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.addr }

// Build returns the build the server runs.
func (s *Server) Build() Build { return s.build }

// Pid returns the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Stop ends the server gracefully: SIGTERM (and SIGCONT, in case it was
// stopped), then SIGKILL to its process group if it has not exited after a
// grace period. It waits for the process, removes the temporary directory
// and frees the port. Stop is idempotent and safe after Kill; it reports no
// error for a server that had already exited.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if !s.exited() {
			if err := s.cmd.Process.Signal(sigTerm); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, err)
			}
			s.cmd.Process.Signal(sigCont)
			select {
			case <-s.done:
			case <-time.After(stopGrace):
				killGroup(s.cmd.Process)
				select {
				case <-s.done:
				case <-time.After(stopGrace):
					errs = append(errs, fmt.Errorf("pid %d still running after SIGKILL", s.Pid()))
				}
			}
		}
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, err)
		}
		releasePort(s.port)
		releasePort(s.tlsPort)
		if err := errors.Join(errs...); err != nil {
			s.stopErr = fmt.Errorf("servers: stop %s on %s: %w", s.build.Name, s.addr, err)
		}
	})
	return s.stopErr
}

// TLSPort is the port of --tls-port (Options.TLSPort), or 0.
func (s *Server) TLSPort() int { return s.tlsPort }

// Kill sends SIGKILL to the server's process group now and waits for the
// process to go; call Stop afterwards to remove its directory.
func (s *Server) Kill() error {
	if s.exited() {
		return nil
	}
	if err := killGroup(s.cmd.Process); err != nil && !s.exited() {
		return fmt.Errorf("servers: kill %s on %s: %w", s.build.Name, s.addr, err)
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(stopGrace):
		return fmt.Errorf("servers: kill %s on %s: pid %d still running", s.build.Name, s.addr, s.Pid())
	}
}

// Signal sends sig to the server process, for example SIGSTOP and SIGCONT
// to make it hang and resume in fault tests.
func (s *Server) Signal(sig os.Signal) error {
	if err := s.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("servers: signal %s on %s: %w", s.build.Name, s.addr, err)
	}
	return nil
}

// Log returns the tail of the server's output (at most 64 KiB), for error
// messages.
func (s *Server) Log() string { return s.log.String() }

// indentLog returns the last lines of a log, indented, for error messages.
func indentLog(log string) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "\t(no output)"
	}
	return "\t" + strings.Join(lines, "\n\t")
}
