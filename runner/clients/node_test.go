package clients

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// nodeCase has a reply of each common type that every Node configuration
// decodes faithfully (2.5 is a double every parser reads exactly; from
// EVAL, not ZSCORE, whose RESP2 blob valkey-glide turns into a number), then a
// transaction and a pipeline for the "/pipeline" configurations.
const nodeCase = `suite: "Node configurations"
cases:
  - name: one reply of each type, a transaction and a pipeline
    steps:
      - {send: [SET, "{key}", v], reply: "+OK\r\n"}
      - {send: [GET, "{key}"], reply: "$1\r\nv\r\n"}
      - {send: [HSET, "{key:h}", f, v], reply: ":1\r\n"}
      - {send: [HGETALL, "{key:h}"], reply: {resp2: "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", resp3: "%1\r\n$1\r\nf\r\n$1\r\nv\r\n"}}
      - {send: [EVAL, "redis.setresp(3); return {double=2.5}", "0"], reply: {resp2: "$3\r\n2.5\r\n", resp3: ",2.5\r\n"}}
      - {send: [SADD, "{key:s}", a], reply: ":1\r\n"}
      - {send: [SMEMBERS, "{key:s}"], reply: {resp2: "*1\r\n$1\r\na\r\n", resp3: "~1\r\n$1\r\na\r\n"}}
      - {send: [GET, "{key:missing}"], reply: {resp2: "$-1\r\n", resp3: "_\r\n"}}
      - {send: [MULTI], reply: "+OK\r\n"}
      - {send: [INCR, "{key:n}"], reply: "+QUEUED\r\n"}
      - {send: [EXEC], reply: "*1\r\n:1\r\n"}
      - {send: [INCR, "{key:n}"], async: true}
      - {send: [GET, "{key}"], async: true}
      - {read: true, reply: ":2\r\n"}
      - {read: true, reply: "$1\r\nv\r\n"}
`

// TestNodeConfigurations runs nodeCase through every configuration of the
// Node adapter (each version, each decoding option, each /pipeline) on
// Redis 8.6.3: every configuration listed by adapter.js --list loads, every
// value it decoded is judged no finding under its contract, each option
// gives its shape (optionShapes), and each value judged against another
// step's reply is a finding (proofShifted, here on maps, doubles and sets
// too).
func TestNodeConfigurations(t *testing.T) {
	labels := nodeLabels(t)
	ds := externalDrivers(t, labels...)
	if len(ds) == 0 {
		return
	}
	f, err := cases.Load("node.yaml", []byte(nodeCase))
	if err != nil {
		t.Fatal(err)
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ds, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, res := range rep.Results {
		lib, _, _ := strings.Cut(res.Client, "/resp")
		seen[lib] = true
		if res.Verdict.Finding() || len(res.Steps) == 0 {
			t.Errorf("%s: %s %s", res.Client, res.Verdict, res.Reason)
		}
		var judged []StepView
		for i, sv := range res.Steps {
			if sv.Native == nil || sv.Reply == nil || sv.Verdict == Skip {
				continue
			}
			judged = append(judged, sv)
			if sv.Verdict.Finding() {
				t.Errorf("%s step %d %q: %s %v", res.Client, i, sv.Reply, sv.Verdict, sv.Notes)
			}
		}
		proofShifted(t, res.Client, judged)
		t.Logf("%s (%s): %d values judged, %s", res.Client, apiOf(ds, lib), len(judged), res.Verdict)
		if want, ok := optionShapes[res.Client]; ok {
			for step, kt := range want {
				if n := res.Steps[step].Native; n == nil || n.Kind+" "+n.Type != kt {
					t.Errorf("%s step %d: %v, want a %s (the option's shape)", res.Client, step, n, kt)
				}
			}
		}
	}
	for _, l := range labels {
		if !seen[l] {
			t.Errorf("configuration %s: no result", l)
		}
	}
}

// optionShapes are the native kind and type an option gives nodeCase's
// steps (by index: 1 GET, 2 HSET, 3 HGETALL, 4 the double, 6 SMEMBERS),
// against the default's.
var optionShapes = map[string]map[int]string{
	"ioredis-6.0.0/resp3":                            {3: "list Array", 4: "string string"},
	"ioredis-6.0.0[replyMapping=resp3]/resp3":        {3: "map Object", 4: "number number"},
	"ioredis-6.0.0[stringNumbers=true]/resp2":        {2: "string string"},
	"node-redis-6.3.1/resp3":                         {1: "string string", 3: "map Object", 4: "number number", 6: "list Array"},
	"node-redis-6.3.1[typeMapping=Map+Buffer]/resp3": {1: "bytes Buffer", 3: "map Map"},
	"node-redis-6.3.1[typeMapping=Set+String]/resp3": {4: "string string", 6: "set Set"},
}

// nodeLabels lists the Node adapter's configurations but its typed modes
// (which TestTyped covers) and its /pubsub ones (TestPubsubConfigurations).
func nodeLabels(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if servers.InCI() {
			t.Fatal("node not on PATH")
		}
		t.Skip("node not on PATH")
	}
	all, err := nodeConfigurations(node, filepath.Join(adaptersDir(""), "node"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(l string) bool {
		return strings.HasSuffix(l, "-typed") || strings.HasSuffix(l, "/pubsub") || strings.HasSuffix(l, ClusterVariant)
	})
}

func apiOf(ds []Driver, lib string) string {
	for _, d := range ds {
		if d.Library() == lib {
			return d.API()
		}
	}
	return "?"
}

// TestNodeContracts: what each option's contract accepts, and the wrong
// values next to it that it does not.
func TestNodeContracts(t *testing.T) {
	watch := errNative("error", "WatchError", "WatchError", "WatchError: One (or more) of the watched keys has been changed")
	for _, tc := range []struct {
		client, reply string
		n             Native
		want          Verdict
	}{
		{"node-redis-6.3.1/pipeline/resp2", "*-1\r\n", watch, Converted},
		{"node-redis-6.3.1/pipeline/resp3", "_\r\n", watch, Converted},
		{"node-redis-6.3.1/pipeline/resp2", "*1\r\n:3\r\n", watch, Mismatch},
		{"node-redis-4.7.1/resp2", "*-1\r\n", watch, Converted},
		{"ioredis-6.0.0/pipeline/resp2", "*-1\r\n", watch, Mismatch},
		{"ioredis-6.0.0[stringNumbers=true]/resp2", ":9007199254740993\r\n", stringNative("string", "9007199254740993"), Erased},
		{"ioredis-6.0.0[stringNumbers=true]/resp2", ":9007199254740993\r\n", stringNative("string", "9007199254740992"), Mismatch},
		{"ioredis-6.0.0/resp2", ":9007199254740993\r\n", stringNative("string", "9007199254740993"), Mismatch},
		{"ioredis-6.0.0[stringNumbers=true]/resp3", ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", stringNative("string", "1"), Converted},
		{"ioredis-6.0.0[stringNumbers=true]/resp3", ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", stringNative("string", "2"), Mismatch},
		{"ioredis-6.0.0/resp3", ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", stringNative("string", "1"), Mismatch},
		{"ioredis-6.0.0/resp3", "#t\r\n", tx("number", "number", "1"), Erased},
		{"ioredis-6.0.0[replyMapping=resp3]/resp3", "#t\r\n", tx("number", "number", "1"), Mismatch},
		{"ioredis-6.0.0[replyMapping=resp3]/resp3", "#t\r\n", tx("bool", "boolean", "true"), Match},
		{"ioredis-6.0.0[replyMapping=resp3]/resp3", ",3.14159\r\n", tx("number", "number", "3.1415900000000003"), Mismatch},
		{"node-redis-6.3.1[typeMapping=Map+Buffer]/resp3", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("Map", "f", "v"), Match},
		{"node-redis-6.3.1[typeMapping=Map+Buffer]/resp3", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("Map", "f", "w"), Mismatch},
		{"node-redis-6.3.1[typeMapping=Set+String]/resp3", ",2.5\r\n", stringNative("string", "2.5"), Erased},
		{"node-redis-6.3.1[typeMapping=Set+String]/resp3", ",2.5\r\n", stringNative("string", "2.6"), Mismatch},
		{"node-redis-6.3.1/resp3", "%2\r\n$9\r\n__proto__\r\n$1\r\nx\r\n$1\r\nf\r\n$1\r\nv\r\n", dict("Object", "f", "v"), Mismatch},
	} {
		got, notes := contractFor(tc.client).Judge(parse(t, tc.reply), tc.n)
		if got != tc.want {
			t.Errorf("%s %q as %s: %s, want %s (%v)", tc.client, tc.reply, tc.n, got, tc.want, notes)
		}
	}
}
