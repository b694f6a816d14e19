package main

import (
	"context"
	"crypto/tls"
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
	tls      *tls.Config
	// spawned is the throwaway server started for this run, or nil.
	spawned throwaway
}

// parseURL reads redis://[user:pass@]host[:port][/db]. As in redis-cli, a
// lone userinfo (redis://secret@host) is a password; redis://user:@host names
// a user whose password comes from --password-file or $REDISCLI_AUTH.
func parseURL(raw string) (target, error) {
	var t target
	u, err := url.Parse(raw)
	if err != nil {
		return t, fmt.Errorf("bad URL: %v", err)
	}
	switch u.Scheme {
	case "redis", "rediss":
	default:
		return t, fmt.Errorf("bad URL %q: the scheme must be redis:// or rediss://", redactURL(u))
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

// resolveTarget reads the target from --addr, -u or $REDIS_URL; an empty
// addr means "start a throwaway server". The password comes from the URL,
// else --password-file, else $REDISCLI_AUTH; it is never taken from a flag
// value, which other users could see in the process list.
func resolveTarget(f runFlags) (target, error) {
	var t target
	useTLS := f.tls.used()
	switch {
	case f.addr != "":
		t.addr = f.addr
	default:
		raw := f.url
		if raw == "" && f.serverBin == "" && f.server == "" {
			raw = os.Getenv("REDIS_URL")
		}
		if raw == "" {
			if useTLS {
				return t, usageErr("TLS flags need --addr or a rediss:// URL")
			}
			return t, nil
		}
		var err error
		if t, err = parseURL(raw); err != nil {
			return t, usageErr("%v", err)
		}
		useTLS = useTLS || strings.HasPrefix(raw, "rediss://")
	}
	if f.user != "" {
		t.username = f.user
	}
	if t.password == "" && f.passwordFile != "" {
		b, err := os.ReadFile(f.passwordFile)
		if err != nil {
			return t, usageErr("--password-file: %v", err)
		}
		t.password, _, _ = strings.Cut(strings.TrimRight(string(b), "\r\n"), "\n")
	}
	if t.password == "" {
		t.password = os.Getenv("REDISCLI_AUTH")
	}
	if useTLS {
		host, _, err := net.SplitHostPort(t.addr)
		if err != nil {
			return t, usageErr("bad address %q: %v", t.addr, err)
		}
		if t.tls, err = f.tls.config(host); err != nil {
			return t, usageErr("%v", err)
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
func spawn(ctx context.Context, bin, name string) (throwaway, error) {
	if name == "miniredis" && bin == "" {
		return startMiniredis()
	}
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
