package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// runUserPatterns are the key and channel patterns of a run's ACL user:
// every key and channel a shared run uses is named "rc:{id}:..."
// (cases.KeyPrefix), but the channel of RESP2 tracking's invalidation
// messages, which the guard lets a case subscribe to.
var runUserPatterns = []string{"~rc:{*", "&rc:{*", "&__redis__:invalidate"}

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
var runUserSelectors = []string{"(%R~* +sort +sort_ro)", "(&* +psubscribe)"}

// RunUser is an ACL user a run creates on a shared server and
// authenticates its own connections as, so that the server itself refuses
// (NOPERM) what the run's guard exists to refuse: a key or channel
// outside the run's namespace (runUserPatterns; in scripts too, which the
// server checks call by call) and the commands the caller
// denies. It exists on every node of a cluster (ACL users are per node);
// Drop deletes it.
type RunUser struct {
	// Name is the user's name, "respcheck-run-" and the run's ID.
	Name string
	// Rules are the ACL SETUSER rules it was given, the password left out
	// ("on", the patterns, "+@all", each denial, then runUserSelectors).
	Rules []string
	// admins reach each node with the credentials the run was given.
	admins []Config
}

// CreateRunUser creates the ACL user name on every node of t (its
// topology's nodes, or t itself), with a random password, the keys and
// channels of runUserPatterns, the commands of the user t's credentials
// name (ACL GETUSER's "commands": "+@all" for the default user, so that
// the run user never may run what they may not) but deny ("flushall",
// "config|set": each kept only where the server's COMMAND INFO lists the
// command and subcommand, since ACL SETUSER refuses a name it does not
// know), and switches t's credentials to it: every connection dialled
// from t (or NodeConfig) afterwards is the user's. The user is checked
// with a connection of its own first.
//
// An error (the server has no ACL, as miniredis v2.40.0; the credentials
// may not run ACL SETUSER, as on managed services; a node refused) leaves
// t and every node as they were. ACL SETUSER applies its rules all or
// none (Redis 7.0+, Valkey 7.2+).
func (t *Target) CreateRunUser(ctx context.Context, name string, deny []string) (*RunUser, error) {
	admins := []Config{t.Config}
	if topo := t.Current(); topo != nil {
		admins = admins[:0]
		for _, n := range topo.Nodes() {
			admins = append(admins, t.NodeConfig(n.Addr))
		}
	}
	own, dbs, err := ownCommandRules(ctx, admins[0])
	if err != nil {
		return nil, err
	}
	if dbs {
		// Valkey 9's database rules: SELECT, MOVE, SWAPDB, COPY ... DB
		// and FLUSHALL reach other databases ("NOPERM No permissions to
		// access database", Valkey 9.1.2).
		own = append(own, "resetdbs", "db="+strconv.Itoa(t.Config.DB))
	}
	rules, err := knownDenials(ctx, admins[0], deny)
	if err != nil {
		return nil, err
	}
	rules = slices.Concat([]string{"on"}, runUserPatterns, own, rules, runUserSelectors)
	pass, err := password()
	if err != nil {
		return nil, err
	}
	u := &RunUser{Name: name, Rules: rules}
	setuser := append([]string{"ACL", "SETUSER", name, "reset", ">" + pass}, rules...)
	for _, cfg := range admins {
		_, err := cfg.do(ctx, "ACL SETUSER", setuser...)
		if err == nil {
			u.admins = append(u.admins, cfg)
			err = cfg.asUser(name, pass).ping(ctx)
		}
		if err != nil {
			u.Drop(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("%s: %w", cfg.Addr, err)
		}
	}
	t.Config = t.Config.asUser(name, pass)
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

// ownCommandRules returns the command rules of the user c authenticates
// as (ACL WHOAMI, then ACL GETUSER's "commands", split at spaces: "+@all",
// "+@all -command|getkeys"), and whether the server has database rules
// (ACL GETUSER has "databases": Valkey 9.0+).
func ownCommandRules(ctx context.Context, c Config) (rules []string, dbs bool, err error) {
	cn, err := c.Dial(ctx, 2)
	if err != nil {
		return nil, false, err
	}
	defer cn.Close()
	me, err := cn.check("ACL WHOAMI", "ACL", "WHOAMI")
	if err != nil {
		return nil, false, err
	}
	v, err := cn.check("ACL GETUSER", "ACL", "GETUSER", string(me.Str))
	if err != nil {
		return nil, false, err
	}
	for i := 0; i+1 < len(v.Elems); i += 2 { // RESP2: name, value, ...
		switch string(v.Elems[i].Str) {
		case "commands":
			rules = strings.Fields(string(v.Elems[i+1].Str))
		case "databases":
			dbs = true
		}
	}
	if len(rules) == 0 {
		return nil, false, fmt.Errorf("ACL GETUSER %s: no commands field", me.Str)
	}
	return rules, dbs, nil
}

// password is 32 random bytes in hex.
func password() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// knownDenials returns the rules of deny ("-flushall", "-config|set",
// "+debug|protocol": a sign, a command and perhaps a subcommand or, for
// a command without subcommands, a first argument that "+" allows) that
// the server at c can take, lower case, in deny's order: those whose
// command COMMAND INFO lists and whose subcommand it lists too (or, with
// "+", whose command has none). What the server does not know it cannot
// run, and ACL SETUSER refuses the name.
func knownDenials(ctx context.Context, c Config, deny []string) ([]string, error) {
	var names []string
	for _, d := range deny {
		name, _, _ := strings.Cut(strings.ToLower(d[1:]), "|")
		names = append(names, name)
	}
	v, err := c.do(ctx, "COMMAND INFO", append([]string{"COMMAND", "INFO"}, names...)...)
	if err != nil {
		return nil, err
	}
	if v.Kind != resp.Array || len(v.Elems) != len(names) {
		return nil, errors.New("COMMAND INFO: not one entry a command")
	}
	// subs holds, for each command the server knows, its subcommands
	// ("config|set"; Redis 7.0+ and Valkey 7.2+ list them tenth).
	subs := map[string][]string{}
	for _, e := range v.Elems {
		if len(e.Elems) == 0 {
			continue // a nil entry: an unknown command
		}
		name := strings.ToLower(string(e.Elems[0].Str))
		subs[name] = []string{}
		if len(e.Elems) > 9 {
			for _, s := range e.Elems[9].Elems {
				if len(s.Elems) > 0 {
					subs[name] = append(subs[name], strings.ToLower(string(s.Elems[0].Str)))
				}
			}
		}
	}
	var rules []string
	for i, d := range deny {
		d = strings.ToLower(d)
		list, known := subs[names[i]]
		_, sub, hasSub := strings.Cut(d, "|")
		switch {
		case !known:
		case !hasSub, slices.Contains(list, names[i]+"|"+sub), len(list) == 0 && d[0] == '+':
			rules = append(rules, d)
		}
	}
	return rules, nil
}
