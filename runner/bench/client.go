package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// client is one raw connection that counts the bytes it writes and the
// reply bytes it reads.
type client struct {
	nc      net.Conn
	r       *resp.Reader
	w       *bufio.Writer
	buf     []byte
	timeout time.Duration
	sent    int64 // request bytes written
	recv    int64 // reply bytes read
	stop    func() bool
}

func dial(ctx context.Context, o *Options) (*client, error) {
	tc, err := o.Target.Dial(ctx, o.Proto)
	if err != nil {
		return nil, err
	}
	c := &client{nc: tc.NC, r: tc.R, w: bufio.NewWriterSize(tc.NC, 64<<10), timeout: o.Target.Timeout}
	// A cancelled run unblocks the connection at once.
	c.stop = context.AfterFunc(ctx, func() { tc.NC.SetDeadline(time.Unix(1, 0)) })
	return c, nil
}

func (c *client) close() error {
	c.stop()
	return c.nc.Close()
}

// send buffers one command without flushing.
func (c *client) send(args ...[]byte) error {
	c.buf = resp.AppendCommand(c.buf[:0], args...)
	c.sent += int64(len(c.buf))
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	_, err := c.w.Write(c.buf)
	return err
}

func (c *client) flush() error {
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.w.Flush()
}

// read reads one reply; error replies are returned as errors. The value is
// valid until the next read.
func (c *client) read(cmd []byte) (resp.Value, error) {
	c.nc.SetReadDeadline(time.Now().Add(c.timeout))
	for {
		v, err := c.r.Read()
		if err != nil {
			return v, fmt.Errorf("%s: %w", cmd, err)
		}
		if v.Kind == resp.Push {
			continue
		}
		c.recv += int64(len(v.Raw))
		if v.Kind == resp.SimpleError || v.Kind == resp.BlobError {
			return v, &replyError{cmd: string(cmd), text: string(v.Str)}
		}
		return v, nil
	}
}

// do sends one command and reads its reply.
func (c *client) do(args ...[]byte) (resp.Value, error) {
	if err := c.send(args...); err != nil {
		return resp.Value{}, err
	}
	if err := c.flush(); err != nil {
		return resp.Value{}, err
	}
	return c.read(args[0])
}

func (c *client) doString(args ...string) (resp.Value, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	return c.do(bs...)
}

// replyError is an error reply.
type replyError struct{ cmd, text string }

func (e *replyError) Error() string { return e.cmd + ": server replied " + e.text }

func want(cmd string, v resp.Value, ok bool) error {
	if !ok {
		return fmt.Errorf("%s: unexpected reply %s", cmd, resp.Escape(v.Raw[:min(len(v.Raw), 80)]))
	}
	return nil
}

func isOK(v resp.Value) bool { return v.Kind == resp.SimpleString && string(v.Str) == "OK" }
