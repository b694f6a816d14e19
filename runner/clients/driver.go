package clients

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Driver is one client library: it opens sessions in the protocols it
// supports.
type Driver interface {
	// Library is the library's name, such as "go-redis" or
	// "redis-py-6.4.0"; a client is a library in one protocol.
	Library() string
	// Version is the library's version.
	Version() string
	// Protos lists the protocols the library speaks (2, 3).
	Protos() []int
	// API names the call each step goes through ("Conn.Do(ctx, args...)",
	// "client.sendCommand(args)"), for reports.
	API() string
	// Open starts a session against addr (the proxy) in proto.
	Open(ctx context.Context, addr string, proto int) (Session, error)
}

// Session is one library instance for one case. Its connections are pinned:
// each named connection of the case is one library connection.
type Session interface {
	// Conn returns the pinned connection for a case connection name,
	// opening it on first use.
	Conn(ctx context.Context, name string) (Conn, error)
	// Close releases every connection.
	Close() error
}

// Conn is one pinned library connection.
type Conn interface {
	// Do sends args through the library's generic command API and returns
	// the library's native value. It should return when ctx ends, but the
	// caller does not rely on it.
	Do(ctx context.Context, args [][]byte) Native
}

// wrapper is implemented by connections that can also run a step through a
// typed wrapper of the library (go-redis SetArgs, ...). n is the wrapper's
// result when call.Sent.
type wrapper interface {
	DoTyped(ctx context.Context, args [][]byte) (n Native, call typedCall)
}

// typedCall is what a typed wrapper did with a step's arguments.
type typedCall struct {
	// Wrapper is the library's method, as the report shows it ("SetArgs",
	// "set(name, value, ex=ex)"); empty when the library (or the adapter)
	// has none for the command.
	Wrapper string
	// Sent reports whether the wrapper was called (and the command sent).
	Sent bool
	// Limit is the API's limit on these arguments, citing its source (file
	// and version of the library). Not sent: why the wrapper cannot
	// express them (no parameter for an argument, a zero value read as
	// "unset"). Sent: how the wrapper respells them without changing what
	// they ask (SET's options in its own order, a digest's hex in lower
	// case); the step is inexpressible only if the proxy saw the same SET
	// (respelledOnly), else a wire mismatch.
	Limit string
}

// batcher is implemented by the connections of a configuration whose label
// ends in "/pipeline": it runs a group of commands through the library's
// pipeline API and a MULTI … EXEC block through its transaction API (see
// batch.go for which steps form them).
type batcher interface {
	// Pipeline sends cmds through the library's pipeline and returns,
	// per command and in order, what the library gives the user for it:
	// its value, or the error it raised or stored for it.
	Pipeline(ctx context.Context, cmds [][][]byte) []Native
	// Transaction runs cmds (without MULTI and EXEC) through the
	// library's transaction API. per has one Native per command of cmds:
	// what the library gives the user for it; exec, if not nil, is what
	// the library returned or raised for the transaction as a whole when
	// that is not per command (an EXECABORT error, the nil of an aborted
	// WATCH, or EXEC's own result where the library returns one).
	Transaction(ctx context.Context, cmds [][][]byte) (per []Native, exec *Native)
}

// sourceOf is where driver d's library comes from: the package and its
// version (an npm package, a Debian package, a Go module, a server build),
// as the driver or its adapter's hello says; "" when it does not say.
func sourceOf(d Driver) string {
	if s, ok := d.(interface{ Source() string }); ok {
		return s.Source()
	}
	return ""
}

// ClientName is "library/respN".
func ClientName(d Driver, proto int) string { return fmt.Sprintf("%s/resp%d", d.Library(), proto) }

// goLibraries are the built-in Go drivers, one per configuration, all
// served by the Go adapter (goadapter.go): each library's generic command
// API first, then the typed, pipeline, to-any, cluster and pub/sub
// configurations. A new Go client is one file with its goLibrary values and
// their entries here.
func goLibraries() []Driver {
	return []Driver{goRedisDriver, rueidisDriver, valkeyGoDriver, redigoDriver, radixDriver,
		goRedisTypedDriver, goRedisPipelineDriver, rueidisPipelineDriver, valkeyGoPipelineDriver,
		rueidisToAnyDriver, valkeyGoToAnyDriver, goRedisClusterDriver, rueidisClusterDriver, valkeyGoClusterDriver,
		goRedisPubsubDriver, rueidisPubsubDriver, valkeyGoPubsubDriver}
}

// Select filters drivers by a comma-separated list of library names (a name
// selects every library it prefixes up to a "-": "redis-py" selects
// "redis-py-4.3.4" and "redis-py-6.4.0", a "-" and a digit following it). "all" or "" selects all.
// A comma inside brackets belongs to the name: a configuration's options
// ("phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]").
func Select(ds []Driver, list string) ([]Driver, error) {
	if list == "" || list == "all" {
		return ds, nil
	}
	var out []Driver
	for _, name := range splitNames(list) {
		name = strings.TrimSpace(name)
		if name == "" {
			continue // "go-redis," or "a,,b"
		}
		found := false
		for _, d := range ds {
			if selects(name, d.Library()) {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
				found = true
			}
		}
		if !found {
			var same, libs []string
			for _, d := range ds {
				if f := family(d.Library()); f == family(name) {
					same = append(same, d.Library())
				} else if !slices.Contains(libs, f) {
					libs = append(libs, f)
				}
			}
			if len(same) > 0 {
				return nil, fmt.Errorf("unknown or unavailable client %q; of %s there are: %s (--list-clients lists every configuration)", name, family(name), strings.Join(same, ", "))
			}
			return nil, fmt.Errorf("unknown or unavailable client %q; the libraries are %s (--list-clients lists every configuration)", name, strings.Join(libs, ", "))
		}
	}
	return out, nil
}

// selects reports whether a client name selects the configuration label
// (see Select).
func selects(name, label string) bool {
	rest, isPrefix := strings.CutPrefix(label, name+"-")
	return label == name || isPrefix && rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// splitNames splits a comma-separated list of client names, leaving the
// commas inside a name's brackets alone.
func splitNames(list string) []string {
	var names []string
	depth, start := 0, 0
	for i, c := range list {
		switch c {
		case '[':
			depth++
		case ']':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				names = append(names, list[start:i])
				start = i + 1
			}
		}
	}
	return append(names, list[start:])
}

// isBatch reports whether d runs pipelines and transactions through its
// batcher (a "/pipeline" configuration).
func isBatch(d Driver) bool {
	b, ok := d.(interface{ isBatch() bool })
	return ok && b.isBatch()
}

func strArgs(args [][]byte) []string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = string(a)
	}
	return s
}

func anyArgs(args [][]byte) []any {
	s := make([]any, len(args))
	for i, a := range args {
		s[i] = string(a)
	}
	return s
}
