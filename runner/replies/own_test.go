package replies

import (
	"bufio"
	"context"
	"encoding/base64"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// ownDriver is respcheck's own decoder (resp.Reader) as a client library:
// each reply becomes the Native that names its exact RESP type, so the
// judge must find every frame a match.
type ownDriver struct{}

func (ownDriver) Library() string { return "respcheck-resp" }
func (ownDriver) Version() string { return "dev" }
func (ownDriver) Protos() []int   { return []int{2, 3} }
func (ownDriver) API() string     { return "resp.Reader.Read after resp.AppendCommand" }

func (ownDriver) Open(_ context.Context, addr string, proto int) (clients.Session, error) {
	return &ownSession{addr: addr, proto: proto, conns: map[string]*ownConn{}}, nil
}

type ownSession struct {
	addr  string
	proto int
	conns map[string]*ownConn
}

func (s *ownSession) Conn(ctx context.Context, name string) (clients.Conn, error) {
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return nil, err
	}
	c := &ownConn{nc: nc, r: resp.NewReader(bufio.NewReader(nc))}
	c.r.SetLimits(resp.Limits{MaxDepth: 1 << 14})
	if s.proto == 3 {
		if n := c.Do(ctx, [][]byte{[]byte("HELLO"), []byte("3")}); n.Kind != "map" {
			nc.Close()
			return nil, net.ErrClosed
		}
	}
	s.conns[name] = c
	return c, nil
}

func (s *ownSession) Close() error {
	for _, c := range s.conns {
		c.nc.Close()
	}
	return nil
}

type ownConn struct {
	nc net.Conn
	r  *resp.Reader
}

func (c *ownConn) Do(ctx context.Context, args [][]byte) clients.Native {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(5 * time.Second)
	}
	c.nc.SetDeadline(dl)
	if _, err := c.nc.Write(resp.AppendCommand(nil, args...)); err != nil {
		return clients.Native{Kind: "exception", Type: "net.Conn", Err: &clients.NativeErr{Class: "write", Message: err.Error()}}
	}
	// A (un)subscribe gets a confirmation per channel (a push in RESP3):
	// all are read, the first returned.
	subscribe := strings.HasSuffix(strings.ToLower(string(args[0])), "subscribe")
	frames := 1
	if subscribe {
		frames = max(1, len(args)-1)
	}
	var first *clients.Native
	for frames > 0 {
		v, err := c.r.Read()
		if err != nil {
			return clients.Native{Kind: "exception", Type: "resp.Reader", Err: &clients.NativeErr{Class: "read", Message: err.Error()}}
		}
		if v.Kind == resp.Push && !(subscribe && len(v.Elems) > 0 && strings.HasSuffix(strings.ToLower(string(v.Elems[0].Str)), "subscribe")) {
			continue
		}
		if first == nil {
			n := ownNative(v)
			first = &n
		}
		frames--
	}
	return *first
}

// ownNative is v as a Native of its own RESP type.
func ownNative(v resp.Value) clients.Native {
	n := clients.Native{Type: "RedisMessage " + v.Kind.String()}
	text := func(s string) *string { return &s }
	switch v.Kind {
	case resp.SimpleString, resp.BlobString, resp.VerbatimString:
		n.Kind, n.B64 = "bytes", text(base64.StdEncoding.EncodeToString(v.Str))
	case resp.SimpleError, resp.BlobError:
		n.Kind, n.Err = "error", &clients.NativeErr{Class: "resp", Message: string(v.Str)}
	case resp.Integer:
		n.Kind, n.Text = "int", text(strconv.FormatInt(v.Int, 10))
	case resp.Double:
		n.Kind, n.Text = "float", text(string(v.Str))
	case resp.BigNumber:
		n.Kind, n.Text = "bigint", text(string(v.Str))
	case resp.Boolean:
		n.Kind, n.Text = "bool", text(strconv.FormatBool(v.Bool))
	case resp.NilBlobString, resp.NilArray, resp.Null:
		n.Kind = "nil"
	case resp.Array, resp.Push, resp.Set:
		n.Kind = map[resp.Kind]string{resp.Set: "set"}[v.Kind]
		if n.Kind == "" {
			n.Kind = "list"
		}
		n.Elems = []clients.Native{}
		for _, e := range v.Elems {
			n.Elems = append(n.Elems, ownNative(e))
		}
	case resp.Map, resp.Attribute:
		n.Kind = "map"
		n.Pairs = [][2]clients.Native{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			n.Pairs = append(n.Pairs, [2]clients.Native{ownNative(v.Elems[i]), ownNative(v.Elems[i+1])})
		}
	}
	if v.Attr != nil {
		a := ownNative(*v.Attr)
		n.Attr = &a
	}
	return n
}
