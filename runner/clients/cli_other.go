//go:build !linux

package clients

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// pipeUnread is not known outside Linux: the end marker then follows the
// command at once, and a step in subscribed mode may wait for its deadline
// (see cliProc.run).
func pipeUnread(w *os.File) (int, error) { return 0, errors.New("FIONREAD on a pipe: Linux only") }

// ownGroup is Linux's process group of its own; elsewhere nil.
func ownGroup() *syscall.SysProcAttr { return nil }

// procBusy is not read outside Linux either (see procCPU).
func procBusy(pid int) (time.Duration, bool) { return 0, false }

// procCPU is not read outside Linux: a CLI call past its step timeout is
// watched there by its output and the proxy's bytes only (see busyConn).
func procCPU(pid int) (time.Duration, bool) { return 0, false }
