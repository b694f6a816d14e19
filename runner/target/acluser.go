package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// runUserPatterns are the key and channel patterns of a run's ACL user:
// every key and channel a shared run uses is named "rc:{id}:..."
// (cases.KeyPrefix), but the channel of RESP2 tracking's invalidation
// messages, which the guard lets a case subscribe to.
var runUserPatterns = []string{"~rc:{*", "&rc:{*", "&__redis__:invalidate"}

// selector is an ACL selector of a run's user: scope (keys or channels)
// for cmds.
type selector struct {
	scope string
	cmds  []string
}

// runUserSelectors widen a run user's rights for two forms the guard
// checks and the server could not take as the run's: SORT's BY and GET
// patterns, which Redis and Valkey run only for a user who may read
// every key ("ERR BY option of SORT denied due to insufficient ACL
// permissions", Redis 8.6.3, a SORT rc:{id}:key BY rc:{id}:w_* under
// ~rc:{*), and PSUBSCRIBE, whose pattern must equal one of the user's
// channel patterns ("NOPERM No permissions to access a channel" for
// rc:{id}:c* under &rc:{*). SORT may then read any key (not write one:
// STORE's key is the namespace's) and PSUBSCRIBE take any pattern: for
// those two the guard alone keeps a case to its own keys and channels.
// Each command is kept only where the given user may run it.
var runUserSelectors = []selector{{"%R~*", []string{"sort", "sort_ro"}}, {"&*", []string{"psubscribe"}}}

// RunUser is an ACL user a run creates on a shared server and
// authenticates its own connections as, so that the server itself refuses
// (NOPERM) much of what the run's guard exists to refuse: a key or
// channel outside the run's namespace (runUserPatterns; in scripts too,
// which the server checks call by call) and the commands the caller
// denies. It is a restriction of the user the run was given (never may
// it run what that user may not), exists on every node of a cluster (ACL
// users are per node), and Drop deletes it.
type RunUser struct {
	// Name is the user's name: the name CreateRunUser was given, a dash
	// and 8 random hex digits (two runs given one run ID each have their
	// own).
	Name string
	// Rules are the ACL SETUSER rules it was given, the password left out
	// ("on", the patterns, the given user's command rules, each denial,
	// then the selectors).
	Rules []string
	// admins reach each node with the credentials the run was given.
	admins []Config
}

// CreateRunUser creates an ACL user named after name on every node of t
// (its topology's nodes, or t itself), with a random password, the keys
// and channels of runUserPatterns, the commands of the user t's
// credentials name (ACL GETUSER's "commands": "+@all" for the default
// user) but deny ("-flushall", "-config|set"; "+debug|protocol", a first
// argument a denial leaves), each rule kept only where the server's
// COMMAND INFO lists its command and subcommand (ACL SETUSER refuses a
// name it does not know) and each "+" rule only where the given user may
// run it (ACL DRYRUN), and on Valkey 9 the run's database alone; then it
// switches t's credentials to it: every connection dialled from t (or
// NodeConfig) afterwards is the user's. The user is checked with a
// connection of its own first.
//
// An error leaves t and every node as they were: the server has no ACL
// (miniredis v2.40.0), the credentials may not run ACL WHOAMI, GETUSER,
// DRYRUN or SETUSER or COMMAND INFO (managed services), the given user
// reaches only some keys, channels or databases or has selectors (the
// run user could then not be a restriction of it), or a node refused.
// ACL SETUSER applies its rules all or none (Redis 7.0+, Valkey 7.2+).
func (t *Target) CreateRunUser(ctx context.Context, name string, deny []string) (*RunUser, error) {
	admins := []Config{t.Config}
	if topo := t.Current(); topo != nil {
		admins = admins[:0]
		for _, n := range topo.Nodes() {
			admins = append(admins, t.NodeConfig(n.Addr))
		}
	}
	rules, err := runUserRules(ctx, admins[0], deny, t.Config.DB)
	if err != nil {
		return nil, err
	}
	pass, err := randomHex(32)
	if err != nil {
		return nil, err
	}
	suffix, err := randomHex(4)
	if err != nil {
		return nil, err
	}
	u := &RunUser{Name: name + "-" + suffix, Rules: rules}
	setuser := append([]string{"ACL", "SETUSER", u.Name, "reset", ">" + pass}, rules...)
	for _, cfg := range admins {
		_, err := cfg.do(ctx, "ACL SETUSER", setuser...)
		if err == nil {
			u.admins = append(u.admins, cfg)
			err = cfg.asUser(u.Name, pass).ping(ctx)
		}
		if err != nil {
			u.Drop(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("%s: %w", cfg.Addr, err)
		}
	}
	t.Config = t.Config.asUser(u.Name, pass)
	return u, nil
}

// Drop deletes the user from every node it was created on (ACL DELUSER,
// which also closes the connections still authenticated as it), within
// 5 s a node; the first error is returned after every node was tried.
func (u *RunUser) Drop(ctx context.Context) error {
	var first error
	for _, cfg := range u.admins {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if _, err := cfg.do(cctx, "ACL DELUSER", "ACL", "DELUSER", u.Name); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", cfg.Addr, err)
		}
		cancel()
	}
	return first
}

// asUser is c authenticating as user with pass.
func (c Config) asUser(user, pass string) Config {
	c.Username, c.Password = user, pass
	return c
}

// do sends one command on a connection of its own and returns the reply;
// an error reply is a *ReplyError named name.
func (c Config) do(ctx context.Context, name string, args ...string) (resp.Value, error) {
	cn, err := c.Dial(ctx, 2)
	if err != nil {
		return resp.Value{}, err
	}
	defer cn.Close()
	return cn.check(name, args...)
}

// ping checks that c's credentials open a connection that answers PING.
func (c Config) ping(ctx context.Context) error {
	_, err := c.do(ctx, "PING", "PING")
	return err
}

// randomHex is n random bytes in hex.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
