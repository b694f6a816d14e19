package clients

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Server is what respcheck learned about the target before the run.
type Server struct {
	Addr    string `json:"addr"`
	Family  string `json:"family"`
	Version string `json:"version"`
	Debug   bool   `json:"debug"`
	Proto3  bool   `json:"proto3"`
}

func (s Server) info(proto int) cases.ServerInfo {
	v, _ := cases.ParseVersion(s.Version)
	return cases.ServerInfo{Family: s.Family, Version: v, Proto: proto}
}

// rawConn is a minimal raw connection for identification and gates.
type rawConn struct {
	nc net.Conn
	r  *resp.Reader
}

func dialRaw(ctx context.Context, addr string, proto int, timeout time.Duration) (*rawConn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &rawConn{nc: nc, r: resp.NewReader(nc)}
	if proto == 3 {
		v, err := c.do(timeout, []byte("HELLO"), []byte("3"))
		if err != nil {
			nc.Close()
			return nil, err
		}
		if isErr(v) {
			nc.Close()
			return nil, fmt.Errorf("HELLO 3: %s", resp.Escape(v.Raw))
		}
	}
	return c, nil
}

// do sends a command and returns its reply (cloned), skipping pushes.
func (c *rawConn) do(timeout time.Duration, args ...[]byte) (resp.Value, error) {
	c.nc.SetDeadline(time.Now().Add(timeout))
	if _, err := c.nc.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	for {
		v, err := c.r.Read()
		if err != nil {
			return resp.Value{}, err
		}
		if v.Kind != resp.Push {
			return v.Clone(), nil
		}
	}
}

func (c *rawConn) close() { c.nc.Close() }

func isErr(v resp.Value) bool { return v.Kind == resp.SimpleError || v.Kind == resp.BlobError }

// Identify asks the server at addr for its family and version (INFO
// server, else HELLO 3), whether DEBUG is enabled and whether HELLO 3
// works.
func Identify(ctx context.Context, addr string, timeout time.Duration) (Server, error) {
	s := Server{Addr: addr}
	c, err := dialRaw(ctx, addr, 2, timeout)
	if err != nil {
		return s, err
	}
	defer c.close()
	v, err := c.do(timeout, []byte("INFO"), []byte("server"))
	if err != nil {
		return s, fmt.Errorf("INFO server: %w", err)
	}
	if isErr(v) {
		// Emulators such as miniredis have no INFO server: HELLO 3 names
		// the server and its version (family "miniredis"), as for run.
		if s.Family, s.Version, err = identifyByHello(ctx, addr, timeout); err != nil {
			return s, fmt.Errorf("INFO server: server replied %s, and %v", resp.Escape(v.Raw), err)
		}
	} else {
		fields := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(v.Str))
		for sc.Scan() {
			if k, val, ok := strings.Cut(strings.TrimRight(sc.Text(), "\r"), ":"); ok {
				fields[k] = val
			}
		}
		s.Family, s.Version = "redis", fields["redis_version"]
		if vv, ok := fields["valkey_version"]; ok || fields["server_name"] == "valkey" {
			s.Family, s.Version = "valkey", vv
		}
		if s.Version == "" {
			return s, fmt.Errorf("INFO server has no redis_version or valkey_version")
		}
	}
	if v, err := c.do(timeout, []byte("DEBUG"), []byte("SLEEP"), []byte("0")); err == nil {
		s.Debug = v.Kind == resp.SimpleString
	}
	if c3, err := dialRaw(ctx, addr, 3, timeout); err == nil {
		s.Proto3 = true
		c3.close()
	}
	return s, nil
}

// identifyByHello reads the server and version fields of HELLO 3's map.
func identifyByHello(ctx context.Context, addr string, timeout time.Duration) (family, version string, err error) {
	c, err := dialRaw(ctx, addr, 2, timeout)
	if err != nil {
		return "", "", err
	}
	defer c.close()
	v, err := c.do(timeout, []byte("HELLO"), []byte("3"))
	if err != nil {
		return "", "", fmt.Errorf("HELLO 3: %w", err)
	}
	if v.Kind != resp.Map {
		return "", "", fmt.Errorf("HELLO 3 replied %s", resp.Escape(v.Raw))
	}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		switch string(v.Elems[i].Str) {
		case "server":
			family = string(v.Elems[i+1].Str)
		case "version":
			version = string(v.Elems[i+1].Str)
		}
	}
	if family == "" || version == "" {
		return "", "", fmt.Errorf("HELLO 3 names no server and version")
	}
	return family, version, nil
}

// gates evaluates the requires of cases (server, proto, debug, commands via
// COMMAND INFO, probes), caching what it asks the server.
type gates struct {
	srv     Server
	timeout time.Duration
	mu      sync.Mutex
	cache   map[string]bool
}

// skip returns why c must be skipped in proto, or "".
func (g *gates) skip(ctx context.Context, c *cases.Case, proto int) string {
	info := g.srv.info(proto)
	if proto == 3 && !g.srv.Proto3 {
		return "the server does not accept HELLO 3"
	}
	for _, gt := range c.Gates() {
		if gt.Proto != 0 && gt.Proto != proto {
			return fmt.Sprintf("runs in RESP%d only", gt.Proto)
		}
		if !gt.MatchServer(info) {
			var want []string
			for _, s := range gt.Servers {
				want = append(want, s.Text)
			}
			return fmt.Sprintf("requires %s (server is %s %s)", strings.Join(want, " or "), g.srv.Family, g.srv.Version)
		}
		if gt.Debug && !g.srv.Debug {
			return "requires DEBUG (enable-debug-command is off)"
		}
		for _, name := range gt.Commands {
			ok, err := g.ask(ctx, "cmd "+name, 2, func(c *rawConn) (bool, error) {
				var args [][]byte
				args = append(args, []byte("COMMAND"), []byte("INFO"))
				args = append(args, []byte(strings.ToLower(strings.ReplaceAll(name, " ", "|"))))
				v, err := c.do(g.timeout, args...)
				return err == nil && v.Kind == resp.Array && len(v.Elems) == 1 && v.Elems[0].Kind == resp.Array, err
			})
			if err != nil {
				return fmt.Sprintf("could not check command %s: %v", name, err)
			}
			if !ok {
				return fmt.Sprintf("requires command %s (COMMAND INFO has no entry)", name)
			}
		}
		for _, p := range gt.Probes {
			env := &cases.Env{KeyPrefix: cases.KeyPrefix("clients probe " + p.Pos.String()), Captures: map[string][]byte{}}
			var args [][]byte
			var src []string
			for _, t := range p.Send {
				b, err := t.Expand(env)
				if err != nil {
					return fmt.Sprintf("probe at %s: %v", p.Pos, err)
				}
				args = append(args, b)
				src = append(src, t.Source())
			}
			ok, err := g.ask(ctx, fmt.Sprint("probe ", proto, src), proto, func(c *rawConn) (bool, error) {
				v, err := c.do(g.timeout, args...)
				return err == nil && !isErr(v), err
			})
			if err != nil {
				return fmt.Sprintf("probe at %s could not run: %v", p.Pos, err)
			}
			if !ok {
				return fmt.Sprintf("feature probe %v failed", src)
			}
		}
	}
	return ""
}

func (g *gates) ask(ctx context.Context, key string, proto int, f func(*rawConn) (bool, error)) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ok, found := g.cache[key]; found {
		return ok, nil
	}
	c, err := dialRaw(ctx, g.srv.Addr, proto, g.timeout)
	if err != nil {
		return false, err
	}
	defer c.close()
	ok, err := f(c)
	if err != nil {
		return false, err
	}
	g.cache[key] = ok
	return ok, nil
}
