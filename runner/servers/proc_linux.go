//go:build linux

package servers

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
)

var (
	sigTerm os.Signal = syscall.SIGTERM
	sigCont os.Signal = syscall.SIGCONT
)

// sysProcAttr puts the server in its own process group and has the kernel
// SIGKILL it when the thread that started it dies (see startCmd).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Pdeathsig fires when the parent *thread* exits, and the Go runtime ends a
// thread when a goroutine locked to it returns. Servers are therefore
// started from one goroutine locked to its thread for the life of the
// process, so that Pdeathsig means "when this process dies".
var (
	spawnOnce sync.Once
	spawnReq  chan spawnJob
)

type spawnJob struct {
	cmd *exec.Cmd
	res chan error
}

func startCmd(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReq = make(chan spawnJob)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as the process
			for j := range spawnReq {
				j.res <- j.cmd.Start()
			}
		}()
	})
	res := make(chan error, 1)
	spawnReq <- spawnJob{cmd: cmd, res: res}
	return <-res
}

// killGroup sends SIGKILL to the process group the server leads (which
// includes any child it forked), and to the process itself.
func killGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if perr := p.Kill(); perr == nil {
		return nil
	}
	return err
}

// ProcessStopped reports whether process pid is stopped (SIGSTOP, a
// debugger): state T or t in /proc/PID/stat. A process that is merely slow,
// or exiting, is not.
func ProcessStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T' || b[i+2] == 't'
}
