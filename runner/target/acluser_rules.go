package target

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// givenUser is what ACL GETUSER says of the user a run's credentials
// name.
type givenUser struct {
	name string
	// commands are its command rules ("+@all -command|getkeys").
	commands []string
	// keys, channels and databases are its root patterns ("~*", "&*";
	// databases "alldbs" on Valkey 9, "" where the server has no
	// database rules); selectors is set when it has any.
	keys, channels, databases string
	selectors                 bool
}

// runUserRules returns the ACL SETUSER rules of a run's user (see
// CreateRunUser) on the server at c, whose credentials name the given
// user, for a run on database db.
func runUserRules(ctx context.Context, c Config, deny []string, db int) ([]string, error) {
	cn, err := c.Dial(ctx, 2)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	me, err := readGivenUser(cn)
	if err != nil {
		return nil, err
	}
	if err := me.unrestricted(); err != nil {
		return nil, err
	}
	denials, err := knownDenials(cn, deny)
	if err != nil {
		return nil, err
	}
	rules := slices.Concat([]string{"on"}, runUserPatterns, me.commands)
	if me.databases != "" {
		// Valkey 9's database rules: SELECT, MOVE, SWAPDB, COPY ... DB
		// and FLUSHALL reach other databases ("NOPERM No permissions to
		// access database", Valkey 9.1.2).
		rules = append(rules, "resetdbs", "db="+strconv.Itoa(db))
	}
	for _, d := range denials {
		if d[0] == '-' || me.may(cn, strings.Split(d[1:], "|")...) {
			rules = append(rules, d)
		}
	}
	for _, s := range runUserSelectors {
		sel := []string{s.scope}
		for _, cmd := range s.cmds {
			if me.may(cn, cmd, "x") {
				sel = append(sel, "+"+cmd)
			}
		}
		if len(sel) > 1 {
			rules = append(rules, "("+strings.Join(sel, " ")+")")
		}
	}
	return rules, nil
}

// readGivenUser reads the user cn is authenticated as (ACL WHOAMI, ACL
// GETUSER).
func readGivenUser(cn *Conn) (givenUser, error) {
	me, err := cn.check("ACL WHOAMI", "ACL", "WHOAMI")
	if err != nil {
		return givenUser{}, err
	}
	u := givenUser{name: string(me.Str)}
	v, err := cn.check("ACL GETUSER", "ACL", "GETUSER", u.name)
	if err != nil {
		return givenUser{}, err
	}
	for i := 0; i+1 < len(v.Elems); i += 2 { // RESP2: name, value, ...
		val := v.Elems[i+1]
		switch string(v.Elems[i].Str) {
		case "commands":
			u.commands = strings.Fields(string(val.Str))
		case "keys":
			u.keys = string(val.Str)
		case "channels":
			u.channels = string(val.Str)
		case "databases":
			u.databases = string(val.Str)
		case "selectors":
			u.selectors = len(val.Elems) > 0
		}
	}
	if len(u.commands) == 0 {
		return givenUser{}, fmt.Errorf("ACL GETUSER %s: no commands field", u.name)
	}
	return u, nil
}

// unrestricted refuses a given user that reaches only some keys, channels
// or databases, or has selectors: the run user, whose keys, channels,
// database and selectors are its own, would not be a restriction of it.
func (u givenUser) unrestricted() error {
	switch {
	case u.keys != "~*":
		return fmt.Errorf("the user %s reaches the keys %q, not every key: no ACL user of the run could be a restriction of it", u.name, u.keys)
	case u.channels != "&*":
		return fmt.Errorf("the user %s reaches the channels %q, not every channel: no ACL user of the run could be a restriction of it", u.name, u.channels)
	case u.databases != "" && u.databases != "alldbs":
		return fmt.Errorf("the user %s reaches the databases %q, not every database: no ACL user of the run could be a restriction of it", u.name, u.databases)
	case u.selectors:
		return fmt.Errorf("the user %s has selectors: no ACL user of the run could be a restriction of it", u.name)
	}
	return nil
}

// may reports whether the given user may run args (ACL DRYRUN: "+OK", or
// a bulk string saying why not).
func (u givenUser) may(cn *Conn, args ...string) bool {
	v, err := cn.Do(append([]string{"ACL", "DRYRUN", u.name}, args...)...)
	return err == nil && v.Kind == resp.SimpleString && string(v.Str) == "OK"
}

// knownDenials returns the rules of deny ("-flushall", "-config|set",
// "+debug|protocol": a sign, a command and perhaps a subcommand or, for
// a command without subcommands, a first argument that "+" allows) that
// the server cn is connected to can take, lower case, in deny's order:
// those whose command COMMAND INFO lists and whose subcommand it lists
// too (or, with "+", whose command has none). What the server does not
// know it cannot run, and ACL SETUSER refuses the name.
func knownDenials(cn *Conn, deny []string) ([]string, error) {
	var names []string
	for _, d := range deny {
		name, _, _ := strings.Cut(strings.ToLower(d[1:]), "|")
		names = append(names, name)
	}
	v, err := cn.check("COMMAND INFO", append([]string{"COMMAND", "INFO"}, names...)...)
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
