package target

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// DefaultTimeout is the dial and round-trip deadline of a Config whose
// Timeout is 0.
const DefaultTimeout = 5 * time.Second

// Config says how to reach one server. The zero value of each optional field
// means: no AUTH, database 0, plain TCP, DefaultTimeout, resp.DefaultLimits.
type Config struct {
	// Addr is the server's host:port. Required.
	Addr string
	// Username and Password authenticate each connection: HELLO 3 AUTH in
	// RESP3, AUTH in RESP2. An empty Username means "default"; a Username
	// without a Password authenticates with an empty password.
	Username, Password string
	// DB is selected on every connection when not 0.
	DB int
	// TLS, if not nil, wraps every connection in TLS with this
	// configuration.
	TLS *tls.Config
	// Timeout is the deadline of the dial and of one round trip.
	Timeout time.Duration
	// Limits bound what the reader accepts.
	Limits resp.Limits
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// ReplyError is an error reply to a handshake or identification command:
// the server answered, and said no.
type ReplyError struct {
	// Cmd names the command ("HELLO 3", "AUTH", "SELECT").
	Cmd string
	// Reply is the error reply as received (a clone).
	Reply resp.Value
}

// Error returns the command and the escaped reply.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("%s: server replied %s", e.Cmd, resp.Escape(e.Reply.Raw))
}

// Conn is one raw connection to the server, after the handshake.
type Conn struct {
	// NC is the socket (a *tls.Conn over TLS).
	NC net.Conn
	// R reads the server's frames.
	R *resp.Reader
	// W buffers what is written; Do flushes it.
	W *bufio.Writer
	// Proto is 2 or 3, as negotiated.
	Proto int
	// Hello is the exact bytes of HELLO's reply (RESP3), nil in RESP2.
	Hello []byte

	timeout time.Duration
}

// DialSocket opens a TCP or TLS socket to c.Addr and sends nothing.
func (c Config) DialSocket(ctx context.Context) (net.Conn, error) {
	nd := &net.Dialer{Timeout: c.timeout()}
	if c.TLS == nil {
		return nd.DialContext(ctx, "tcp", c.Addr)
	}
	td := &tls.Dialer{NetDialer: nd, Config: c.TLS}
	nc, err := td.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return nil, fmt.Errorf("TLS handshake with %s: %w (is it a TLS port?)", c.Addr, err)
	}
	return nc, nil
}

// Dial connects and performs the handshake for proto: RESP3 sends HELLO 3
// (with AUTH when a password is set); RESP2 sends no HELLO, only AUTH and
// SELECT where needed, as RESP2 clients do. An error reply to the
// handshake is a *ReplyError.
func (c Config) Dial(ctx context.Context, proto int) (*Conn, error) {
	nc, err := c.DialSocket(ctx)
	if err != nil {
		return nil, err
	}
	cn := c.wrap(nc, proto)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < cn.timeout {
		cn.timeout = max(time.Until(dl), time.Millisecond)
		defer func() { cn.timeout = c.timeout() }()
	}
	// A cancelled ctx ends a handshake that waits on a silent server.
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	err = c.handshake(cn, proto)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return cn, nil
}

// Wrap returns a Conn over a socket that already had its handshake (or needs
// none), with c's deadline and limits.
func (c Config) wrap(nc net.Conn, proto int) *Conn {
	cn := &Conn{NC: nc, R: resp.NewReader(nc), W: bufio.NewWriterSize(nc, 32<<10), Proto: proto, timeout: c.timeout()}
	limits := c.Limits
	if limits == (resp.Limits{}) {
		limits = resp.DefaultLimits
	}
	cn.R.SetLimits(limits)
	return cn
}

// handshake authenticates, switches protocol and selects the database.
func (c Config) handshake(cn *Conn, proto int) error {
	if proto != 3 {
		return c.Restore(cn) // RESP2: AUTH and SELECT, as after a RESET
	}
	v, err := cn.check("HELLO 3", c.HelloArgs(3)...)
	if err != nil {
		return err
	}
	cn.Hello = append([]byte(nil), v.Raw...)
	return c.selectDB(cn)
}

func (c Config) selectDB(cn *Conn) error {
	if c.DB == 0 {
		return nil
	}
	_, err := cn.check("SELECT", "SELECT", strconv.Itoa(c.DB))
	return err
}

// Restore re-applies the credentials and the database on cn after the case
// sent RESET, which logs the connection out to the default user, selects
// database 0 and returns it to RESP2 (Redis 6.2+ RESET). An error reply is
// a *ReplyError.
func (c Config) Restore(cn *Conn) error {
	if c.authenticates() {
		if _, err := cn.check("AUTH", c.authArgs()...); err != nil {
			return err
		}
	}
	return c.selectDB(cn)
}

// authenticates reports whether connections send AUTH: a password is set,
// or a user is named (a user without a password authenticates with an
// empty one, which a nopass user accepts and any other refuses with
// WRONGPASS; it never silently becomes the default user).
func (c Config) authenticates() bool { return c.Password != "" || c.Username != "" }

// HelloArgs is the HELLO command for proto, with AUTH when the connection
// authenticates (user "default" when none is named).
func (c Config) HelloArgs(proto int) []string {
	args := []string{"HELLO", strconv.Itoa(proto)}
	if c.authenticates() {
		user := c.Username
		if user == "" {
			user = "default"
		}
		args = append(args, "AUTH", user, c.Password)
	}
	return args
}

func (c Config) authArgs() []string {
	if c.Username != "" {
		return []string{"AUTH", c.Username, c.Password}
	}
	return []string{"AUTH", c.Password}
}

// HelloReply opens a connection, sends HELLO proto (with AUTH when a
// password is set) and returns the reply's exact bytes: the handshake a
// replay server answers clients with. The reply may be an error reply.
func (c Config) HelloReply(ctx context.Context, proto int) ([]byte, error) {
	nc, err := c.DialSocket(ctx)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	v, err := c.wrap(nc, 2).Do(c.HelloArgs(proto)...)
	if err != nil {
		return nil, fmt.Errorf("HELLO %d: %w", proto, err)
	}
	return append([]byte(nil), v.Raw...), nil
}

// check is Do that turns an error reply into a *ReplyError named name.
func (cn *Conn) check(name string, args ...string) (resp.Value, error) {
	v, err := cn.Do(args...)
	if err != nil {
		return v, err
	}
	if IsError(v) {
		return v, &ReplyError{Cmd: name, Reply: v.Clone()}
	}
	return v, nil
}

// Do sends one command and reads its reply, skipping push frames. The value
// is valid until the next read on cn; an error reply is a value, not an
// error.
func (cn *Conn) Do(args ...string) (resp.Value, error) {
	return cn.DoBytes(resp.AppendCommandString(nil, args...))
}

// DoBytes is Do for a command already encoded.
func (cn *Conn) DoBytes(cmd []byte) (resp.Value, error) {
	if err := cn.send(cmd); err != nil {
		return resp.Value{}, err
	}
	return cn.Next()
}

// Next reads the reply to the next command of a pipeline DoBytes wrote,
// skipping push frames, under the deadline DoBytes set. The value is valid
// until the next read on cn.
func (cn *Conn) Next() (resp.Value, error) {
	for {
		v, err := cn.R.Read()
		if err != nil || v.Kind != resp.Push {
			return v, err
		}
	}
}

// send sets the round-trip deadline and writes and flushes cmd.
func (cn *Conn) send(cmd []byte) error {
	cn.NC.SetDeadline(time.Now().Add(cn.timeout))
	if _, err := cn.W.Write(cmd); err != nil {
		return err
	}
	return cn.W.Flush()
}

// Timeout is the round-trip deadline Do uses.
func (cn *Conn) Timeout() time.Duration { return cn.timeout }

// SetTimeout sets the round-trip deadline of later round trips.
func (cn *Conn) SetTimeout(d time.Duration) { cn.timeout = d }

// Close closes the socket.
func (cn *Conn) Close() error { return cn.NC.Close() }

// IsError reports whether v is a simple or blob error.
func IsError(v resp.Value) bool { return v.Kind == resp.SimpleError || v.Kind == resp.BlobError }
