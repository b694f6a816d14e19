package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// endpoint is where a run sends its cases: how to reach the server
// (address, credentials, database, TLS) and the throwaway server started
// for this run, if any.
type endpoint struct {
	target.Config
	// spawned is the throwaway server started for this run, or nil.
	spawned throwaway
	// fromEnv is set when the target came from $REDIS_URL (see
	// noteTarget).
	fromEnv bool
}

// noteTarget says on w where a target taken from $REDIS_URL is, since no
// flag named it (the password is never shown).
func noteTarget(w io.Writer, t endpoint) {
	if t.fromEnv {
		fmt.Fprintf(w, "respcheck: target %s from $REDIS_URL (no --addr, -u or --server given)\n", t.Addr)
	}
}

// parseURL reads redis://[user:pass@]host[:port][/db]. As in redis-cli, a
// lone userinfo (redis://secret@host) is a password; redis://user:@host names
// a user whose password comes from --password-file or $REDISCLI_AUTH.
func parseURL(raw string) (endpoint, error) {
	var t endpoint
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the whole URL, password included: keep only
		// the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return t, fmt.Errorf("bad URL (redacted): %v", err)
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
	t.Addr = host
	if u.User != nil {
		t.Username = u.User.Username()
		t.Password, _ = u.User.Password()
		if _, set := u.User.Password(); !set {
			// redis://:pass@ and redis://pass@ both mean a password alone.
			t.Password, t.Username = t.Username, ""
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		if t.DB, err = strconv.Atoi(p); err != nil || t.DB < 0 {
			return t, fmt.Errorf("bad URL %q: database %q is not a number", redactURL(u), p)
		}
	}
	return t, nil
}

// targetFlags choose the server of every command that talks to one: an
// existing server (--addr, -u, $REDIS_URL) or a throwaway one (--server,
// --server-bin, else one found on PATH).
type targetFlags struct {
	addr         string
	url          string
	user         string
	serverBin    string
	server       string
	passwordFile string
	tls          tlsFlags
	// cluster is registered by the commands that run on a cluster.
	cluster clusterFlags
}

func (f *targetFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.addr, "addr", "", "target server `host:port`")
	fl.StringVarP(&f.url, "url", "u", "", "target server as redis://[user:pass@]host:port[/db], or rediss:// for TLS (default $REDIS_URL)")
	fl.StringVar(&f.user, "user", "", "ACL user name (password from $REDISCLI_AUTH)")
	fl.StringVar(&f.passwordFile, "password-file", "", "read the password from this `file` (first line) instead of $REDISCLI_AUTH")
	fl.StringVar(&f.serverBin, "server-bin", "", "start this redis-server or valkey-server `binary` as the throwaway target")
	fl.StringVar(&f.server, "server", "", "start this installed build (e.g. redis-8.6.3, see scripts/install-servers.sh --list) as the throwaway target; \"miniredis\" runs the embedded emulator, which needs nothing installed")
	f.tls.register(fl)
}

// open resolves the target and, when none is named, starts a throwaway
// server; stop ends it (and does nothing for an existing server). A server
// that cannot be started is an exit-3 error.
func (f targetFlags) open(ctx context.Context) (t endpoint, stop func(), err error) {
	if t, err = f.resolve(); err != nil {
		return t, nil, err
	}
	if t.Addr != "" {
		return t, func() {}, nil
	}
	var srv throwaway
	if f.cluster.primaries > 0 {
		srv, err = spawnCluster(ctx, f.serverBin, f.server, f.cluster)
	} else {
		srv, err = spawn(ctx, f.serverBin, f.server)
	}
	var ub *servers.UnknownBuildError
	if errors.As(err, &ub) {
		return t, nil, &exitError{code: exitUsage, err: err}
	}
	if err != nil {
		return t, nil, serverErr(err)
	}
	t.Addr, t.spawned = srv.Addr(), srv
	return t, func() { srv.Stop() }, nil
}

// resolve reads the target from --addr, -u or $REDIS_URL; an empty addr
// means "start a throwaway server". The password comes from the URL, else
// --password-file, else $REDISCLI_AUTH; it is never taken from a flag value,
// which other users could see in the process list.
func (f targetFlags) resolve() (endpoint, error) {
	var t endpoint
	if f.addr != "" && f.url != "" {
		return t, usageErr("--addr and -u both given: pick one")
	}
	if err := f.cluster.check(f); err != nil {
		return t, err
	}
	if (f.addr != "" || f.url != "") && (f.server != "" || f.serverBin != "") {
		return t, usageErr("--server/--server-bin start a throwaway server; --addr and -u name an existing one: pick one")
	}
	if f.addr != "" {
		if _, port, err := net.SplitHostPort(f.addr); err != nil || port == "" {
			return t, usageErr("bad --addr %q: want host:port", f.addr)
		}
	}
	useTLS := f.tls.used()
	switch {
	case f.addr != "":
		t.Addr = f.addr
	default:
		raw := f.url
		fromEnv := false
		if raw == "" && f.serverBin == "" && f.server == "" && f.cluster.primaries == 0 {
			raw, fromEnv = os.Getenv("REDIS_URL"), true
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
		t.fromEnv = fromEnv
	}
	if f.user != "" {
		t.Username = f.user
	}
	if t.Password == "" && f.passwordFile != "" {
		b, err := os.ReadFile(f.passwordFile)
		if err != nil {
			return t, usageErr("--password-file: %v", err)
		}
		t.Password, _, _ = strings.Cut(strings.TrimRight(string(b), "\r\n"), "\n")
	}
	if t.Password == "" {
		t.Password = os.Getenv("REDISCLI_AUTH")
	}
	if useTLS {
		host, _, err := net.SplitHostPort(t.Addr)
		if err != nil {
			return t, usageErr("bad address %q: %v", t.Addr, err)
		}
		if t.TLS, err = f.tls.config(host); err != nil {
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
	b, err := findBuild(bin, name)
	if err != nil {
		return nil, err
	}
	return servers.Start(ctx, b, servers.Options{})
}

// findBuild is the build of --server-bin, else --server NAME, else the one
// on PATH (else the newest installed).
func findBuild(bin, name string) (servers.Build, error) {
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
	return b, err
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
