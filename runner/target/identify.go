package target

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// Server is what the server said about itself before a run.
type Server struct {
	Addr string `json:"addr"`
	// Family is "redis" or "valkey" (server_name:valkey or a valkey_version
	// line in INFO server; Valkey 8.0.1 and 9.1.2 also report
	// redis_version:7.2.4), or HELLO 3's server field where INFO server is
	// an error (miniredis).
	Family  string `json:"family"`
	Version string `json:"version"`
	// RedisVersion is INFO's redis_version line as is.
	RedisVersion string `json:"redis_version"`
	// Mode is INFO's redis_mode (standalone, cluster, sentinel), or its
	// server_mode where there is no redis_mode (Valkey 9.1.2).
	Mode string `json:"mode,omitempty"`
	// Modules names the loaded modules (MODULE LIST), if any.
	Modules []string `json:"modules,omitempty"`
	// ModulesHidden reports that MODULE LIST was refused (an ACL user
	// without @admin): which modules are loaded is not known.
	ModulesHidden bool `json:"modules_hidden,omitempty"`
	// Debug reports that DEBUG is enabled (DEBUG SLEEP 0 answered +OK).
	Debug bool `json:"debug"`
	// Proto3 reports that the server accepted HELLO 3.
	Proto3 bool `json:"resp3"`
}

// Info is what gates match against: the family, the parsed version and a
// protocol.
func (s Server) Info(proto int) cases.ServerInfo {
	return cases.ServerInfo{Family: s.Family, Version: versionOf(s.Version), RedisVersion: s.RedisAPI(),
		Proto: proto, Cluster: s.Mode == "cluster"}
}

// KnownCrash returns c's known crash (a known difference that says
// crash) for the server in proto or in the other protocol, or nil: a
// crash declared for one protocol ("redis resp3") may well happen in the
// other, so a run that cannot start the server again, and the client
// view, which never sends such a case through libraries, skip it in both.
func (s Server) KnownCrash(c *cases.Case, proto int) *cases.Known {
	for _, p := range []int{proto, 5 - proto} {
		if k := c.KnownFor(s.Info(p)); k != nil && k.Crash {
			return k
		}
	}
	return nil
}

// RedisAPI returns the parsed redis_version: the Redis API version the
// server claims (see cases.ServerInfo.RedisVersion). A Redis server without
// one (identified by HELLO 3) claims its own version; anything else without
// one, none (the zero Version).
func (s Server) RedisAPI() cases.Version {
	if s.RedisVersion == "" && s.Family == "redis" {
		return versionOf(s.Version)
	}
	return versionOf(s.RedisVersion)
}

func versionOf(s string) cases.Version {
	v, _ := cases.ParseVersion(s)
	return v
}

// Identify asks the server who it is: INFO server (redis_version,
// valkey_version, server_name, redis_mode), else HELLO 3's server and
// version; whether DEBUG is enabled (DEBUG SLEEP 0), the modules (MODULE
// LIST) and whether HELLO 3 is accepted.
func Identify(ctx context.Context, cfg Config) (Server, error) {
	s := Server{Addr: cfg.Addr}
	c, err := cfg.Dial(ctx, 2)
	if err != nil {
		return s, err
	}
	defer c.Close()
	v, err := c.Do("INFO", "server")
	if err != nil {
		if cfg.TLS == nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
			return s, fmt.Errorf("INFO server: %w: the server closed the connection at once (a TLS port? use rediss:// or --tls)", err)
		}
		return s, fmt.Errorf("INFO server: %w", err)
	}
	if IsError(v) {
		return identifyByHello(ctx, cfg, s, v.Clone())
	}
	if err := s.fromInfo(v.Str); err != nil {
		return s, err
	}
	if v, err = c.Do("DEBUG", "SLEEP", "0"); err != nil {
		return s, fmt.Errorf("DEBUG SLEEP 0: %w", err)
	}
	s.Debug = v.Kind == resp.SimpleString
	if v, err = c.Do("MODULE", "LIST"); err == nil {
		s.Modules = moduleNames(v)
		s.ModulesHidden = IsError(v)
	}
	c3, err := cfg.Dial(ctx, 3)
	if err == nil {
		s.Proto3 = true
		c3.Close()
	} else if _, ok := err.(*ReplyError); !ok {
		return s, err
	}
	return s, nil
}

// fromInfo reads the family and version from INFO server's text.
func (s *Server) fromInfo(text []byte) error {
	fields := parseInfo(text)
	s.RedisVersion = fields["redis_version"]
	s.Mode = fields["redis_mode"]
	if s.Mode == "" {
		// Valkey 9.1.2 says server_mode:cluster and has no redis_mode line.
		s.Mode = fields["server_mode"]
	}
	s.Family, s.Version = "redis", s.RedisVersion
	// Valkey 8.0.1 and 9.1.2 answer redis_version:7.2.4 for compatibility and
	// carry their own version in valkey_version with server_name:valkey.
	if vv, ok := fields["valkey_version"]; ok || fields["server_name"] == "valkey" {
		s.Family, s.Version = "valkey", vv
	}
	if s.Version == "" {
		return fmt.Errorf("INFO server has no redis_version or valkey_version line")
	}
	if _, err := cases.ParseVersion(s.Version); err != nil {
		return fmt.Errorf("INFO server: %v: version selectors could not be matched", err)
	}
	return nil
}

// identifyByHello names a server whose INFO server is an error reply
// (emulators such as miniredis) by HELLO 3's server and version fields.
func identifyByHello(ctx context.Context, cfg Config, s Server, info resp.Value) (Server, error) {
	fail := func(why string) (Server, error) {
		msg := fmt.Sprintf("INFO server: server replied %s", resp.Escape(info.Raw))
		if code, _, _ := strings.Cut(string(info.Str), " "); code == "NOAUTH" || code == "WRONGPASS" {
			return s, errors.New(msg + " (give the password with REDISCLI_AUTH, --password-file or -u redis://user:pass@host)")
		}
		return s, fmt.Errorf("%s, and %s", msg, why)
	}
	c, err := cfg.Dial(ctx, 3)
	if err != nil {
		return fail(err.Error())
	}
	defer c.Close()
	_, v, err := resp.Parse(c.Hello)
	if err != nil || v.Kind != resp.Map {
		return fail("HELLO 3 replied " + resp.Escape(c.Hello))
	}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		switch string(v.Elems[i].Str) {
		case "server":
			s.Family = string(v.Elems[i+1].Str)
		case "version":
			s.Version = string(v.Elems[i+1].Str)
		}
	}
	if s.Family == "" || s.Version == "" {
		return fail("HELLO 3 names no server and version")
	}
	s.Proto3 = true
	return s, nil
}

// moduleNames reads the name fields of MODULE LIST's reply (an array of
// maps in RESP3, of flat name/value arrays in RESP2); nil for an error.
func moduleNames(v resp.Value) []string {
	var out []string
	for _, m := range v.Elems {
		for i := 0; i+1 < len(m.Elems); i += 2 {
			if string(m.Elems[i].Str) == "name" {
				out = append(out, string(m.Elems[i+1].Str))
			}
		}
	}
	return out
}

// parseInfo reads the "key:value" lines of an INFO reply; section headers
// ("# Server") and blank lines are skipped.
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
