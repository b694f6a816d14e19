package clients

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// special reports whether d is a "/pipeline" or "/pubsub" configuration:
// tests of the generic call leave them out (they skip cases without a
// batch, or without a subscribe or tracking).
func special(d Driver) bool { return isBatch(d) || pubsubWhere(d) != "" || IsCluster(d) }

// TestPubsubSkip checks which cases a "/pubsub" configuration skips: those
// without a subscribe and without CLIENT TRACKING, and, where the
// subscribe API opens a connection of its own, a case whose subscribing
// connection sends something before it subscribes.
func TestPubsubSkip(t *testing.T) {
	var files []*cases.File
	for _, n := range []string{"pubsub.yaml", "pushes.yaml", "tracking.yaml", "transactions.yaml"} {
		files = append(files, loadTestdata(t, n)...)
	}
	counts := map[string]int{}
	for _, f := range files {
		for _, c := range f.Cases {
			same, own := pubsubSkip(c, pubsubSame), pubsubSkip(c, pubsubOwn)
			switch {
			case same == noPubsub && own == noPubsub:
				counts["none"]++
			case same == "" && own == "":
				counts["both"]++
			case same == "" && strings.Contains(own, "opens a connection of its own"):
				counts["same only"]++
				if c.Name != "message with an array payload on __redis__:invalidate through REDIRECT" {
					t.Errorf("%q: skipped where the subscribe API has its own connection: %s", c.Name, own)
				}
			default:
				t.Errorf("%q: same %q, own %q", c.Name, same, own)
			}
		}
	}
	// transactions.yaml and pushes.yaml's two DEBUG PROTOCOL push cases
	// have neither; pushes.yaml's others and every case of pubsub.yaml and
	// tracking.yaml have one.
	want := map[string]int{"none": 9, "both": 19, "same only": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
}

// TestJudgeDelivered judges delivered items against frames: the right
// channel, pattern and payload match; a wrong or missing one does not.
func TestJudgeDelivered(t *testing.T) {
	frame := func(s string) resp.Value {
		_, v, err := resp.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	msg3 := ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n"
	pmsg2 := "*4\r\n$8\r\npmessage\r\n$3\r\nc.*\r\n$2\r\nch\r\n$2\r\nhi\r\n"
	conf := ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
	inval := ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
	redirect := "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n"
	list := func(elems ...Native) Native { return Native{Kind: "list", Type: "[]string", Elems: elems} }
	str := func(s string) Native { return stringNative("string", s) }
	for _, tc := range []struct {
		name, frame string
		n           Native
		want        Verdict
	}{
		{"message", msg3, messageOf("m", "channel", "ch", "payload", "hello"), Match},
		{"message with its kind", msg3, messageOf("m", "kind", "message", "channel", "ch", "payload", "hello"), Match},
		{"wrong payload", msg3, messageOf("m", "channel", "ch", "payload", "wrong"), Mismatch},
		{"wrong channel", msg3, messageOf("m", "channel", "other", "payload", "hello"), Mismatch},
		{"wrong kind", msg3, messageOf("m", "kind", "smessage", "channel", "ch", "payload", "hello"), Mismatch},
		{"no payload", msg3, messageOf("m", "channel", "ch"), Mismatch},
		{"pmessage", pmsg2, messageOf("m", "pattern", "c.*", "channel", "ch", "payload", "hi"), Match},
		{"pmessage without its pattern", pmsg2, messageOf("m", "channel", "ch", "payload", "hi"), Mismatch},
		{"pmessage, pattern and channel swapped", pmsg2, messageOf("m", "pattern", "ch", "channel", "c.*", "payload", "hi"), Mismatch},
		{"confirmation", conf, messageOf("s", "kind", "subscribe", "channel", "ch", "count", int64(1)), Match},
		{"confirmation, wrong count", conf, messageOf("s", "kind", "subscribe", "channel", "ch", "count", int64(2)), Mismatch},
		{"confirmation without its count", conf, messageOf("s", "kind", "subscribe", "channel", "ch"), Erased},
		{"invalidation", inval, messageOf("i", "kind", "invalidate", "keys", list(str("k"))), Match},
		{"invalidation, wrong key", inval, messageOf("i", "kind", "invalidate", "keys", list(str("x"))), Mismatch},
		{"invalidation, one event per key", inval, messageOf("i", "kind", "invalidate", "key", "k"), Match},
		{"invalidation of everything", ">2\r\n$10\r\ninvalidate\r\n_\r\n", messageOf("i", "kind", "invalidate", "keys", nil), Match},
		{"RESP2 invalidation read as one", redirect, messageOf("i", "kind", "invalidate", "keys", list(str("k"))), Match},
		{"RESP2 invalidation payload as text", redirect, messageOf("m", "channel", "__redis__:invalidate", "payload", "k"), Mismatch},
		{"a pong delivered for +PONG", "+PONG\r\n", messageOf("p", "kind", "pong", "payload", "PONG"), Erased},
		{"not a message", msg3, str("hello"), Mismatch},
		{"nothing delivered", msg3, Native{Kind: kindNone, Type: "none"}, Hang},
		{"no API", msg3, unsupported("no event"), Skip},
	} {
		v, notes := judgeDelivered(contractFor("go-redis/resp3"), frame(tc.frame), tc.n)
		if v != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.name, v, notes, tc.want)
		}
	}
}

// pubsubDrivers are every "/pubsub" configuration: the Go ones in
// process, the others through their adapters.
func pubsubDrivers(t *testing.T) []Driver {
	t.Helper()
	ds, notes := allDrivers()
	out := []Driver{goRedisPubsubDriver, rueidisPubsubDriver, valkeyGoPubsubDriver}
	for _, d := range ds {
		if _, ok := d.(*adapterDriver); ok && pubsubWhere(d) != "" && !strings.HasPrefix(d.Library(), "go-") &&
			!strings.HasPrefix(d.Library(), "rueidis") && !strings.HasPrefix(d.Library(), "valkey-go") {
			out = append(out, d)
		}
	}
	if len(out) < 14 && servers.InCI() {
		t.Fatalf("%d /pubsub configurations available, want 14: %v", len(out), notes)
	}
	return out
}

// pubsubFindings are the findings the "/pubsub" configurations are
// expected to have on Redis 8.6.3 and Valkey 9.1.2 (case name → labels,
// without the protocol), each reproduced in testdata/clients/repro.
var pubsubFindings = map[string][]string{
	// unsubscribe-api-all-hang.js
	"channel and pattern on one connection, a message and a pmessage for one PUBLISH": {
		"ioredis-6.0.0/pubsub", "iovalkey-0.4.0/pubsub", "node-redis-4.7.1/pubsub", "node-redis-5.12.1/pubsub"},
	// pubsub-message-utf8.js, valkey-glide-pubsub-non-utf8-uncaught.js
	"messages with an empty payload and a binary payload holding CR LF and NUL": {
		"ioredis-6.0.0/pubsub", "iovalkey-0.4.0/pubsub", "node-redis-4.7.1/pubsub", "node-redis-5.12.1/pubsub",
		"node-redis-6.3.1/pubsub", "valkey-glide-2.5.2/pubsub"},
	// ioredis-invalidate-message-array-payload.js, phpredis-subscribe-array-payload.php
	"message with an array payload on __redis__:invalidate through REDIRECT": {"ioredis-6.0.0/pubsub", "iovalkey-0.4.0/pubsub", "phpredis-5.3.7/pubsub"},
	// phpredis-status-as-true.php (+QUEUED as true)
	"a transaction on one connection while another is subscribed": {"phpredis-5.3.7/pubsub"},
	// redis-py-ping-pong-as-true.py (execute_command after the last unsubscribe)
	"PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3": {
		"redis-py-4.3.4/pubsub", "redis-py-6.4.0/pubsub"},
	"invalidate push from another connection's SET, read before a simple string reply": {"redis-py-6.4.0/pubsub"},
	// redis-py-pubsub-unsubscribe-before-subscribe.py (redis-py's PubSub
	// leaves the confirmations unread while nothing is subscribed), and
	// UNREPRODUCED for the other subscriber APIs: node-redis 4.7.1
	// throws outside the call ("Cannot destructure property 'resolve'"),
	// hiredis's subscriber delivers the second confirmation as the PING's
	// answer, glide does not send it.
	"UNSUBSCRIBE of two channels on a connection subscribed to none, then PING": {
		"redis-py-4.3.4/pubsub", "redis-py-6.4.0/pubsub", "node-redis-4.7.1/pubsub", "hiredis-1.2.0/pubsub", "valkey-glide-2.5.2/pubsub"},
}

// TestPubsubConfigurations runs pubsub.yaml, pushes.yaml and tracking.yaml
// through every "/pubsub" configuration on Redis 8.6.3 and Valkey 9.1.2 in
// both protocols: every configuration delivers the first case's message,
// judged match; each finding is one of pubsubFindings; nothing is an
// error. It logs the verdict counts of each configuration.
func TestPubsubConfigurations(t *testing.T) {
	var files []*cases.File
	for _, n := range []string{"pubsub.yaml", "pushes.yaml", "tracking.yaml"} {
		files = append(files, loadTestdata(t, n)...)
	}
	ds := pubsubDrivers(t)
	for _, server := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(server, func(t *testing.T) {
			// The two servers side by side, with the client matrix's
			// step deadline: the run mostly waits (on hangs).
			t.Parallel()
			srv := servers.ForTest(t, server)
			rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2, StepTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]map[string]int{}
			delivered := map[string]int{}
			for _, res := range rep.Results {
				lib, _, _ := strings.Cut(res.Client, "/resp")
				if counts[res.Client] == nil {
					counts[res.Client] = map[string]int{}
				}
				counts[res.Client][res.Verdict.String()]++
				for _, sv := range res.Steps {
					if sv.Step.Action == cases.ActPush && sv.Native != nil && sv.Native.Kind == kindMessage && !sv.Verdict.Finding() && sv.Verdict != Skip {
						delivered[res.Client]++
					}
				}
				if res.Verdict == Error || res.Verdict.Finding() && !slices.Contains(pubsubFindings[res.Case.Name], lib) {
					pubsubUnknown(t, files, ds, srv.Addr(), res)
				}
			}
			for _, c := range rep.Clients {
				sv := stepView(t, rep, c.Name, "SUBSCRIBE confirmation, then a message published on another connection", 14)
				if sv.Native == nil || sv.Native.Kind != kindMessage || sv.Verdict != Match {
					t.Errorf("%s: the message %q: %s %v %v, want a delivered message judged match", c.Name, sv.Reply, sv.Verdict, sv.Native, sv.Notes)
				}
				t.Logf("%s on %s: %v; %d push steps judged on what it delivered", c.Name, server, counts[c.Name], delivered[c.Name])
			}
		})
	}
}

// pubsubUnknown reports a result that is an error or a finding not in
// pubsubFindings, unless two runs of its case alone through its client
// have none (then it is logged as intermittent: a library racing its own
// reader, seen once on a loaded machine).
func pubsubUnknown(t *testing.T, files []*cases.File, ds []Driver, addr string, res *Result) {
	t.Helper()
	lib, _, _ := strings.Cut(res.Client, "/resp")
	i := slices.IndexFunc(ds, func(d Driver) bool { return d.Library() == lib })
	for try := 0; try < 2 && i >= 0; try++ {
		again, err := Run(context.Background(), files, Options{Target: target.Config{Addr: addr}, Drivers: ds[i : i+1],
			Protos: []int{res.Proto}, Run: regexp.MustCompile("^[^/]*/" + regexp.QuoteMeta(res.Case.Name) + "$")})
		if err == nil && len(again.Results) == 1 && !again.Results[0].Verdict.Finding() {
			t.Logf("%s %q: %s once, %s when run again (intermittent)", res.Client, res.Case.Name, res.Verdict, again.Results[0].Verdict)
			return
		}
	}
	for _, sv := range res.Steps {
		if sv.Verdict.Finding() {
			t.Errorf("%s %q line %d: %s %q %v %v canary=%q", res.Client, res.Case.Name, sv.Step.Pos.Line,
				sv.Verdict, sv.Reply, sv.Native, sv.Notes, sv.Canary)
		}
	}
	t.Errorf("%s %q: %s %s (not a known finding)", res.Client, res.Case.Name, res.Verdict, res.Reason)
}

// wrongMessageCase subscribes to a channel of a fixed name (the proxy's
// injected message must name it), then reads the message published.
const wrongMessageCase = `suite: wrong message
cases:
  - name: a message after an injected one
    steps:
      - {conn: sub, send: [SUBSCRIBE, rc-pubsub-test-channel], value: {resp2: {array: [subscribe, rc-pubsub-test-channel, 1]}, resp3: {push: [subscribe, rc-pubsub-test-channel, 1]}}}
      - {conn: pub, send: [PUBLISH, rc-pubsub-test-channel, hello], value: {type: integer}}
      - {conn: sub, push: {resp2: {array: [message, rc-pubsub-test-channel, hello]}, resp3: {push: [message, rc-pubsub-test-channel, hello]}}}
`

// TestPubsubWrongMessage: with the proxy injecting a message ("wrong")
// after the SUBSCRIBE confirmation, a library that delivers it for the
// push step of the real message ("hello") is judged a finding, and without
// the fault every configuration's message is judged match.
func TestPubsubWrongMessage(t *testing.T) {
	f, err := cases.Load("wrong.yaml", []byte(wrongMessageCase))
	if err != nil {
		t.Fatal(err)
	}
	ds := pubsubDrivers(t)
	srv := servers.ForTest(t, "redis-8.6.3")
	push := func(rep *Report, client string) *StepView {
		return stepView(t, rep, client, "a message after an injected one", 7)
	}
	// One session at a time: every session subscribes to the same channel.
	opts := Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 1}
	rep, err := Run(context.Background(), []*cases.File{f}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Clients {
		if sv := push(rep, c.Name); sv.Verdict != Match {
			t.Errorf("%s: the message judged %s %v %v, want match", c.Name, sv.Verdict, sv.Native, sv.Notes)
		}
	}
	wrongly := 0
	for proto, extra := range map[int]string{
		2: "*3\r\n$7\r\nmessage\r\n$22\r\nrc-pubsub-test-channel\r\n$5\r\nwrong\r\n",
		3: ">3\r\n$7\r\nmessage\r\n$22\r\nrc-pubsub-test-channel\r\n$5\r\nwrong\r\n",
	} {
		opts.Protos, opts.Fault = []int{proto}, Fault{ExtraAfter: "SUBSCRIBE", ExtraReply: []byte(extra)}
		rep, err := Run(context.Background(), []*cases.File{f}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Clients {
			sv := push(rep, c.Name)
			got := sv.Native != nil && strings.Contains(sv.Native.String(), `"wrong"`)
			if got {
				wrongly++
			}
			if got && !sv.Verdict.Finding() {
				t.Errorf("%s: delivered the injected message for %q, judged %s", c.Name, sv.Reply, sv.Verdict)
			}
			t.Logf("%s: push step %s, delivered %v", c.Name, sv.Verdict, sv.Native)
		}
	}
	if wrongly == 0 {
		t.Error("no configuration delivered the injected message: the fault tested nothing")
	}
}
