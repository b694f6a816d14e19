//go:build !unix

package servers

import (
	"os"
	"os/exec"
	"syscall"
)

var (
	sigTerm = os.Kill // no SIGTERM: Stop kills at once
	sigCont = os.Interrupt
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

func killGroup(p *os.Process) error { return p.Kill() }
