package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
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
	d := net.Dialer{Timeout: o.Timeout}
	nc, err := d.DialContext(ctx, "tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	c := &client{nc: nc, r: resp.NewReader(nc), w: bufio.NewWriterSize(nc, 64<<10), timeout: o.Timeout}
	// A cancelled run unblocks the connection at once.
	c.stop = context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	hello := func(args ...string) error {
		_, err := c.doString(args...)
		return err
	}
	switch {
	case o.Proto == 3 && o.Password != "":
		user := o.Username
		if user == "" {
			user = "default"
		}
		err = hello("HELLO", "3", "AUTH", user, o.Password)
	case o.Proto == 3:
		err = hello("HELLO", "3")
	case o.Password != "" && o.Username != "":
		err = hello("AUTH", o.Username, o.Password)
	case o.Password != "":
		err = hello("AUTH", o.Password)
	}
	if err == nil && o.DB != 0 {
		err = hello("SELECT", strconv.Itoa(o.DB))
	}
	if err != nil {
		c.close()
		return nil, err
	}
	c.sent, c.recv = 0, 0
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

// Server is what the bench learned about the target.
type Server struct {
	Addr    string `json:"addr"`
	Family  string `json:"family"`
	Version string `json:"version"`
}

// identify reads INFO server: Valkey carries valkey_version (and
// server_name:valkey) next to a compatibility redis_version.
func identify(c *client, addr string) (Server, error) {
	s := Server{Addr: addr, Family: "redis"}
	v, err := c.doString("INFO", "server")
	if err != nil {
		return s, err
	}
	fields := map[string]string{}
	for line := range bytes.Lines(v.Str) {
		if k, val, ok := strings.Cut(strings.TrimSpace(string(line)), ":"); ok {
			fields[k] = val
		}
	}
	s.Version = fields["redis_version"]
	if vv, ok := fields["valkey_version"]; ok || fields["server_name"] == "valkey" {
		s.Family, s.Version = "valkey", vv
	}
	if s.Version == "" {
		return s, fmt.Errorf("INFO server has no redis_version or valkey_version line")
	}
	return s, nil
}

// hasCommand reports whether COMMAND INFO knows name.
func hasCommand(c *client, name string) (bool, error) {
	v, err := c.doString("COMMAND", "INFO", strings.ToLower(name))
	if err != nil {
		return false, err
	}
	return v.Kind == resp.Array && len(v.Elems) == 1 && v.Elems[0].Kind == resp.Array, nil
}
