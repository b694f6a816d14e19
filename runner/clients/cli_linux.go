package clients

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// procBusy is how long process pid's threads have run on a CPU or been
// runnable and waiting for one, so far: the sum of the first two fields
// of /proc/PID/task/TID/schedstat (in ns; see the kernel's
// Documentation/scheduler/sched-stats.rst). A CLI the machine's other
// work keeps off the CPUs (a loaded CI machine) is busy, not hung; one
// waiting on its socket or a pipe sleeps, and neither grows. On a kernel
// without schedstat (CONFIG_SCHED_INFO), the process's CPU time as
// procCPU reads it.
func procBusy(pid int) (time.Duration, bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, false
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			return procCPU(pid)
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return procCPU(pid)
		}
		run, err1 := strconv.ParseInt(f[0], 10, 64)
		wait, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return procCPU(pid)
		}
		sum += run + wait
	}
	return time.Duration(sum), true
}

// procCPU is the CPU time, user and system, that process pid has used so
// far: fields 14 and 15 of /proc/PID/stat (proc(5)), in clock ticks of
// 10 ms (USER_HZ, 100 on every Linux architecture Go supports).
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
