package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/explore"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestExploreWritesCasesThatRun: redis-8.6.3 against valkey-9.1.2 finds
// differences, shrinks them, and writes a case file that passes as run
// runs it on each of the two servers (the expectations under when:
// valkey are Valkey's bytes). --check-schema finds replies Redis 8.6.3's
// own schemas reject (GEOHASH of a missing member answers a null
// element; geohash.json's items are strings), kept out of the case file.
func TestExploreWritesCasesThatRun(t *testing.T) {
	servers.ForTest(t, "valkey-9.1.2").Stop()
	dir := t.TempDir()
	code, out, errs := respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "valkey-9.1.2", "--sequences", "300", "--seed", "5", "--out", dir, "--check-schema")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errs)
	}
	file, data := exploreCaseFile(t, dir, out, "seed 5", "distinct differences", "not on B (valkey 9.1.2), not sent: DELEX, DIGEST", "case file: ",
		"findings of A's reply schemas", "GEOHASH: A's reply does not fit its reply schema (geohash.json#/items/type)")
	if n := strings.Count(string(data), "\n  - name: "); n < 20 {
		t.Errorf("%d cases written, want 20 or more:\n%s", n, data)
	}
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		if code, out, errs := respcheck(t, "run", "--server", build, file); code != exitOK {
			t.Errorf("the written cases on %s: exit %d\n%s\n%s", build, code, out, errs)
		}
	}
}

// TestExploreMiniredisFaults: against the embedded miniredis, the
// explorer finds faults of the emulator itself, each shrunk to one
// command (reproduced without respcheck by runner/explore's
// TestMiniredisFaultsReproduce): a crash (the process is started again
// and the run goes on), a reply that is not RESP (SRANDMEMBER with -2^63
// as count), two replies to one command (XLEN of a hash). --format json
// is one object, the faults apart from the differences, each with its
// shrunk sequence and the target at fault.
func TestExploreMiniredisFaults(t *testing.T) {
	code, out, errs := respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "miniredis", "--sequences", "500", "--seed", "6", "--format", "json")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errs)
	}
	var rep explore.JSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Sequences != 500 || rep.Seed != 6 || len(rep.Differences) == 0 {
		t.Errorf("report: %d sequences, seed %d, %d differences", rep.Sequences, rep.Seed, len(rep.Differences))
	}
	faults := map[string][][]string{}
	for _, f := range rep.Faults {
		faults[f.Signature] = f.Sequence
		// Redis 8.6.3's own: SET ... IFDEQ ... GET answered twice
		// (testdata/servers/repro/redis-set-ifdeq-get-two-replies.sh).
		if f.Target != "B" && f.Signature != "SET: A answers one command with another number of replies" {
			t.Errorf("a fault not of B (miniredis): %+v", f)
		}
	}
	for _, want := range []string{"SETRANGE: B stopped answering (a crash or a freeze)", "SRANDMEMBER: B sent bytes that are not RESP", "XLEN: B answers one command with another number of replies"} {
		if seq, ok := faults[want]; !ok || len(seq) != 1 {
			t.Errorf("fault %q: sequence %q (want one command)\nfaults: %v", want, seq, faults)
		}
	}
	for _, f := range append(rep.Faults, rep.Differences...) {
		if len(f.Sequence) == 0 || f.Signature == "" {
			t.Errorf("a finding without its sequence or signature: %+v", f)
		}
	}
}

// TestExploreUsage: --against is required; a bad --proto is a usage
// error.
func TestExploreUsage(t *testing.T) {
	for _, args := range [][]string{{"explore", "--addr", "127.0.0.1:1"}, {"explore", "--against", "miniredis", "--proto", "4"}, {"explore", "--against", "miniredis", "--duration", "0"}} {
		if code, out, errs := respcheck(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d\n%s\n%s", args, code, exitUsage, out, errs)
		}
	}
}

// TestExploredCasesPass: the case files respcheck explore wrote and that
// are committed in testdata/explore (explore-A-vs-B-SEED.yaml) pass as
// run runs them on both of their servers: the differences they hold are
// still the servers' (a server that changes its bytes fails here).
func TestExploredCasesPass(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/explore/explore-*-vs-*.yaml")
	if len(files) < 2 {
		t.Fatalf("explored case files: %v", files)
	}
	for _, f := range files {
		a, b, ok := strings.Cut(strings.TrimPrefix(filepath.Base(f), "explore-"), "-vs-")
		if !ok {
			t.Fatalf("%s: not explore-A-vs-B-SEED.yaml", f)
		}
		b = b[:strings.LastIndex(b, "-")]
		if strings.HasPrefix(b, "miniredis") {
			b = "miniredis"
		}
		for _, build := range []string{a, b} {
			if code, out, errs := respcheck(t, "run", "--server", build, f); code != exitOK || !strings.Contains(out, " 0 failed, 0 skipped") {
				t.Errorf("%s on %s: exit %d\n%s\n%s", filepath.Base(f), build, code, out, errs)
			}
		}
	}
}

// TestExploreBusyBlocks: with --busy, sequences hold busy blocks (a script
// past busy-reply-threshold on a second connection), Redis 8.6.3 and
// Valkey 9.1.2 differ in what PING and the kills answer meanwhile, and
// the case file, whose busy cases send the script async on connection
// busy, passes on both. --busy is refused for an existing server and
// for miniredis.
func TestExploreBusyBlocks(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "valkey-9.1.2", "--sequences", "6", "--length", "1", "--busy", "1", "--seed", "1", "--out", dir)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errs)
	}
	file, data := exploreCaseFile(t, dir, out, "PING: simple error BUSY Redis is | simple error BUSY Valkey is", "SCRIPT: simple error BUSY Redis is", "FUNCTION: simple error BUSY Redis is")
	if n := strings.Count(string(data), "conn: busy\n        async: true"); n < 3 {
		t.Errorf("%d busy blocks in the case file, want 3 or more:\n%s", n, data)
	}
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		if code, out, errs := respcheck(t, "run", "--server", build, file); code != exitOK {
			t.Errorf("the written cases on %s: exit %d\n%s\n%s\n%s", build, code, out, errs, data)
		}
	}
	code, _, errs = respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "miniredis", "--sequences", "5", "--busy", "0.5")
	if code != exitUsage || !strings.Contains(errs, "--busy needs throwaway servers") {
		t.Errorf("--busy against miniredis: exit %d\n%s", code, errs)
	}
}

// TestExploreOnClusters: on clusters named by a node that does not own
// the keyspace's slot (the first primary owns slot 4516, {rx}'s), the
// sequences go to the primary that owns it (no reply is a redirection),
// and SELECT differs as the bundled suite declares for clusters: Redis
// 8.6.3 refuses it in cluster mode, Valkey 9.1.2 (databases in cluster
// mode) checks the index. --cluster N gives B (a build) a throwaway
// cluster too: miniredis, which has none, is refused.
func TestExploreOnClusters(t *testing.T) {
	ca := servers.ClusterForTest(t, "redis-8.6.3", servers.ClusterOptions{Primaries: 3})
	cb := servers.ClusterForTest(t, "valkey-9.1.2", servers.ClusterOptions{Primaries: 3})
	code, out, errs := respcheck(t, "explore", "--addr", ca.Addrs()[1], "--against", cb.Addrs()[2], "--sequences", "200", "--seed", "3")
	if code != exitFindings || !strings.Contains(out, "SELECT: simple error ERR SELECT is | simple error ERR DB index") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, bad := range []string{"MOVED", "ASK ", "CROSSSLOT"} {
		if strings.Contains(out, bad) {
			t.Errorf("a reply is a redirection or a slot error (%s):\n%s", bad, out)
		}
	}
	code, _, errs = respcheck(t, "explore", "--server", "redis-8.6.3", "--against", "miniredis", "--cluster", "3", "--sequences", "1")
	if code != exitUsage || !strings.Contains(errs, "miniredis has no cluster mode") {
		t.Errorf("--cluster against miniredis: exit %d\n%s", code, errs)
	}
}

// exploreCaseFile checks that explore's output out holds each of wants
// and that it wrote one case file into dir, and returns its path and
// bytes.
func exploreCaseFile(t *testing.T, dir, out string, wants ...string) (string, []byte) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("case files written: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return files[0], data
}
