package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// identify asks the target who it is: INFO server (redis_version,
// valkey_version, server_name, redis_mode), HELLO 3 acceptance and whether
// DEBUG is enabled.
func identify(ctx context.Context, d *dialer) (Server, error) {
	s := Server{Addr: d.addr}
	c, err := d.dial(ctx, "identify", 2)
	if err != nil {
		return s, err
	}
	defer c.close()
	v, err := c.roundTrip(d.timeout, "INFO", "server")
	if err != nil {
		if d.tls == nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
			return s, fmt.Errorf("INFO server: %w: the server closed the connection at once (a TLS port? use rediss:// or --tls)", err)
		}
		return s, fmt.Errorf("INFO server: %w", err)
	}
	if isError(v) {
		// Emulators such as miniredis have no INFO server: HELLO 3 names the
		// server and its version.
		if hs, err := identifyByHello(ctx, d); err == nil {
			s.Family, s.Version, s.Proto3 = hs.family, hs.version, true
			return s, nil
		}
		msg := fmt.Sprintf("INFO server: server replied %s", resp.Escape(v.Raw))
		if code, _, _ := strings.Cut(string(v.Str), " "); code == "NOAUTH" || code == "WRONGPASS" {
			msg += " (give the password with REDISCLI_AUTH, --password-file or -u redis://user:pass@host)"
		}
		return s, errors.New(msg)
	}
	fields := parseInfo(v.Str)
	s.RedisVersion = fields["redis_version"]
	s.Mode = fields["redis_mode"]
	s.Family, s.Version = "redis", s.RedisVersion
	// Valkey 8.0.1 and 9.1.2 answer redis_version:7.2.4 for compatibility and
	// carry their own version in valkey_version with server_name:valkey.
	if vv, ok := fields["valkey_version"]; ok || fields["server_name"] == "valkey" {
		s.Family, s.Version = "valkey", vv
	}
	if s.Version == "" {
		return s, fmt.Errorf("INFO server has no redis_version or valkey_version line")
	}
	if _, err := cases.ParseVersion(s.Version); err != nil {
		return s, fmt.Errorf("INFO server: %v: version selectors could not be matched", err)
	}
	v, err = c.roundTrip(d.timeout, "DEBUG", "SLEEP", "0")
	if err != nil {
		return s, fmt.Errorf("DEBUG SLEEP 0: %w", err)
	}
	s.Debug = v.Kind == resp.SimpleString
	c3, err := d.dial(ctx, "identify3", 3)
	if err == nil {
		s.Proto3 = true
		c3.close()
	} else if _, ok := err.(*errServer); !ok {
		return s, err
	}
	return s, nil
}

type helloID struct{ family, version string }

// identifyByHello reads the server and version fields of HELLO 3's map.
func identifyByHello(ctx context.Context, d *dialer) (helloID, error) {
	var id helloID
	c, err := d.dial(ctx, "identify", 2)
	if err != nil {
		return id, err
	}
	defer c.close()
	v, err := c.roundTrip(d.timeout, "HELLO", "3")
	if err != nil {
		return id, err
	}
	if v.Kind != resp.Map {
		return id, fmt.Errorf("HELLO 3 replied %s", resp.Escape(v.Raw))
	}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		switch string(v.Elems[i].Str) {
		case "server":
			id.family = string(v.Elems[i+1].Str)
		case "version":
			id.version = string(v.Elems[i+1].Str)
		}
	}
	if id.family == "" || id.version == "" {
		return id, fmt.Errorf("HELLO 3 names no server and version")
	}
	return id, nil
}

// parseInfo reads "key:value" lines of an INFO reply.
func parseInfo(b []byte) map[string]string {
	m := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

func (s Server) info(proto int) cases.ServerInfo {
	v, _ := cases.ParseVersion(s.Version)
	return cases.ServerInfo{Family: s.Family, Version: v, Proto: proto}
}

// gateCache remembers answers about the server that gates ask for: which
// commands exist (COMMAND INFO) and which probes succeed, per protocol.
type gateCache struct {
	d        *dialer
	mu       sync.Mutex
	commands map[string]bool
	infos    map[string]cmdInfo
	probes   map[string]probeResult
}

type probeResult struct {
	ok     bool
	detail string
	err    error
}

// hasCommand reports whether COMMAND INFO name returns an entry.
// Subcommands are written "CONFIG|GET" or "CONFIG GET".
func (g *gateCache) hasCommand(ctx context.Context, name string) (bool, error) {
	key := strings.ToUpper(strings.ReplaceAll(name, " ", "|"))
	g.mu.Lock()
	ok, found := g.commands[key]
	g.mu.Unlock()
	if found {
		return ok, nil
	}
	c, err := g.d.dial(ctx, "gate", 2)
	if err != nil {
		return false, err
	}
	defer c.close()
	v, err := c.roundTrip(g.d.timeout, "COMMAND", "INFO", strings.ToLower(key))
	if err != nil {
		return false, err
	}
	// A known command gives *1 with its entry; an unknown one *1 holding a
	// nil ($-1 in RESP2 on Redis 7.0.15 and Valkey 8.0.1).
	ok = v.Kind == resp.Array && len(v.Elems) == 1 && v.Elems[0].Kind == resp.Array
	g.mu.Lock()
	g.commands[key] = ok
	g.mu.Unlock()
	return ok, nil
}

// cmdInfo is what COMMAND INFO says of a command's arguments.
type cmdInfo struct {
	known    bool
	arity    int // > 0 exact, < 0 at least -arity (the name included)
	firstKey int // 0: no key arguments
	movable  bool
}

// commandInfo returns (and caches) COMMAND INFO of a command name.
func (g *gateCache) commandInfo(ctx context.Context, name string) (cmdInfo, error) {
	key := strings.ToLower(name)
	g.mu.Lock()
	info, found := g.infos[key]
	g.mu.Unlock()
	if found {
		return info, nil
	}
	c, err := g.d.dial(ctx, "gate", 2)
	if err != nil {
		return info, err
	}
	defer c.close()
	v, err := c.roundTrip(g.d.timeout, "COMMAND", "INFO", key)
	if err != nil {
		return info, err
	}
	if v.Kind == resp.Array && len(v.Elems) == 1 && v.Elems[0].Kind == resp.Array && len(v.Elems[0].Elems) >= 6 {
		e := v.Elems[0].Elems
		info = cmdInfo{known: true, arity: int(e[1].Int), firstKey: int(e[3].Int)}
		for _, f := range e[2].Elems {
			if string(f.Str) == "movablekeys" {
				info.movable = true
			}
		}
	}
	g.mu.Lock()
	g.infos[key] = info
	g.mu.Unlock()
	return info, nil
}

// probe runs a probe once per protocol: the feature is present iff the reply
// is not an error.
func (g *gateCache) probe(ctx context.Context, p *cases.Probe, proto int, timeout time.Duration) probeResult {
	var src []string
	for _, t := range p.Send {
		src = append(src, t.Source())
	}
	key := fmt.Sprint(proto, src)
	g.mu.Lock()
	r, found := g.probes[key]
	g.mu.Unlock()
	if found {
		return r
	}
	r = g.runProbe(ctx, p, proto, timeout)
	g.mu.Lock()
	g.probes[key] = r
	g.mu.Unlock()
	return r
}

func (g *gateCache) runProbe(ctx context.Context, p *cases.Probe, proto int, timeout time.Duration) probeResult {
	env := &cases.Env{KeyPrefix: cases.KeyPrefix("probe " + p.Pos.String()), Captures: map[string][]byte{}}
	args := make([][]byte, len(p.Send))
	for i, t := range p.Send {
		b, err := t.Expand(env)
		if err != nil {
			return probeResult{err: err}
		}
		args[i] = b
	}
	c, err := g.d.dial(ctx, "probe", proto)
	if err != nil {
		return probeResult{err: err}
	}
	defer c.close()
	if err := c.write(timeout, resp.AppendCommand(nil, args...)); err != nil {
		return probeResult{err: err}
	}
	v, err := c.readReply(timeout, func(resp.Value) bool { return true })
	if err != nil {
		return probeResult{err: err}
	}
	r := probeResult{ok: !isError(v), detail: string(v.Str)}
	// Remove whatever the probe wrote.
	if _, err := deleteKeys(c, env.KeyPrefix, timeout); err != nil {
		return probeResult{err: err}
	}
	return r
}
