package runner_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestSharedGuardKeepsOffOtherClients runs, on a shared server where
// another client waits in BLPOP, cases that would unblock it (with and
// without ERROR), redirect tracking to it, read it with CLIENT LIST (with
// and without its ID): each is skipped with the guard's reason, and the
// other client is still blocked afterwards, its own reply untouched. The
// same commands on the case's own connections, and on an ID no client
// has, still run.
func TestSharedGuardKeepsOffOtherClients(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	other := dialRaw(t, srv.Addr())
	id := strconv.FormatInt(other.do(t, "CLIENT", "ID").Int, 10)
	other.send("BLPOP", "theirs", "0")
	other.w.Flush()
	files := load(t, `
suite: clients
cases:
  - name: CLIENT UNBLOCK ERROR of another client
    steps: [{send: [CLIENT, UNBLOCK, "`+id+`", ERROR], any: true}]
  - name: CLIENT UNBLOCK of another client
    steps: [{send: [CLIENT, UNBLOCK, "`+id+`"], any: true}]
  - name: CLIENT TRACKING REDIRECT to another client
    steps: [{send: [CLIENT, TRACKING, "on", REDIRECT, "`+id+`"], any: true}]
  - name: CLIENT LIST of every client
    steps: [{send: [CLIENT, LIST], any: true}]
  - name: CLIENT LIST TYPE normal
    steps: [{send: [CLIENT, LIST, TYPE, normal], any: true}]
  - name: CLIENT LIST ID of another client among the case's
    steps:
      - {send: [CLIENT, ID], capture: me}
      - {send: [CLIENT, LIST, ID, "{cap:me}", "`+id+`"], any: true}
  - name: allowed, the case's own clients
    steps:
      - {conn: b, send: [CLIENT, ID], capture: bid}
      - {conn: b, send: [BLPOP, "{key}", "0"], async: true}
      - {send: [CLIENT, UNBLOCK, "{cap:bid}"], reply: ":1\r\n"}
      - {conn: b, read: true, reply: "*-1\r\n"}
      - {send: [CLIENT, ID], capture: me}
      - {send: [CLIENT, LIST, ID, "{cap:me}", "{cap:bid}"], value: {match: '^(id=\d+ addr=\S+ .*\n){2}$'}}
      - {conn: b, send: [SUBSCRIBE, "__redis__:invalidate"], any: true}
      - {send: [CLIENT, TRACKING, "on", REDIRECT, "{cap:bid}"], reply: "+OK\r\n"}
      - {send: [CLIENT, TRACKING, "off"], reply: "+OK\r\n"}
      - {send: [CLIENT, UNBLOCK, "999999999"], reply: ":0\r\n"}
      - {send: [CLIENT, LIST, TYPE, nosuchtype], error: "ERR Unknown client type 'nosuchtype'"}
`)
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if strings.HasPrefix(r.Case.Name, "allowed") {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
		if want == runner.Skip && !strings.Contains(r.Reason, "CLIENT") {
			t.Errorf("%s: skipped for %q", r.Case.Name, r.Reason)
		}
		// A refusal after steps that ran says so (not "nothing sent").
		if ran := strings.Contains(r.Reason, "the 1 step before it ran"); ran != strings.Contains(r.Case.Name, "among the case's") {
			t.Errorf("%s: %q", r.Case.Name, r.Reason)
		}
	}
	stillBlocked(t, other, dialRaw(t, srv.Addr()), "theirs")
}

// TestSharedGuardClientListFilterValues runs on Valkey 9.1.2, whose
// CLIENT LIST takes filters (NOT-NAME, NOT-ADDR, NAME, ... each with a
// value) beside ID: a case whose filter value is the word "ID" (CLIENT
// LIST NOT-NAME ID lists every client not named ID, i.e. every client)
// is refused on a shared server, as CLIENT LIST without an ID filter is,
// while an ID filter of the case's own connection next to another filter
// still runs.
func TestSharedGuardClientListFilterValues(t *testing.T) {
	srv := servers.ForTest(t, "valkey-9.1.2")
	other := dialRaw(t, srv.Addr())
	other.do(t, "CLIENT", "SETNAME", "theirs")
	files := load(t, `
suite: clients
cases:
  - name: CLIENT LIST NOT-NAME ID
    steps: [{send: [CLIENT, LIST, NOT-NAME, ID], any: true}]
  - name: CLIENT LIST NOT-ADDR ID TYPE normal
    steps: [{send: [CLIENT, LIST, NOT-ADDR, ID, TYPE, normal], any: true}]
  - name: CLIENT LIST NOT-LIB-NAME ID with the case's own ID after it
    steps:
      - {send: [CLIENT, ID], capture: me}
      - {send: [CLIENT, LIST, NOT-LIB-NAME, ID, NOT-ID, "{cap:me}"], any: true}
  - name: allowed, an ID filter of the case's own connection with another filter
    steps:
      - {send: [CLIENT, ID], capture: me}
      - {send: [CLIENT, LIST, ID, "{cap:me}", NOT-NAME, theirs], value: {match: '^id=\d+ addr=\S+ .*\n$'}}
`)
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if strings.HasPrefix(r.Case.Name, "allowed") {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
		for _, sr := range r.Steps {
			if strings.Contains(string(sr.Reply), "name=theirs") {
				t.Errorf("%s: the other client's line reached the case (%d bytes)", r.Case.Name, len(sr.Reply))
			}
		}
	}
}

// TestSharedGuardClientOnOtherNode runs, on a shared cluster, a case
// whose connection placed on another primary (node: other) sends CLIENT
// UNBLOCK ... ERROR of a client blocked on that primary. Client IDs are
// each node's own: the guard must ask the node the command goes to
// whose the ID is. The victim's ID is made larger than any the owner of
// the case's slot has given, so the owner knows no such client.
func TestSharedGuardClientOnOtherNode(t *testing.T) {
	cl := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	ctx := context.Background()
	tg, err := target.Open(ctx, target.Config{Addr: cl.Nodes[0].Addr()})
	if err != nil {
		t.Fatal(err)
	}
	const src = `
suite: clients
cases:
  - name: CLIENT UNBLOCK ERROR of a client of another node
    steps:
      - {conn: {name: b, node: other}, send: [CLIENT, UNBLOCK, "%d", ERROR], any: true}
`
	runID := runner.NewRunID()
	c := load(t, fmt.Sprintf(src, 0))[0].Cases[0]
	slot := target.KeySlot(cases.KeyPrefix(runID + " " + c.ID() + " 2"))
	owner, err := tg.Place(slot, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := tg.Place(slot, cases.NodeOther)
	if err != nil {
		t.Fatal(err)
	}
	top := dialRaw(t, owner.Addr).do(t, "CLIENT", "ID").Int + 500
	for {
		c := dialRaw(t, other.Addr)
		id := c.do(t, "CLIENT", "ID").Int
		c.nc.Close()
		if id > top {
			break
		}
	}
	key := "theirs"
	for i := 0; ; i++ {
		if n, _ := tg.Place(target.Slot([]byte(key)), ""); n.Addr == other.Addr {
			break
		}
		key = fmt.Sprintf("theirs%d", i)
	}
	victim := dialRaw(t, other.Addr)
	id := victim.do(t, "CLIENT", "ID").Int
	victim.send("BLPOP", key, "0")
	victim.w.Flush()

	rep := run(t, owner.Addr, load(t, fmt.Sprintf(src, id)), runner.Options{Shared: true, RunID: runID, Protos: []int{2}})
	allSkipped(t, rep)
	stillBlocked(t, victim, dialRaw(t, other.Addr), key)
}

// TestSharedGuardHotkeys runs, on a shared Redis 8.6.3 where another
// client tracks its hot keys (HOTKEYS START: one session server-wide),
// cases that read that session (HOTKEYS GET names the other client's
// keys) or stop or reset it: each is refused, and the other client's
// session is still running afterwards. HOTKEYS HELP still runs.
func TestSharedGuardHotkeys(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	other := dialRaw(t, srv.Addr())
	if v := other.do(t, "HOTKEYS", "START", "METRICS", "1", "CPU"); string(v.Raw) != "+OK\r\n" {
		t.Fatalf("HOTKEYS START answered %q", v.Raw)
	}
	other.do(t, "SET", "their-secret-key", "v")
	files := load(t, `
suite: hotkeys
cases:
  - name: HOTKEYS GET
    steps: [{send: [HOTKEYS, GET], any: true}]
  - name: HOTKEYS STOP
    steps: [{send: [HOTKEYS, STOP], any: true}]
  - name: HOTKEYS STOP then RESET
    steps:
      - {send: [HOTKEYS, STOP], any: true}
      - {send: [HOTKEYS, RESET], any: true}
  - name: HOTKEYS START
    steps: [{send: [HOTKEYS, START, METRICS, "1", NET], any: true}]
  - name: allowed, HOTKEYS HELP
    steps: [{send: [HOTKEYS, HELP], value: {type: array}}]
`)
	rep := run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runner.NewRunID(), Protos: []int{2}})
	for _, r := range rep.Results {
		want := runner.Skip
		if strings.HasPrefix(r.Case.Name, "allowed") {
			want = runner.Pass
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", r.Case.Name, r.Status, r.Reason, want)
		}
		for _, sr := range r.Steps {
			if strings.Contains(string(sr.Reply), "their-secret-key") {
				t.Errorf("%s: the other client's key name reached the case", r.Case.Name)
			}
		}
	}
	other.send("HOTKEYS", "START", "METRICS", "1", "CPU")
	other.w.Flush()
	if v, err := other.r.Read(); err != nil || !strings.Contains(string(v.Raw), "already in progress") {
		t.Errorf("the other client's session was ended: HOTKEYS START answered %q (%v)", v.Raw, err)
	}
}

// TestSharedGuardClientIDQueuedInMulti runs, on a shared server, a case
// that queues CLIENT UNBLOCK ... ERROR of an ID no client has yet inside
// MULTI, waits (a BLPOP the test ends), and runs EXEC once another
// client with that ID is blocked: the guard let the unknown ID through
// when it was queued, and EXEC unblocked the other client. Inside MULTI
// an ID no client has is refused (by EXEC it may be someone's).
func TestSharedGuardClientIDQueuedInMulti(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	next := dialRaw(t, srv.Addr()).do(t, "CLIENT", "ID").Int + 1000
	files := load(t, fmt.Sprintf(`
suite: clients
cases:
  - name: CLIENT UNBLOCK of a later client queued in MULTI
    steps:
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [CLIENT, UNBLOCK, "%d", ERROR], reply: "+QUEUED\r\n"}
      - {conn: b, send: [BLPOP, "{key:gate}", "0"], any: true}
      - {send: [EXEC], any: true}
`, next))
	runID := runner.NewRunID()
	gate := cases.KeyPrefix(runID+" "+files[0].Cases[0].ID()+" 2") + "gate"
	done := make(chan *runner.Report)
	go func() {
		done <- run(t, srv.Addr(), files, runner.Options{Shared: true, RunID: runID, Protos: []int{2}, StepTimeout: 30 * time.Second})
	}()
	// Once the case waits in its BLPOP (or has ended), the victim takes
	// the queued ID and blocks; then the case goes on to EXEC.
	watch := dialRaw(t, srv.Addr())
	var rep *runner.Report
	for rep == nil && !strings.Contains(string(watch.do(t, "CLIENT", "LIST").Str), "cmd=blpop") {
		select {
		case rep = <-done:
		case <-time.After(10 * time.Millisecond):
		}
	}
	var victim *rawClient
	for rep == nil {
		c := dialRaw(t, srv.Addr())
		id := c.do(t, "CLIENT", "ID").Int
		if id == next {
			victim = c
			break
		}
		c.nc.Close()
		if id > next {
			t.Fatalf("client ID %d went past %d", id, next)
		}
	}
	if victim != nil {
		victim.send("BLPOP", "theirs", "0")
		victim.w.Flush()
		for !strings.Contains(string(watch.do(t, "CLIENT", "LIST", "ID", strconv.FormatInt(next, 10)).Str), "cmd=blpop") {
		}
		watch.do(t, "RPUSH", gate, "go")
		rep = <-done
	}
	allSkipped(t, rep)
	if victim != nil {
		stillBlocked(t, victim, watch, "theirs")
	}
}

// allSkipped fails for each result of rep that is not a skip.
func allSkipped(t *testing.T, rep *runner.Report) {
	t.Helper()
	for _, r := range rep.Results {
		if r.Status != runner.Skip {
			t.Errorf("%s: %s (%s), want skip", r.Case.Name, r.Status, r.Reason)
		}
	}
}

// stillBlocked pushes v onto key through pusher and checks that victim,
// blocked in BLPOP key, answers that element (it was not unblocked by the
// run).
func stillBlocked(t *testing.T, victim, pusher *rawClient, key string) {
	t.Helper()
	pusher.do(t, "RPUSH", key, "v")
	victim.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	v, err := victim.r.Read()
	if err != nil || v.Kind != resp.Array || len(v.Elems) != 2 || string(v.Elems[1].Str) != "v" {
		t.Errorf("the other client's BLPOP answered %q (%v), want its element", v.Raw, err)
	}
}
