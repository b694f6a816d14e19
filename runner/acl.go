package runner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Protection says how a Shared run kept to its own keys: the guard
// (always, unless AllowDestructive) and, where the credentials allow it,
// the run's own ACL user, under which the server itself refuses much of
// what the guard exists to refuse (target.RunUser; docs/running.md).
type Protection struct {
	// Guard is set when the shared-server guard checked every command.
	Guard bool `json:"guard"`
	// ACLUser is the name of the ACL user the run's connections
	// authenticated as ("respcheck-run-", the run ID, a dash and 8 random
	// hex digits), "" without one.
	ACLUser string `json:"acl_user,omitempty"`
	// ACLRules are its ACL SETUSER rules, the password left out ("on",
	// the key and channel patterns, "+@all", then the denials).
	ACLRules []string `json:"acl_rules,omitempty"`
	// ACLRefused says why the run has no ACL user: the server's refusal
	// of one of ACL WHOAMI, GETUSER, SETUSER or COMMAND INFO ("NOPERM
	// ...", "ERR unknown command 'ACL' ..."), a given user that reaches
	// only some keys, channels or databases, or Options.NoACLUser.
	ACLRefused string `json:"acl_refused,omitempty"`
	// ACLLeft is set when the user could not be deleted at the end (the
	// server stopped answering): delete it with ACL DELUSER.
	ACLLeft string `json:"acl_left,omitempty"`
}

// runUserDenials are the ACL rules a run's ACL user gets after the
// given user's command rules:
// every command of the destructive list (each listed subcommand; DEBUG
// but its read-only subcommands, as first-argument rules; KEYS stays: its
// pattern is checked by the guard) and the forms the guard refuses
// whatever their arguments (RANDOMKEY, ACL LIST and GETUSER, FUNCTION
// DUMP, CLUSTER GETKEYSINSLOT, HOTKEYS GET; SELECT but of the run's
// database). A "+" rule is kept where the given user may run it.
func runUserDenials(db int) []string {
	var rules []string
	for _, name := range slices.Sorted(maps.Keys(destructive)) {
		lower := strings.ToLower(name)
		switch subs := destructive[name]; {
		case name == "KEYS":
		case name == "DEBUG":
			rules = append(rules, "-debug")
			for _, sub := range slices.Sorted(maps.Keys(debugReadOnly)) {
				rules = append(rules, "+debug|"+strings.ToLower(sub))
			}
		case subs == nil:
			rules = append(rules, "-"+lower)
		default:
			for _, sub := range subs {
				rules = append(rules, "-"+lower+"|"+strings.ToLower(sub))
			}
		}
	}
	rules = append(rules, "-randomkey", "-acl|list", "-acl|getuser", "-function|dump", "-cluster|getkeysinslot", "-hotkeys|get")
	// SELECT of the run's database only (a first-argument rule).
	rules = append(rules, "-select")
	if db != 0 {
		rules = append(rules, "+select|"+strconv.Itoa(db))
	}
	return rules
}

// user is p's ACL user, "" without one (or p nil).
func (p *Protection) user() string {
	if p == nil {
		return ""
	}
	return p.ACLUser
}

// protect gives a guarded Shared run its ACL user (see Protection) on t
// and returns what the report says and the function that deletes the
// user at the end (it fills ACLLeft); nil without a user.
func (opts Options) protect(ctx context.Context, t *target.Target) (*Protection, func(*Protection)) {
	if !opts.Shared || opts.AllowDestructive {
		return nil, nil
	}
	p := &Protection{Guard: opts.guarded()}
	if opts.NoACLUser {
		p.ACLRefused = "not asked for (--no-acl-user)"
		return p, nil
	}
	u, err := t.CreateRunUser(ctx, "respcheck-run-"+opts.RunID, runUserDenials(opts.DB))
	if err != nil {
		p.ACLRefused = err.Error()
		return p, nil
	}
	p.ACLUser, p.ACLRules = u.Name, u.Rules
	return p, func(p *Protection) {
		if err := u.Drop(context.WithoutCancel(ctx)); err != nil {
			p.ACLLeft = err.Error()
		}
	}
}

// guardAuth refuses, on a run with an ACL user, an AUTH or HELLO ... AUTH
// (args; name upper case) that would authenticate the connection as
// another user that exists (ACL USERS, asked on a connection of its own):
// the rest of the case would run without the user's limits (an AUTH
// default with any password succeeds where the default user has
// nopass). One naming a user that does not exist goes on: the server
// answers WRONGPASS and the connection stays the run's.
func (x *caseRun) guardAuth(ctx context.Context, name string, args [][]byte) error {
	if x.aclUser == "" {
		return nil
	}
	var others []string
	for _, u := range authUsers(name, args) {
		if u != x.aclUser {
			others = append(others, u)
		}
	}
	if len(others) == 0 {
		return nil
	}
	cn, err := x.t.Dial(ctx, 2)
	if err == nil {
		defer cn.Close()
		var v resp.Value
		if v, err = cn.Do("ACL", "USERS"); err == nil {
			for _, user := range others {
				if slices.ContainsFunc(v.Elems, func(e resp.Value) bool { return string(e.Str) == user }) {
					return &refusal{fmt.Sprintf("sends %s as the user %s, which would leave the run's ACL user %s", name, resp.Escape([]byte(user)), x.aclUser)}
				}
			}
			return nil
		}
	}
	return &refusal{fmt.Sprintf("sends %s as another user than the run's ACL user %s, and ACL USERS cannot say whether it exists (%v)", name, x.aclUser, err)}
}

// authUsers are the users AUTH or HELLO ... AUTH (args, name upper
// case) authenticates as ("default" for AUTH with a password alone;
// every AUTH option of a HELLO, read as the server reads it:
// helloAuths), none for a HELLO without AUTH or a malformed command.
func authUsers(name string, args [][]byte) []string {
	switch {
	case name == "AUTH" && len(args) == 2:
		return []string{"default"}
	case name == "AUTH" && len(args) == 3:
		return []string{string(args[1])}
	case name == "HELLO":
		var users []string
		for _, a := range helloAuths(args) {
			users = append(users, string(args[a[0]]))
		}
		return users
	}
	return nil
}
