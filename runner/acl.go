package runner

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/runner/target"
)

// Protection says how a Shared run kept to its own keys: the guard
// (always, unless AllowDestructive) and, where the credentials allow ACL
// SETUSER, the run's own ACL user, under which the server refuses what
// the guard exists to refuse (target.RunUser).
type Protection struct {
	// Guard is set when the shared-server guard checked every command.
	Guard bool `json:"guard"`
	// ACLUser is the name of the ACL user the run's connections
	// authenticated as ("respcheck-run-" and the run ID), "" without one.
	ACLUser string `json:"acl_user,omitempty"`
	// ACLRules are its ACL SETUSER rules, the password left out ("on",
	// the key and channel patterns, "+@all", then the denials).
	ACLRules []string `json:"acl_rules,omitempty"`
	// ACLRefused says why the run has no ACL user: the server's refusal
	// of ACL SETUSER ("NOPERM ...", "ERR unknown command 'ACL' ..."), or
	// Options.NoACLUser.
	ACLRefused string `json:"acl_refused,omitempty"`
	// ACLLeft is set when the user could not be deleted at the end (the
	// server stopped answering): delete it with ACL DELUSER.
	ACLLeft string `json:"acl_left,omitempty"`
}

// runUserDenials are the ACL rules a run's ACL user gets after +@all:
// every command of the destructive list (each listed subcommand; DEBUG
// but its read-only subcommands, as first-argument rules; KEYS stays: its
// pattern is checked by the guard) and the forms the guard refuses
// whatever their arguments (RANDOMKEY, ACL LIST and GETUSER, FUNCTION
// DUMP, CLUSTER GETKEYSINSLOT, HOTKEYS GET; SELECT when the run uses
// database 0, as the run then never selects one itself).
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
	if db == 0 {
		rules = append(rules, "-select")
	}
	return rules
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
