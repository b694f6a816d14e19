package servers

import "sync"

// Tail keeps the last Max bytes written to it (16 KiB when Max is 0): a
// process's output, for the messages that say why it ended. It is safe for
// concurrent use; the zero value is ready.
type Tail struct {
	Max   int
	mu    sync.Mutex
	buf   []byte
	total int64 // bytes ever written
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	keep := t.Max
	if keep <= 0 {
		keep = 16 << 10
	}
	if over := len(t.buf) - keep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Mark is the count of bytes ever written, for Since.
func (t *Tail) Mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Since is what was written after Mark returned m, as much of it as is
// kept (all that is kept when m is beyond what was written: a mark of
// another Tail).
func (t *Tail) Since(m int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.total - m
	if n < 0 {
		n = t.total
	}
	n = min(n, int64(len(t.buf)))
	return string(t.buf[int64(len(t.buf))-n:])
}
