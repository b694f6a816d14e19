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
