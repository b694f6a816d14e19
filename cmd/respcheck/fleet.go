package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// fleet is the throwaway servers of a run: the endpoint's (index 0), then
// its pool's, all of one build. A server that dies is replaced by a fresh
// one (respawn), so that one case that kills it does not end the run.
type fleet struct {
	spawn func() (throwaway, error)
	mu    sync.Mutex
	all   []throwaway
}

// openFleet is targetFlags.open for a run that may spread its cases over n
// throwaway servers of one build (n <= 0: runner.DefaultServers()), started
// side by side. An existing server is one server whatever n says, and f is
// then nil; so is the embedded emulator's pool, which is one server.
func (tf targetFlags) openFleet(ctx context.Context, n int) (t endpoint, f *fleet, err error) {
	t, stop, err := tf.open(ctx)
	if err != nil {
		return t, nil, err
	}
	if t.spawned == nil {
		stop()
		return t, nil, nil
	}
	if tf.cluster.primaries > 0 {
		// One cluster: its nodes are the "servers"; a lost node ends the run.
		return t, &fleet{all: []throwaway{t.spawned}}, nil
	}
	f = &fleet{all: []throwaway{t.spawned}, spawn: func() (throwaway, error) { return spawn(ctx, tf.serverBin, tf.server) }}
	if n <= 0 {
		n = runner.DefaultServers()
	}
	if tf.server == "miniredis" && tf.serverBin == "" {
		n = 1
	}
	extra := make([]throwaway, n-1)
	errs := make([]error, n-1)
	var wg sync.WaitGroup
	for i := range extra {
		wg.Add(1)
		go func() {
			defer wg.Done()
			extra[i], errs[i] = f.spawn()
		}()
	}
	wg.Wait()
	for _, s := range extra {
		if s != nil {
			f.all = append(f.all, s)
		}
	}
	if err := errors.Join(errs...); err != nil {
		f.stop()
		if ctx.Err() != nil {
			return t, nil, &exitError{code: exitInterrupted, err: errors.New("interrupted while starting the throwaway servers; nothing was run")}
		}
		return t, nil, serverErr(err)
	}
	return t, f, nil
}

// pool returns the addresses of all servers but the first
// (runner.Options.Pool).
func (f *fleet) pool() []string {
	if f == nil {
		return nil
	}
	var addrs []string
	for _, s := range f.all[1:] {
		addrs = append(addrs, s.Addr())
	}
	return addrs
}

// exitWait is how long respawn waits for the process of a server that
// stopped answering to exit, unless it is stopped (SIGSTOP).
const exitWait = 3 * time.Second

// respawn is runner.Options.Respawn: server i stopped answering; if its
// process ended, a fresh one of the build takes its place. A process still
// running (frozen: SIGSTOP, a hung host) is not the run's to kill.
func (f *fleet) respawn(i int) (addr, note string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dead := f.all[i]
	// A crashing server prints its report before it exits.
	for wait := time.Now().Add(exitWait); !dead.Exited() && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		if servers.ProcessStopped(dead.Pid()) {
			break
		}
	}
	if !dead.Exited() {
		return "", "", fmt.Errorf("its process (pid %d) is still running, but does not answer", dead.Pid())
	}
	// The note's first line says it alone (a known crash shows only that
	// line, see runner.Options.Respawn); the log's last lines follow.
	note = "the server died"
	if cause := logCause(dead); cause != "" {
		note += " (" + cause + ")"
	}
	note += logTail(dead)
	dead.Stop()
	s, err := f.spawn()
	if err != nil {
		return "", "", err
	}
	f.all[i] = s
	return s.Addr(), note, nil
}

// kill is runner.Options.Kill: SIGKILL to server i's process (a known
// crash that froze its server: see respawn, which then finds it exited).
func (f *fleet) kill(i int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.all[i].Exited() {
		return nil
	}
	return syscall.Kill(f.all[i].Pid(), syscall.SIGKILL)
}

// stop ends every server of the fleet.
func (f *fleet) stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.all {
		s.Stop()
	}
}

// logTail is the end of a throwaway server's log as an indented block
// after a newline, or "": its last non-blank lines, after the line of a
// crash report that names the cause (a signal, an assertion, a panic).
func logTail(s throwaway) string {
	var lines []string
	cause := ""
	for _, l := range strings.Split(s.Log(), "\n") {
		l = strings.TrimRight(l, "\r ")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if cause == "" && crashLine.MatchString(l) {
			cause = l
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	lines = lines[max(0, len(lines)-6):]
	if cause != "" && !slices.Contains(lines, cause) {
		lines = append([]string{cause, "..."}, lines...)
	}
	return "\nserver log (last lines):\n  " + strings.Join(lines, "\n  ")
}

// logCause is the line of a throwaway server's log that says why it
// died, trimmed, or "".
func logCause(s throwaway) string {
	for _, l := range strings.Split(s.Log(), "\n") {
		if crashLine.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// crashLine matches the line of a server's log that says why it died.
var crashLine = regexp.MustCompile(`(?i)crashed by signal|assertion|panic|guru meditation|out of memory|fatal`)
