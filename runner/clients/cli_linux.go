package clients

import (
	"os"
	"syscall"
	"unsafe"
)

// pipeUnread is the number of bytes written to the pipe w and not read yet
// (FIONREAD, which Linux answers on either end of a pipe).
func pipeUnread(w *os.File) (int, error) {
	rc, err := w.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// ownGroup puts an adapter or CLI process in a process group of its own,
// so that a Ctrl-C at the terminal (SIGINT to the foreground group)
// reaches respcheck only, which ends the run and closes them; without it
// the Node and Python adapters died of the signal first and their
// configurations dropped out of the results.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
