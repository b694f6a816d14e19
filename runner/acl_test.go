package runner_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
)

// runUserCase shows which user a shared run's connections are, and uses
// the two forms the run user's selectors exist for (SORT BY a pattern,
// PSUBSCRIBE to one in the namespace), which the guard lets through.
const runUserCase = `
suite: run user
cases:
  - name: who
    steps:
      - send: [ACL, WHOAMI]
        value: {type: blob string}
      - send: [RPUSH, "{key}", "2", "1"]
      - send: [SET, "{key:w_1}", "2"]
      - send: [SET, "{key:w_2}", "1"]
      - send: [SORT, "{key}", BY, "{key:w_}*"]
        value: {array: ["2", "1"]}
      - send: [PSUBSCRIBE, "{key:c}*"]
        value: {resp2: {array: [psubscribe, "{key:c}*", 1]}, resp3: {push: [psubscribe, "{key:c}*", 1]}}
`

// TestRunUser runs a shared run on Redis 8.6.3 as its own ACL user (every
// connection authenticated as respcheck-run-ID, as ACL WHOAMI says; the
// user deleted at the end, the server's other user untouched), and
// without one: with --no-acl-user, under credentials that may not run
// ACL SETUSER (the refusal is the report's), and on miniredis, which has
// no ACL. The verdicts are the same in each.
func TestRunUser(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	admin := dialRaw(t, srv.Addr())
	admin.do(t, "ACL", "SETUSER", "limited", "on", ">pw", "~*", "&*", "+@all", "-acl|setuser")
	files := load(t, runUserCase)
	whoami := func(rep *runner.Report) string {
		for _, r := range rep.Results {
			if r.Status != runner.Pass {
				t.Errorf("%s RESP%d: %s %s", r.Case.Name, r.Proto, r.Status, r.Reason)
			}
		}
		reply := string(rep.Results[0].Steps[0].Reply)
		_, user, _ := strings.Cut(reply, "\r\n")
		return strings.TrimSuffix(user, "\r\n")
	}
	id := runner.NewRunID()
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: id})
	p := rep.Protection
	if p == nil || !p.Guard || !strings.HasPrefix(p.ACLUser, "respcheck-run-"+id+"-") || p.ACLRefused != "" || p.ACLLeft != "" {
		t.Fatalf("protection %+v, want the guard and user respcheck-run-%s-...", p, id)
	}
	for _, r := range []string{"on", "~rc:{*", "&rc:{*", "+@all", "-flushall", "-config|set", "-debug", "+debug|protocol", "-acl|setuser", "-select", "(%R~* +sort +sort_ro)"} {
		if !slices.Contains(p.ACLRules, r) {
			t.Errorf("rule %q missing from %q", r, p.ACLRules)
		}
	}
	if got := whoami(rep); got != p.ACLUser {
		t.Errorf("ACL WHOAMI: %q, want %q", got, p.ACLUser)
	}
	users := admin.do(t, "ACL", "USERS")
	var names []string
	for _, u := range users.Elems {
		names = append(names, string(u.Str))
	}
	if !slices.Equal(names, []string{"default", "limited"}) {
		t.Errorf("ACL USERS after the run: %q, want the run's user deleted", names)
	}

	// Two runs given one run ID have a user each.
	if again := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: id}).Protection; again.ACLUser == p.ACLUser {
		t.Errorf("two runs of run ID %s had the one user %s", id, p.ACLUser)
	}
	rep = run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), NoACLUser: true})
	if p := rep.Protection; p == nil || p.ACLUser != "" || !strings.Contains(p.ACLRefused, "--no-acl-user") || whoami(rep) != "default" {
		t.Errorf("NoACLUser: protection %+v", p)
	}
	rep = run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Username: "limited", Password: "pw"})
	if p := rep.Protection; p == nil || p.ACLUser != "" || !strings.Contains(p.ACLRefused, "NOPERM") || whoami(rep) != "limited" {
		t.Errorf("credentials without ACL SETUSER: protection %+v", p)
	}

	rep = run(t, miniredis.RunT(t).Addr(), load(t, `
suite: miniredis
cases: [{name: set, steps: [{send: [SET, "{key}", v], reply: "+OK\r\n"}]}]
`), runner.Options{Shared: true, RunID: runner.NewRunID()})
	if p := rep.Protection; p == nil || p.ACLUser != "" || p.ACLRefused == "" || rep.Summary.Passed != 2 {
		t.Errorf("miniredis: protection %+v, %+v", p, rep.Summary)
	}
}

// refusedByServer matches the replies of Redis 8.6.3 to what an ACL user
// may not run: NOPERM, and the error of a script's call.
var refusedByServer = regexp.MustCompile(`NOPERM|No permissions`)

// TestRunUserAlone runs the guard's bypass cases (TestSharedGuardRefusesBypasses)
// with the guard off and the run's ACL user on: the server alone keeps
// every other client's key intact (each case that wrote or deleted one is
// refused), and lets through exactly the reads the user's rules cannot
// tell from the run's own (the guard's job alone): other keys through
// SORT's GET pattern, SCAN and DEBUG DIGEST-VALUE, other clients'
// messages, commands and secrets through PSUBSCRIBE *, SLOWLOG GET,
// CONFIG GET, CLIENT TRACKING BCAST, FUNCTION LIST and PUBSUB CHANNELS.
func TestRunUserAlone(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	c, files, digest := bypassFixture(t, srv.Addr())
	rep := run(t, srv.Addr(), files, runner.ACLAlone(runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}}))
	if p := rep.Protection; p == nil || p.Guard || p.ACLUser == "" {
		t.Fatalf("protection %+v: want the ACL user alone", p)
	}
	through := map[string]bool{
		"SORT GET pattern outside the namespace": true, "SCAN whose last MATCH is outside the namespace": true,
		"DEBUG DIGEST-VALUE of a key that is not the run's": true, "PSUBSCRIBE to every channel": true,
		"SLOWLOG GET": true, "CONFIG GET of a pattern matching masterauth": true,
		"CLIENT TRACKING BCAST without a prefix": true, "FUNCTION LIST of every library": true,
		"PUBSUB CHANNELS of every channel": true,
	}
	refused := 0
	for _, r := range rep.Results {
		if r.Case.Name == "allowed, in the namespace" || strings.HasSuffix(r.Case.Name, "moved into its namespace") {
			if r.Status != runner.Pass {
				t.Errorf("%s: %s (%s), want pass", r.Case.Name, r.Status, r.Reason)
			}
			continue
		}
		if strings.HasPrefix(r.Case.Name, "a gate probe") {
			continue // its probe's reply is not a step's: the digest below shows it refused
		}
		stopped := false
		for _, st := range r.Steps {
			stopped = stopped || refusedByServer.Match(st.Reply)
		}
		if stopped {
			refused++
		}
		if stopped == through[r.Case.Name] {
			t.Errorf("%s: refused by the server %v, want %v (replies %q)", r.Case.Name, stopped, !through[r.Case.Name], replies(r))
		}
	}
	if after := string(c.do(t, "DEBUG", "DIGEST").Str); after != digest {
		t.Errorf("the data changed under the ACL user alone: DEBUG DIGEST %s before, %s after", digest, after)
	}
	t.Logf("the ACL user alone refused %d of the %d bypasses the guard refuses (and the gate probe's script)", refused, refused+len(through))
}

// replies are a result's step replies, as text.
func replies(r *runner.Result) []string {
	var out []string
	for _, st := range r.Steps {
		out = append(out, string(st.Reply))
	}
	return out
}

// TestRunUserDatabases: on Valkey 9.1.2, whose ACL has database rules, the
// run's user may use the run's database only: with the guard off, the
// server refuses SELECT, MOVE and COPY ... DB of another (the guard
// refuses them too: TestSharedGuardRefusesBypasses' kind), and the other
// database's key is intact.
func TestRunUserDatabases(t *testing.T) {
	srv := servers.ForTest(t, "valkey-9.1.2")
	c := dialRaw(t, srv.Addr())
	c.do(t, "SELECT", "1")
	c.do(t, "SET", "theirs", "1")
	rep := run(t, srv.Addr(), load(t, `
suite: databases
cases:
  - name: another database
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [COPY, "{key}", "{key}", DB, "1"], error_code: NOPERM}
      - {send: [MOVE, "{key}", "1"], error_code: NOPERM}
      - {send: [SELECT, "1"], error_code: NOPERM}
      - {send: [FLUSHALL], error_code: NOPERM}
`), runner.ACLAlone(runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}}))
	if p := rep.Protection; p == nil || !slices.Contains(p.ACLRules, "db=0") {
		t.Fatalf("protection %+v: want the rule db=0", p)
	}
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s: %s %s", r.Case.Name, r.Status, r.Reason)
		}
	}
	if v := c.do(t, "DBSIZE"); v.Int != 1 {
		t.Errorf("database 1 holds %d keys after the run, want its 1", v.Int)
	}
}

// TestRunUserIsARestriction: the run's ACL user never may run what the
// given user may not, so the verdicts are those of the given user
// (helper-40's repros on Redis 8.6.3): a user without DEBUG, SORT and
// PSUBSCRIBE gets a run user without the read-only DEBUG subcommands and
// the selectors' commands, and its cases fail with NOPERM with and
// without it; a user that may only read keys gets no run user (the
// guard alone, saying why). On a run with a user, an AUTH as another
// user that exists is refused (the rest of the case would run as the
// default user: also the last of two AUTH options of a HELLO, and one
// behind a SETNAME whose name is AUTH, read as the server reads them) and
// one naming no user goes on (WRONGPASS); raw bytes holding RESET are
// followed by the run user's AUTH again, and a RESET after which a
// command could run before that (async, behind a pending reply, or
// followed by commands in the same raw bytes) is refused (helper-41).
func TestRunUserIsARestriction(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	admin := dialRaw(t, srv.Addr())
	admin.do(t, "ACL", "SETUSER", "ops", "on", ">pw", "~*", "&*", "+@all", "-debug", "-sort", "-sort_ro", "-psubscribe")
	admin.do(t, "ACL", "SETUSER", "reader", "on", ">pw", "%R~*", "&*", "+@all")
	denied := load(t, `
suite: denied
cases:
  - name: debug object
    steps:
      - {send: [SET, "{key}", v]}
      - {send: [DEBUG, OBJECT, "{key}"], error_code: NOPERM}
  - name: sort
    steps: [{send: [SORT, "{key}"], error_code: NOPERM}]
  - name: psubscribe
    steps: [{send: [PSUBSCRIBE, "{key:c}*"], error_code: NOPERM}]
`)
	for _, noUser := range []bool{false, true} {
		rep := run(t, srv.Addr(), denied, runner.Options{Shared: true, RunID: runner.NewRunID(), Username: "ops", Password: "pw", NoACLUser: noUser})
		if p := rep.Protection; noUser == (p.ACLUser != "") {
			t.Errorf("ops, NoACLUser %v: protection %+v", noUser, p)
		} else if !noUser {
			for _, r := range p.ACLRules {
				if strings.HasPrefix(r, "(") || strings.HasPrefix(r, "+debug") {
					t.Errorf("ops: the run user allows %q, which ops may not run", r)
				}
			}
		}
		for _, r := range rep.Results {
			if r.Status != runner.Pass {
				t.Errorf("ops, NoACLUser %v: %s RESP%d: %s %s", noUser, r.Case.Name, r.Proto, r.Status, r.Reason)
			}
		}
	}
	rep := run(t, srv.Addr(), load(t, "suite: r\ncases: [{name: get, steps: [{send: [GET, \"{key}\"], reply: \"$-1\\r\\n\"}]}]\n"),
		runner.Options{Shared: true, RunID: runner.NewRunID(), Username: "reader", Password: "pw", Protos: []int{2}})
	if p := rep.Protection; p.ACLUser != "" || !strings.Contains(p.ACLRefused, `reaches the keys "%R~*"`) {
		t.Errorf("reader: protection %+v, want the guard alone: it reaches only some keys", p)
	}

	rep = run(t, srv.Addr(), load(t, `
suite: escapes
cases:
  - name: AUTH as the default user
    steps: [{send: [AUTH, default, anything], reply: "+OK\r\n"}]
  - name: HELLO AUTH as the default user
    steps: [{send: [HELLO, "2", AUTH, default, anything], value: {type: array}}]
  - name: AUTH as no user
    steps: [{send: [AUTH, "rc-nosuchuser-{id}", wrong], error_code: WRONGPASS}]
  - name: HELLO with two AUTH options, the last as the default user
    steps: [{send: [HELLO, "2", AUTH, "rc-nosuchuser-{id}", x, AUTH, default, whatever], any: true}]
  - name: HELLO AUTH behind a SETNAME named AUTH, as the default user
    steps: [{send: [HELLO, "2", SETNAME, AUTH, AUTH, default, whatever], any: true}]
  - name: an async RESET
    steps:
      - {send: [RESET], async: true}
      - {read: true, reply: "+RESET\r\n"}
  - name: a RESET with a reply pending
    steps:
      - {send: [PING], async: true}
      - {send: [RESET], async: true}
      - {read: true, reply: "+PONG\r\n"}
      - {read: true, reply: "+RESET\r\n"}
  - name: commands after RESET in raw bytes
    steps: [{raw: "RESET\r\nPING\r\n", replies: [{reply: "+RESET\r\n"}, {reply: "+PONG\r\n"}]}]
  - name: raw RESET
    steps:
      - {raw: "RESET\r\n", reply: "+RESET\r\n"}
      - {send: [ACL, WHOAMI], value: {match: '^respcheck-run-'}}
`), runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Pass
		switch {
		case strings.HasSuffix(r.Case.Name, "as the default user"):
			want = runner.Skip
			if !strings.Contains(r.Reason, "would leave the run's ACL user") {
				t.Errorf("%s: reason %q", r.Case.Name, r.Reason)
			}
		case strings.Contains(r.Case.Name, "RESET") && r.Case.Name != "raw RESET":
			want = runner.Skip
			if !strings.Contains(r.Reason, "default user") {
				t.Errorf("%s: reason %q", r.Case.Name, r.Reason)
			}
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
	}
}
