package clients

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
)

// A CLI process is reused by the next case connection of its driver and
// protocol when the case that had it left nothing behind (cliReusable):
// its loop's `connect HOST PORT` (src/redis-cli.c repl(), cliConnect with
// CC_FORCE) frees the old connection, resets the loop's database number,
// MULTI and subscribed state, and opens the new one as a start does (AUTH
// when given, HELLO 3 for -3). Starting a process costs 40-90 ms of CPU
// (redis-cli 7.0.15 also fetches COMMAND DOCS, 242 KB, at every start);
// a connect costs 1-2 ms (100 of each, redis-cli 7.0.15, 8.6.3 and
// valkey-cli 9.1.2 against redis-8.6.3 on 127.0.0.1: 8.9/5.0/4.6 s for the
// starts, 0.2/0.1/0.1 s for the connects).

// cliIdle is how long an unused process waits for its next case before it
// is stopped, and cliPoolMax how many wait per driver and protocol.
const (
	cliIdle    = 5 * time.Second
	cliPoolMax = 16
)

// cliPool keeps one driver's idle processes, by protocol.
type cliPool struct {
	mu   sync.Mutex
	idle map[int][]*cliIdleProc
}

type cliIdleProc struct {
	p     *cliProc
	timer *time.Timer
}

// get returns a process connected to host:port in proto: an idle one
// that connected cleanly, or a new one started with args.
func (d *cliDriver) get(ctx context.Context, proto int, host, port string, args []string) (*cliProc, error) {
	for {
		p := d.pool.take(proto)
		if p == nil {
			break
		}
		out, err := p.run(ctx, d.tool.name, "connect "+host+" "+port+"\n")
		if stderr := strings.TrimSpace(p.drainStderr()); err == nil && out == "" && stderr == "" {
			return p, nil
		}
		p.stop(0)
	}
	return startCLI(d.tool.bin, args)
}

// take removes an idle process of proto from the pool, or returns nil.
func (pl *cliPool) take(proto int) *cliProc {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for ps := pl.idle[proto]; len(ps) > 0; ps = pl.idle[proto] {
		ip := ps[len(ps)-1]
		pl.idle[proto] = ps[:len(ps)-1]
		// A timer that already fired is stopping its process.
		if ip.timer.Stop() && !ip.p.exited() {
			return ip.p
		}
	}
	return nil
}

// put keeps p for the next case connection in proto, or stops it when
// the pool is full.
func (pl *cliPool) put(proto int, p *cliProc) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if len(pl.idle[proto]) >= cliPoolMax {
		go p.stop(time.Second)
		return
	}
	if pl.idle == nil {
		pl.idle = map[int][]*cliIdleProc{}
	}
	ip := &cliIdleProc{p: p}
	ip.timer = time.AfterFunc(cliIdle, func() {
		pl.mu.Lock()
		ps := pl.idle[proto]
		for i, x := range ps {
			if x == ip {
				pl.idle[proto] = append(ps[:i:i], ps[i+1:]...)
				break
			}
		}
		pl.mu.Unlock()
		p.stop(time.Second)
	})
	pl.idle[proto] = append(pl.idle[proto], ip)
}

// cliStateful are the commands after which a process is not reused: they
// change the loop's or the connection's state in ways a connect does not
// reset, or that the next case would see (a selected database is
// re-selected by cliConnect in some versions, a subscription or MONITOR
// keeps the loop waiting, HELLO, AUTH and CLIENT change the connection,
// SCRIPT DEBUG starts the loop's Lua debugger). A transaction is not
// among them: MULTI, EXEC, DISCARD, WATCH and UNWATCH change only the
// connection, which the connect replaces, and the loop's in_multi and
// database number, which cliConnect resets (config.in_multi = 0 and
// config.dbnum = 0 under CC_FORCE: src/redis-cli.c of Redis 7.0 through
// 8.6.3, valkey-cli.c of Valkey 8 and 9).
// HELLO is among them only for the builds whose connect keeps the loop's
// protocol (cliTool.helloStays).
var cliStateful = map[string]bool{
	"SUBSCRIBE": true, "PSUBSCRIBE": true, "SSUBSCRIBE": true,
	"UNSUBSCRIBE": true, "PUNSUBSCRIBE": true, "SUNSUBSCRIBE": true,
	"MONITOR": true, "HELLO": true, "SELECT": true, "AUTH": true, "RESET": true,
	"CLIENT": true, "QUIT": true, "SYNC": true, "PSYNC": true, "REPLICAOF": true,
	"SLAVEOF": true, "READONLY": true, "READWRITE": true, "ASKING": true,
	"SHUTDOWN": true, "SCRIPT": true, "CONNECT": true,
}

// cliReusable says whether a step's command and its outcome leave the
// process of t as a fresh one would be after its connect.
func cliReusable(t *cliTool, args [][]byte, n Native) bool {
	if len(args) == 0 {
		return false
	}
	name := strings.ToUpper(string(args[0]))
	if cliStateful[name] && (name != "HELLO" || t.helloStays()) {
		return false
	}
	return n.Kind == outputKind
}

// helloStays says whether the loop of t keeps the protocol a HELLO
// switched to across a connect: HELLO sets its current_resp3 (the
// format of what it prints), which cliConnect resets in Redis 8.0.6's
// and 8.6.3's redis-cli.c and Valkey 8.1.1's and 9.1.2's valkey-cli.c
// ("config.current_resp3 = 0" before the new connection's handshake), and
// not in Redis 7.0's; Valkey 8.0.1's source was not read.
func (t *cliTool) helloStays() bool {
	v, err := cases.ParseVersion(t.version)
	if err != nil {
		return true
	}
	switch t.family {
	case "redis":
		return v.Compare(cases.Version{8, 0, 0}) < 0
	case "valkey":
		return v.Compare(cases.Version{8, 1, 0}) < 0
	}
	return true
}
