package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestLangContracts judges, under each contract of hiredis, redis-rb and
// phpredis, a value as the adapter reports it for a faithful decoding
// (match, or the documented conversion) and for a wrong one (never match):
// no contract accepts everything.
func TestLangContracts(t *testing.T) {
	verb := tx("bytes", "REDIS_REPLY_VERB vtype=txt", "hi")
	for _, tc := range []struct {
		client string
		reply  string
		n      Native
		want   Verdict
	}{
		{"hiredis-1.2.0/resp3", "+OK\r\n", tx("bytes", "REDIS_REPLY_STATUS", "OK"), Match},
		{"hiredis-1.2.0/resp3", "+OK\r\n", tx("bytes", "REDIS_REPLY_STATUS", "KO"), Mismatch},
		{"hiredis-1.2.0/resp3", "=6\r\ntxt:hi\r\n", verb, Match},
		{"hiredis-1.2.0/resp3", "=6\r\nmkd:hi\r\n", verb, Mismatch},
		{"hiredis-1.2.0/resp3", "(12345678901234567890\r\n", tx("bytes", "REDIS_REPLY_BIGNUM", "12345678901234567890"), Match},
		{"hiredis-1.2.0/resp3", ",1.5\r\n", tx("float", "REDIS_REPLY_DOUBLE", "1.5"), Match},
		{"hiredis-1.2.0/resp3", ",1.5\r\n", tx("float", "REDIS_REPLY_DOUBLE", "1.25"), Mismatch},
		{"hiredis-1.2.0/resp2", "*-1\r\n", Native{Kind: "nil", Type: "REDIS_REPLY_NIL"}, Erased},
		{"redis-rb-4.8.0/resp2", "$2\r\nv1\r\n", tx("string", "String(UTF-8)", "v1"), Match},
		{"redis-rb-4.8.0/resp2", ":1\r\n", tx("string", "String(UTF-8)", "1"), Mismatch},
		{"redis-rb-4.8.0/resp2", "-ERR x \r\n", errNative("error", "Redis::CommandError", "Redis::CommandError", "ERR x"), Mismatch},
		{"phpredis-5.3.7/resp2", "+OK\r\n", tx("bool", "bool", "true"), Match},
		{"phpredis-5.3.7/resp2", "+PONG\r\n", tx("bool", "bool", "true"), Mismatch},
		{"phpredis-5.3.7/resp2", "$-1\r\n", tx("bool", "bool", "false"), Converted},
		{"phpredis-5.3.7/resp2", "$0\r\n\r\n", tx("bool", "bool", "false"), Mismatch},
		{"phpredis-5.3.7/resp2", "*-1\r\n", Native{Kind: "list", Type: "array"}, Mismatch},
		{"phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2", "*-1\r\n", Native{Kind: "nil", Type: "null"}, Erased},
		{"phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2", "+PONG\r\n", tx("string", "string", "PONG"), Erased},
		{"phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2", "+PONG\r\n", tx("string", "string", "PONGX"), Mismatch},
	} {
		got, notes := contractFor(tc.client).Judge(parse(t, tc.reply), tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.reply, tc.n, got, tc.want, notes)
		}
	}
}

const langCases = `suite: langs
cases:
  - name: plain replies
    steps:
      - {send: [SET, "{key}", v1], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$2\r\nv1\r\n"}
      - {send: [INCR, "{key:n}"], reply: ":1\r\n"}
      - {send: [INCR, "{key:n}"], reply: ":2\r\n"}
`

// TestLangConfigurations runs one case of plain replies through every
// configuration of hiredis, redis-rb and phpredis on redis-8.6.3: as the
// server sends them they are judged match (or erased, converted: no
// finding), and with an extra reply injected after GET's (every later
// reply one behind) each configuration ends in a finding.
func TestLangConfigurations(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("langs.yaml", []byte(langCases))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "hiredis", "redis-rb", "phpredis")
	if len(ds) == 0 {
		t.Skip("no hiredis, redis-rb or phpredis installed")
	}
	runShifted(t, srv.Addr(), f, ds, func(fault Fault, rep *Report) {
		if len(ds) == 10 && len(rep.Results) != 13 { // hiredis in both protocols
			t.Errorf("%d results, want 13", len(rep.Results))
		}
		for _, res := range rep.Results {
			shifted := fault.ExtraAfter != ""
			if res.Reason == noBatch || res.Reason == noPubsub {
				continue // a /pipeline or /pubsub configuration (TestLangBatchConfigurations, TestLangPubsubConfigurations)
			}
			if (res.Verdict >= Mismatch) != shifted {
				t.Errorf("%s (extra reply after %q): %s, want a finding: %v", res.Client, fault.ExtraAfter, res.Verdict, shifted)
				for _, sv := range res.Steps {
					t.Logf("  %s %s %v canary=%q", resp.EscapeCommand(sv.Args), sv.Verdict, sv.Native, sv.Canary)
				}
			}
		}
	})
}

const langBatchCases = `suite: langs batch
cases:
  - name: a pipeline and a transaction of plain replies
    steps:
      - {send: [SET, "{key}", v1], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], async: true}
      - {send: [INCR, "{key:n}"], async: true}
      - {send: [INCR, "{key:n}"], async: true}
      - {read: true, reply: "$2\r\nv1\r\n"}
      - {read: true, reply: ":1\r\n"}
      - {read: true, reply: ":2\r\n"}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [INCR, "{key:n}"], reply: "+QUEUED\r\n"}
      - {send: [ECHO, v2], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*2\r\n:3\r\n$2\r\nv2\r\n"}
`

// TestLangBatchConfigurations runs a pipeline and a transaction through
// the "/pipeline" configurations of hiredis, redis-rb and phpredis on
// redis-8.6.3: as the server sends the replies, every queued and
// pipelined command is judged and none is a finding; with an extra reply
// injected after GET's (every later reply of the pipeline one behind)
// each configuration ends in a finding.
func TestLangBatchConfigurations(t *testing.T) {
	srv := servers.ForTest(t, "redis-8.6.3")
	f, err := cases.Load("langs-batch.yaml", []byte(langBatchCases))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, "hiredis-"+hiredisVersion+"/pipeline", "redis-rb-4.8.0/pipeline", "phpredis-5.3.7/pipeline")
	if len(ds) == 0 {
		t.Skip("no hiredis, redis-rb or phpredis installed")
	}
	runShifted(t, srv.Addr(), f, ds, func(fault Fault, rep *Report) {
		if len(ds) == 3 && len(rep.Results) != 4 { // hiredis in both protocols
			t.Errorf("%d results, want 4", len(rep.Results))
		}
		for _, res := range rep.Results {
			shifted := fault.ExtraAfter != ""
			judged := 0
			for _, sv := range res.Steps {
				if sv.Native != nil && sv.Verdict != Skip {
					judged++
				}
			}
			if (res.Verdict >= Mismatch) != shifted || judged < 5 {
				t.Errorf("%s (extra reply after %q): %s, %d steps judged; want a finding: %v", res.Client, fault.ExtraAfter, res.Verdict, judged, shifted)
				for _, sv := range res.Steps {
					t.Logf("  %s %s %v %v canary=%q", resp.EscapeCommand(sv.Args), sv.Verdict, sv.Native, sv.Notes, sv.Canary)
				}
			}
		}
	})
}

// TestLangBatchContracts: under the "/pipeline" contracts a faithful
// value matches, a wrong one does not, and phpredis's false for a nil
// EXEC is its documented conversion.
func TestLangBatchContracts(t *testing.T) {
	for _, tc := range []struct {
		client string
		reply  string
		n      Native
		want   Verdict
	}{
		{"hiredis-1.2.0/pipeline/resp3", "+QUEUED\r\n", tx("bytes", "REDIS_REPLY_STATUS", "QUEUED"), Match},
		{"hiredis-1.2.0/pipeline/resp3", ":3\r\n", tx("bytes", "REDIS_REPLY_STATUS", "QUEUED"), Mismatch},
		{"hiredis-1.2.0/pipeline/resp2", ":3\r\n", tx("int", "REDIS_REPLY_INTEGER", "3"), Match},
		{"hiredis-1.2.0/pipeline/resp2", ":3\r\n", tx("int", "REDIS_REPLY_INTEGER", "4"), Mismatch},
		{"redis-rb-4.8.0/pipeline/resp2", "$2\r\nv1\r\n", tx("string", "String(UTF-8)", "v1"), Match},
		{"redis-rb-4.8.0/pipeline/resp2", "$2\r\nv1\r\n", errNative("error", "Redis::CommandError", "Redis::CommandError", "ERR x"), Mismatch},
		{"phpredis-5.3.7/pipeline/resp2", "*-1\r\n", tx("bool", "bool", "false"), Converted},
		{"phpredis-5.3.7/pipeline/resp2", "*0\r\n", tx("bool", "bool", "false"), Mismatch},
		{"phpredis-5.3.7/pipeline/resp2", "-ERR x\r\n", tx("bool", "bool", "false"), Mismatch},
		{"phpredis-5.3.7/pipeline/resp2", ":1\r\n", tx("int", "int", "1"), Match},
	} {
		got, notes := contractFor(tc.client).Judge(parse(t, tc.reply), tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.reply, tc.n, got, tc.want, notes)
		}
	}
}

// runShifted runs f through ds on addr twice, as the server sends it and
// with an extra reply injected after GET's (every later reply one
// behind), and hands each report to check.
func runShifted(t *testing.T, addr string, f *cases.File, ds []Driver, check func(Fault, *Report)) {
	t.Helper()
	for _, fault := range []Fault{{}, {ExtraAfter: "GET"}} {
		rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: addr}, Drivers: ds, Jobs: 2, Fault: fault})
		if err != nil {
			t.Fatal(err)
		}
		check(fault, rep)
	}
}

// langPubsub are the "/pubsub" configurations of hiredis, redis-rb and
// phpredis.
var langPubsub = []string{"hiredis-" + hiredisVersion + "/pubsub", "redis-rb-4.8.0/pubsub", "phpredis-5.3.7/pubsub"}

// TestLangPubsubConfigurations runs wrongMessageCase (a SUBSCRIBE, a
// message published on another connection, the push step of that
// message) through the "/pubsub" configurations of hiredis, redis-rb and
// phpredis on redis-8.6.3, in RESP2 (and hiredis in RESP3): as the server
// sends it, each delivers the message through its subscribe API, judged
// match; with the proxy injecting another message ("wrong") right after
// the confirmation, each delivers that one for the push step, which is
// then a finding.
func TestLangPubsubConfigurations(t *testing.T) {
	f, err := cases.Load("wrong.yaml", []byte(wrongMessageCase))
	if err != nil {
		t.Fatal(err)
	}
	ds := externalDrivers(t, langPubsub...)
	if len(ds) == 0 {
		t.Skip("no hiredis, redis-rb or phpredis installed")
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	// One session at a time: every session subscribes to the same channel.
	opts := Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 1}
	wrong := map[int]string{ // the injected message, in RESP2 and RESP3
		2: "*3\r\n$7\r\nmessage\r\n$22\r\nrc-pubsub-test-channel\r\n$5\r\nwrong\r\n",
		3: ">3\r\n$7\r\nmessage\r\n$22\r\nrc-pubsub-test-channel\r\n$5\r\nwrong\r\n",
	}
	for _, run := range []struct {
		proto int
		fault Fault
	}{{2, Fault{}}, {3, Fault{}}, {2, Fault{ExtraAfter: "SUBSCRIBE", ExtraReply: []byte(wrong[2])}}, {3, Fault{ExtraAfter: "SUBSCRIBE", ExtraReply: []byte(wrong[3])}}} {
		fault := run.fault
		opts.Fault, opts.Protos = fault, []int{run.proto}
		rep, err := Run(context.Background(), []*cases.File{f}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]int{2: 3, 3: 1}[run.proto]; len(ds) == 3 && len(rep.Clients) != want { // RESP3: hiredis only
			t.Errorf("RESP%d: %d clients, want %d", run.proto, len(rep.Clients), want)
		}
		for _, c := range rep.Clients {
			sv := stepView(t, rep, c.Name, "a message after an injected one", 7)
			delivered := sv.Native != nil && sv.Native.Kind == kindMessage
			injected := delivered && strings.Contains(sv.Native.String(), "wrong")
			switch {
			case !delivered:
				t.Errorf("%s (fault %q): delivered %v, %s %v; want a message", c.Name, fault.ExtraAfter, sv.Native, sv.Verdict, sv.Notes)
			case fault.ExtraAfter == "" && sv.Verdict != Match:
				t.Errorf("%s: the message judged %s %v %v, want match", c.Name, sv.Verdict, sv.Native, sv.Notes)
			case fault.ExtraAfter != "" && (!injected || !sv.Verdict.Finding()):
				t.Errorf("%s: with a message injected, delivered %v judged %s, want the injected one judged a finding", c.Name, sv.Native, sv.Verdict)
			}
		}
	}
}

// TestPubsubCallbackSkip: a configuration whose subscribe call gives
// control back only in its callback (phpredis) skips, saying why, the
// corpus's cases where a subscribed connection's next step is not a
// message sent meanwhile, and runs the others.
func TestPubsubCallbackSkip(t *testing.T) {
	var skipped []string
	for _, n := range []string{"pubsub.yaml", "pushes.yaml", "tracking.yaml"} {
		for _, f := range loadTestdata(t, n) {
			for _, c := range f.Cases {
				switch why := pubsubSkip(c, pubsubCallback); {
				case strings.Contains(why, "blocks until a message runs its callback"):
					skipped = append(skipped, c.Name)
				case why != "" && why != noPubsub:
					t.Errorf("%q: %s", c.Name, why)
				}
			}
		}
	}
	want := []string{
		"PSUBSCRIBE confirmation",
		"SSUBSCRIBE confirmation",
		"PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3",
		"channel and pattern on one connection, a message and a pmessage for one PUBLISH",
		"UNSUBSCRIBE without arguments answering two confirmations, then plain replies",
		"UNSUBSCRIBE of two channels on a connection subscribed to none, then PING",
		"message push between two replies on a subscribed connection",
	}
	if fmt.Sprint(skipped) != fmt.Sprint(want) {
		t.Errorf("skipped %q,\nwant %q", skipped, want)
	}
}

// TestLangPubsubContracts judges items as the hiredis, redis-rb and
// phpredis "/pubsub" adapters deliver them, under their contracts: the
// message's fields as received match, a wrong payload does not, and
// phpredis's unsubscribe value (the channel without its count) is erased.
func TestLangPubsubContracts(t *testing.T) {
	msg2 := "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"
	msg3 := ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"
	unsub := "*3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n"
	hi := func(typ string) Native { return tx("bytes", typ, "hi") }
	for _, tc := range []struct {
		client, frame string
		n             Native
		want          Verdict
	}{
		{"hiredis-1.2.0/pubsub/resp2", msg2, messageOf("redisReply", "kind", tx("bytes", "REDIS_REPLY_STRING", "message"),
			"channel", tx("bytes", "REDIS_REPLY_STRING", "ch"), "payload", hi("REDIS_REPLY_STRING")), Match},
		{"hiredis-1.2.0/pubsub/resp3", msg3, messageOf("redisReply", "kind", tx("bytes", "REDIS_REPLY_STRING", "message"),
			"channel", tx("bytes", "REDIS_REPLY_STRING", "ch"), "payload", tx("bytes", "REDIS_REPLY_STRING", "ho")), Mismatch},
		{"redis-rb-4.8.0/pubsub/resp2", msg2, messageOf("Subscription#message", "kind", "message", "channel", tx("string", "String(UTF-8)", "ch"),
			"payload", tx("string", "String(UTF-8)", "hi")), Match},
		{"redis-rb-4.8.0/pubsub/resp2", msg2, messageOf("Subscription#message", "kind", "pmessage", "channel", tx("string", "String(UTF-8)", "ch"),
			"payload", tx("string", "String(UTF-8)", "hi")), Mismatch},
		{"phpredis-5.3.7/pubsub/resp2", msg2, messageOf("subscribe callback", "kind", "message", "channel", "ch", "payload", "hi"), Match},
		{"phpredis-5.3.7/pubsub/resp2", unsub, messageOf("array (Redis::unsubscribe)", "channel", "ch"), Erased},
		{"phpredis-5.3.7/pubsub/resp2", unsub, messageOf("array (Redis::unsubscribe)", "channel", "other"), Mismatch},
	} {
		c := contractFor(tc.client)
		if !strings.HasSuffix(c.Library, "/pubsub") {
			t.Errorf("%s: judged under %s, not its /pubsub contract", tc.client, c.Library)
		}
		got, notes := judgeDelivered(c, parse(t, tc.frame), tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.frame, tc.n, got, tc.want, notes)
		}
	}
}
