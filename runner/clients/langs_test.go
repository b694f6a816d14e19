package clients

import (
	"context"
	"testing"

	"github.com/respcheck/respcheck/cases"
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
		if len(ds) == 7 && len(rep.Results) != 9 { // hiredis in both protocols
			t.Errorf("%d results, want 9", len(rep.Results))
		}
		for _, res := range rep.Results {
			shifted := fault.ExtraAfter != ""
			if res.Reason == noBatch {
				continue // a /pipeline configuration (TestLangBatchConfigurations)
			}
			if (res.Verdict >= Mismatch) != shifted {
				t.Errorf("%s (extra reply after %q): %s, want a finding: %v", res.Client, fault.ExtraAfter, res.Verdict, shifted)
				for _, sv := range res.Steps {
					t.Logf("  %s %s %v canary=%q", FormatArgs(sv.Args), sv.Verdict, sv.Native, sv.Canary)
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
					t.Logf("  %s %s %v %v canary=%q", FormatArgs(sv.Args), sv.Verdict, sv.Native, sv.Notes, sv.Canary)
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
