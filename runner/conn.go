package runner

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// conn is one raw connection of a case: a socket, a resp.Reader over it and
// the push frames that arrived out of band while a reply was awaited.
type conn struct {
	name   string
	nc     net.Conn
	r      *resp.Reader
	w      *bufio.Writer
	proto  int
	pushes []resp.Value // cloned
	// pending counts async sends whose replies have not been read yet.
	pending int
	// wbuf is reused to encode commands.
	wbuf []byte
	// armed says the last write set the deadline of the next read.
	armed bool
}

// dialer opens connections to the target with the run's credentials.
type dialer struct {
	addr     string
	username string
	password string
	db       int
	timeout  time.Duration
	limits   resp.Limits
	tls      *tls.Config
}

// errServer wraps an error reply received during the handshake.
type errServer struct {
	cmd string
	v   resp.Value
}

func (e *errServer) Error() string {
	return fmt.Sprintf("%s: server replied %s", e.cmd, resp.Escape(e.v.Raw))
}

// dial connects and performs the handshake for proto: RESP3 sends HELLO 3
// (with AUTH when a password is set); RESP2 sends no HELLO, only AUTH and
// SELECT where needed, as RESP2 clients do.
func (d *dialer) dial(ctx context.Context, name string, proto int) (*conn, error) {
	nd := &net.Dialer{Timeout: d.timeout}
	var nc net.Conn
	var err error
	if d.tls != nil {
		td := &tls.Dialer{NetDialer: nd, Config: d.tls}
		nc, err = td.DialContext(ctx, "tcp", d.addr)
		if err != nil {
			return nil, fmt.Errorf("TLS handshake with %s: %w (is it a TLS port?)", d.addr, err)
		}
	} else if nc, err = nd.DialContext(ctx, "tcp", d.addr); err != nil {
		return nil, err
	}
	c := &conn{name: name, nc: nc, r: resp.NewReader(nc), w: bufio.NewWriterSize(nc, 32<<10), proto: proto}
	c.r.SetLimits(d.limits)
	fail := func(err error) (*conn, error) {
		nc.Close()
		return nil, err
	}
	if proto == 3 {
		args := []string{"HELLO", "3"}
		if d.password != "" {
			user := d.username
			if user == "" {
				user = "default"
			}
			args = append(args, "AUTH", user, d.password)
		}
		v, err := c.roundTrip(d.timeout, args...)
		if err != nil {
			return fail(err)
		}
		if isError(v) {
			return fail(&errServer{cmd: "HELLO 3", v: v.Clone()})
		}
	} else if d.password != "" {
		args := []string{"AUTH", d.password}
		if d.username != "" {
			args = []string{"AUTH", d.username, d.password}
		}
		v, err := c.roundTrip(d.timeout, args...)
		if err != nil {
			return fail(err)
		}
		if isError(v) {
			return fail(&errServer{cmd: "AUTH", v: v.Clone()})
		}
	}
	if d.db != 0 {
		v, err := c.roundTrip(d.timeout, "SELECT", strconv.Itoa(d.db))
		if err != nil {
			return fail(err)
		}
		if isError(v) {
			return fail(&errServer{cmd: "SELECT", v: v.Clone()})
		}
	}
	return c, nil
}

// roundTrip sends one command and reads its reply, skipping pushes. The
// value is valid until the next read on c.
func (c *conn) roundTrip(timeout time.Duration, args ...string) (resp.Value, error) {
	if err := c.write(timeout, resp.AppendCommandString(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	return c.readReply(timeout, nil)
}

// write sends b. It arms one deadline for the write and the read of its
// reply (a single timer update per round trip).
func (c *conn) write(timeout time.Duration, b []byte) error {
	c.nc.SetDeadline(time.Now().Add(timeout))
	c.armed = true
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.w.Flush()
}

// readReply reads the next reply. Push frames are queued on c.pushes unless
// acceptPush says the awaited reply is itself a push (SUBSCRIBE's reply in
// RESP3 is one). The returned value is valid until the next read on c.
func (c *conn) readReply(timeout time.Duration, acceptPush func(resp.Value) bool) (resp.Value, error) {
	c.arm(timeout)
	for {
		v, err := c.r.Read()
		if err != nil {
			return resp.Value{}, err
		}
		// Out of band only in RESP3: on a RESP2 connection a push is a
		// reply in a type RESP2 does not have (checked by the caller).
		if v.Kind == resp.Push && c.proto == 3 && (acceptPush == nil || !acceptPush(v)) {
			c.pushes = append(c.pushes, v.Clone())
			continue
		}
		return v, nil
	}
}

// readPush returns the next push frame: a queued one, else the next frame on
// the wire. A non-push frame read here is returned with errNotPush.
func (c *conn) readPush(timeout time.Duration) (resp.Value, error) {
	if len(c.pushes) > 0 {
		v := c.pushes[0]
		c.pushes = c.pushes[1:]
		return v, nil
	}
	c.arm(timeout)
	v, err := c.r.Read()
	if err != nil {
		return resp.Value{}, err
	}
	if v.Kind != resp.Push && c.proto == 3 {
		return v, errNotPush
	}
	return v, nil
}

var errNotPush = errors.New("a reply arrived where a push was expected")

// arm sets the read deadline unless the write just before armed it.
func (c *conn) arm(timeout time.Duration) {
	if !c.armed {
		c.nc.SetReadDeadline(time.Now().Add(timeout))
	}
	c.armed = false
}

func (c *conn) close() error { return c.nc.Close() }

func isError(v resp.Value) bool { return v.Kind == resp.SimpleError || v.Kind == resp.BlobError }
