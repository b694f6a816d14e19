package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/runner/servers"
)

// target is where a run sends its cases.
type target struct {
	addr     string
	username string
	password string
	db       int
	// spawned is the throwaway server started for this run, or nil.
	spawned *servers.Server
}

// parseURL reads redis://[user:pass@]host[:port][/db].
func parseURL(raw string) (target, error) {
	var t target
	u, err := url.Parse(raw)
	if err != nil {
		return t, fmt.Errorf("bad URL: %v", err)
	}
	switch u.Scheme {
	case "redis":
	case "rediss":
		return t, fmt.Errorf("rediss:// (TLS) is not supported yet")
	default:
		return t, fmt.Errorf("bad URL %q: the scheme must be redis://", redactURL(u))
	}
	host := u.Host
	if host == "" {
		return t, fmt.Errorf("bad URL %q: no host", redactURL(u))
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "6379")
	}
	t.addr = host
	if u.User != nil {
		t.username = u.User.Username()
		t.password, _ = u.User.Password()
		if _, set := u.User.Password(); !set {
			// redis://:pass@ and redis://pass@ both mean a password alone.
			t.password, t.username = t.username, ""
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		if t.db, err = strconv.Atoi(p); err != nil || t.db < 0 {
			return t, fmt.Errorf("bad URL %q: database %q is not a number", redactURL(u), p)
		}
	}
	return t, nil
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// spawn starts a throwaway server: --server-bin, else --server NAME (an
// installed build, see scripts/install-servers.sh), else redis-server or
// valkey-server on PATH.
func spawn(ctx context.Context, bin, name string) (*servers.Server, error) {
	var b servers.Build
	var err error
	switch {
	case bin != "":
		b, err = servers.Identify(bin)
	case name != "":
		b, err = servers.Find(name)
	default:
		b, err = servers.LookPath()
		if err != nil {
			if inst, ierr := servers.Installed(); ierr == nil && len(inst) > 0 {
				b, err = inst[len(inst)-1], nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return servers.Start(ctx, b, servers.Options{})
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
