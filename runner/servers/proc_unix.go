//go:build unix && !linux

package servers

import (
	"os"
	"os/exec"
	"syscall"
)

var (
	sigTerm os.Signal = syscall.SIGTERM
	sigCont os.Signal = syscall.SIGCONT
)

// sysProcAttr puts the server in its own process group. Outside Linux there
// is no Pdeathsig: a server outlives a parent that dies without Stop.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// killGroup sends SIGKILL to the server's process group and to the process.
func killGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if perr := p.Kill(); perr == nil {
		return nil
	}
	return err
}
