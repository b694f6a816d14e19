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

	"github.com/respcheck/respcheck/runner/golden"
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
	// seeds are the addresses of --addr A,B or of several -u URLs (nil
	// for one): the nodes of a cluster to discover it from, tried in order
	// by open (target.FirstSeed), which sets Addr to the first that
	// answers and notes why each one before it was skipped.
	seeds []string
	notes []string
}

// printNotes writes the target's notes (skipped seeds, a target from
// $REDIS_URL) to w.
func (t endpoint) printNotes(w io.Writer) {
	for _, n := range t.notes {
		fmt.Fprintln(w, "respcheck: note: "+n)
	}
}

// pickSeed sets t.Addr to the first of t.seeds that answers (see
// target.FirstSeed); none answering is an exit-3 error naming each.
func (t *endpoint) pickSeed(ctx context.Context) error {
	if len(t.seeds) < 2 {
		return nil
	}
	cfg, notes, err := target.FirstSeed(ctx, t.Config, t.seeds)
	t.notes = append(t.notes, notes...)
	if err != nil {
		return serverErr(err)
	}
	t.Config = cfg
	return nil
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
	urls         []string
	user         string
	serverBin    string
	server       string
	passwordFile string
	tls          tlsFlags
	// cluster is registered by the commands that run on a cluster.
	cluster clusterFlags
}

func (f *targetFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.addr, "addr", "", "target server `host:port`; a comma-separated list names seed nodes of a cluster, the first that answers is used")
	fl.StringSliceVarP(&f.urls, "url", "u", nil, "target server as redis://[user:pass@]host:port[/db], or rediss:// for TLS (default $REDIS_URL); several (repeated or comma-separated, same credentials, database and scheme) are seed nodes of a cluster")
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
		return t, func() {}, t.pickSeed(ctx)
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
	if err != nil && ctx.Err() != nil {
		// Ctrl-C while the throwaway server or cluster started.
		return t, nil, &exitError{code: exitInterrupted, err: errors.New("interrupted while starting the throwaway server; nothing was run")}
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
	if f.addr != "" && len(f.urls) > 0 {
		return t, usageErr("--addr and -u both given: pick one")
	}
	if err := f.cluster.check(f); err != nil {
		return t, err
	}
	if f.named() && (f.server != "" || f.serverBin != "") {
		return t, usageErr("--server/--server-bin start a throwaway server; --addr and -u name an existing one: pick one")
	}
	useTLS := f.tls.used()
	switch {
	case f.addr != "":
		for _, a := range strings.Split(f.addr, ",") {
			if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
				return t, usageErr("bad --addr %q: want host:port (or host:port,host:port,... for seed nodes)", a)
			}
			t.seeds = append(t.seeds, a)
		}
		t.Addr = t.seeds[0]
	default:
		raws := f.urls
		fromEnv := false
		if len(raws) == 0 && f.serverBin == "" && f.server == "" && f.cluster.primaries == 0 && os.Getenv("REDIS_URL") != "" {
			raws, fromEnv = strings.Split(os.Getenv("REDIS_URL"), ","), true
		}
		if len(raws) == 0 {
			if useTLS {
				return t, usageErr("TLS flags need --addr or a rediss:// URL")
			}
			return t, nil
		}
		var err error
		if t, err = parseURLs(raws); err != nil {
			return t, err
		}
		useTLS = useTLS || strings.HasPrefix(raws[0], "rediss://")
		if fromEnv {
			// No flag named it: say where the target came from (the
			// password is never shown).
			t.notes = append(t.notes, fmt.Sprintf("target %s from $REDIS_URL (no --addr, -u or --server given)", t.Addr))
		}
	}
	if len(t.seeds) < 2 {
		t.seeds = nil
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

// parseURLs parses -u URLs: one target, or seed nodes of a cluster, which
// must agree on everything but the host and port.
func parseURLs(raws []string) (endpoint, error) {
	var first endpoint
	for i, raw := range raws {
		t, err := parseURL(raw)
		if err != nil {
			return t, usageErr("%v", err)
		}
		if i == 0 {
			first = t
		} else if t.Username != first.Username || t.Password != first.Password || t.DB != first.DB ||
			strings.HasPrefix(raw, "rediss://") != strings.HasPrefix(raws[0], "rediss://") {
			return t, usageErr("the -u seed URLs differ in more than host:port (user, password, database or scheme): give every seed the same")
		}
		first.seeds = append(first.seeds, t.Addr)
	}
	return first, nil
}

// named reports whether the target is an existing server (--addr, -u).
func (f targetFlags) named() bool { return f.addr != "" || len(f.urls) > 0 }

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

// recordedWith is the target as flags to give respcheck record again
// (golden.Server.Target): "" for --server BUILD (the golden names the
// build), else --addr, -u (each URL without its password; $REDIS_URL's
// when it named the target) or --server-bin, then --user,
// --password-file and the TLS flags as given. A password itself is never
// written: it comes from $REDISCLI_AUTH or the password file.
func (f targetFlags) recordedWith() string {
	var out []string
	add := func(flag, v string) { out = append(out, flag, golden.ShellQuote(v)) }
	urls := f.urls
	if f.addr == "" && len(urls) == 0 && f.serverBin == "" && f.server == "" && f.cluster.primaries == 0 && os.Getenv("REDIS_URL") != "" {
		urls = strings.Split(os.Getenv("REDIS_URL"), ",")
	}
	switch {
	case f.addr != "":
		add("--addr", f.addr)
	case len(urls) > 0:
		for _, raw := range urls {
			if u, err := url.Parse(raw); err == nil && u.User != nil {
				u.User = url.User(u.User.Username())
				raw = u.String()
			}
			add("-u", raw)
		}
	case f.serverBin != "":
		add("--server-bin", f.serverBin)
	default:
		return ""
	}
	if f.user != "" {
		add("--user", f.user)
	}
	if f.passwordFile != "" {
		add("--password-file", f.passwordFile)
	}
	t := f.tls
	if t.enable {
		out = append(out, "--tls")
	}
	for _, fl := range []struct{ name, v string }{{"--tls-ca", t.ca}, {"--tls-cert", t.cert}, {"--tls-key", t.key}, {"--tls-server-name", t.serverName}} {
		if fl.v != "" {
			add(fl.name, fl.v)
		}
	}
	if t.insecure {
		out = append(out, "--insecure")
	}
	return strings.Join(out, " ")
}
