package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner/servers"
)

// throwaway is a server started for one command and stopped at its end: a
// real redis-server/valkey-server (servers.Server) or the embedded
// miniredis.
type throwaway interface {
	Addr() string
	Stop() error
	// Log is the tail of the server's output, for error messages.
	Log() string
	// Pid is the server's process id.
	Pid() int
	// Exited reports whether the process has ended.
	Exited() bool
}

// embedded is github.com/alicebob/miniredis, the target of --server
// miniredis: it needs nothing installed, but it is an emulator, and a run
// against it shows how far it is from Redis (no INFO server, no DEBUG,
// backquotes in its error texts, COMMAND INFO answering every command...).
// It runs in a child process of respcheck (the hidden "emulate"
// command), so that a panic in the emulator (miniredis v2.40.0 panics on
// "*0\r\n") is a dead server, exit 3, not a crashed run.
type embedded struct {
	cmd  *exec.Cmd
	addr string
	log  *servers.Tail
	done chan struct{}
}

func startMiniredis() (*embedded, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e := &embedded{log: &servers.Tail{}, done: make(chan struct{})}
	e.cmd = exec.Command(self, "emulate")
	e.cmd.Env = append(os.Environ(), "RESPCHECK_TEST_MAIN=1") // lets a test binary act as respcheck
	e.cmd.Stderr = e.log
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("miniredis: %w", err)
	}
	go func() { e.cmd.Wait(); close(e.done) }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
		io.Copy(e.log, out)
	}()
	select {
	case s := <-line:
		if addr, ok := strings.CutPrefix(strings.TrimSpace(s), "listening "); ok {
			e.addr = addr
			return e, nil
		}
		e.Stop()
		return nil, fmt.Errorf("miniredis did not start: %q %s", s, e.Log())
	case <-time.After(10 * time.Second):
		e.Stop()
		return nil, errors.New("miniredis did not start within 10s")
	}
}

func (e *embedded) Addr() string { return e.addr }
func (e *embedded) Log() string  { return e.log.String() }
func (e *embedded) Pid() int     { return e.cmd.Process.Pid }

func (e *embedded) Exited() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func (e *embedded) Stop() error {
	e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(3 * time.Second):
		e.cmd.Process.Kill()
		<-e.done
	}
	return nil
}

// newMiniredisCmd is the hidden child that serves miniredis until stdin
// closes or a signal comes.
func newMiniredisCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "emulate",
		Short:  "Serve the embedded miniredis (used by --server miniredis)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m := miniredis.NewMiniRedis()
			if err := m.StartAddr("127.0.0.1:0"); err != nil {
				return serverErr(err)
			}
			defer m.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "listening %s\n", m.Addr())
			<-cmd.Context().Done() // SIGTERM or SIGINT (handleSignals)
			return nil
		},
	}
}
