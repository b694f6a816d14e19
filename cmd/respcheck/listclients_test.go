package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestListClients checks --list-clients: every configuration with its
// version, configuration, API and source, in JSON and for people, and a
// line with the reason for one that is not installed.
func TestListClients(t *testing.T) {
	code, out, errs := respcheck(t, "clients", "--list-clients", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct{ Clients []clients.Configuration }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]clients.Configuration{}
	for _, c := range doc.Clients {
		byName[c.Name] = c
		if c.Installed && (c.Version == "" || c.API == "" || c.Source == "" || len(c.Protos) == 0) {
			t.Errorf("%s: installed, but without its version, API, source or protocols: %+v", c.Name, c)
		}
		if !c.Installed && c.Reason == "" {
			t.Errorf("%s: not installed, and no reason", c.Name)
		}
	}
	for _, b := range servers.Pinned {
		fam, ver, _ := strings.Cut(b, "-")
		for _, name := range []string{fam + "-cli-" + ver, fam + "-cli-" + ver + "[--no-raw]"} {
			c, ok := byName[name]
			switch {
			case !ok:
				t.Errorf("%s is not listed", name)
			case !c.Installed && servers.InCI():
				t.Errorf("CI is set and %s is not installed: %s", name, c.Reason)
			case c.Installed && (c.Version != ver || !strings.Contains(c.Source, b)):
				t.Errorf("%s: version %q, source %q", name, c.Version, c.Source)
			}
		}
	}
	// Every configuration of the committed client matrices (made from an
	// adapter process per configuration) is listed, installed in CI: the
	// listing asks one process per adapter for all of its configurations.
	b, err := os.ReadFile(clientMatrixJSONPath)
	if err != nil {
		t.Fatal(err)
	}
	var matrix struct {
		Sections []struct{ Clients []struct{ Library string } }
	}
	if err := json.Unmarshal(b, &matrix); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range matrix.Sections {
		for _, c := range s.Clients {
			n++
			if l, ok := byName[c.Library]; !ok || !l.Installed && servers.InCI() {
				t.Errorf("%s (a configuration of the committed matrix) is not listed installed: %+v", c.Library, l)
			}
		}
	}
	if n < 100 {
		t.Errorf("the committed matrix lists %d clients", n)
	}
	if c := byName["redis-cli-8.6.3[--no-raw]"]; c.Installed && (c.Library != "redis-cli" || len(c.Options) != 1 || c.Options[0] != "--no-raw") {
		t.Errorf("label parts of %s: %+v", c.Name, c)
	}

	// Without the server builds, their CLIs are listed as not installed.
	empty := t.TempDir()
	t.Setenv("RESPCHECK_CACHE", empty)
	os.MkdirAll(empty, 0o755)
	code, out, errs = respcheck(t, "clients", "--list-clients")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "redis-cli-8.6.3[--no-raw]\n  not installed: server build redis-8.6.3 not installed (run scripts/install-servers.sh)\n") {
		t.Errorf("no reason for the missing redis-cli-8.6.3:\n%s", out)
	}
	if !strings.Contains(out, "go-redis\n  version:       v9.") || !strings.Contains(out, "  source:        Go module github.com/redis/go-redis/v9 v9.") {
		t.Errorf("go-redis is not listed with its version and source:\n%s", out)
	}
	if code, _, _ := respcheck(t, "clients", "--list-clients", "--format", "junit"); code != 2 {
		t.Errorf("--list-clients --format junit: exit %d, want 2", code)
	}
}

// TestExplain: --explain prints a client's decoding contract: what each RESP
// type may decode as, with its verdict, and the documented conversions with
// their sources (redis-py's HGETALL dict); a command-line client's is its
// printed text; --format json is one document; a name that selects nothing
// is a usage error.
func TestExplain(t *testing.T) {
	code, out, errs := respcheck(t, "clients", "--explain", "redis-py-6.4.0", "--proto", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"redis-py-6.4.0/resp2 6.4.0 via Redis.execute_command(*args)\n",
		"\n    blob string      bytes match, string match\n",
		"\n    simple string    bool match, bytes erased, string erased\n",
		"\n  conversion: RESP2 array of field-value pairs → dict (response callback, e.g. HGETALL)\n    source: redis-py 4.3.4 redis/client.py",
		"\n  conversion: +PONG → True (PING's response callback)\n",
		"\n  callback on SET: SET's callback parse_set_result",
		"\n  callback on ZSCORE ZINCRBY: the callback float_or_none (RESP2)\n    source: redis-py 6.4.0 redis/_parsers/helpers.py",
		"\nthe rules a verdict names (a finding's \"rule\"):\n  kind ",
		"\n  callback      a response callback",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain redis-py-6.4.0 lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "note: converted:") || strings.Contains(out, "/resp3") {
		t.Errorf("a conversion repeated as a note, or RESP3 despite --proto 2:\n%s", out)
	}
	code, out, _ = respcheck(t, "clients", "--explain", "redis-cli-8.6.3", "--format", "json")
	var doc struct {
		Contracts []clients.Explanation
		Rules     []clients.RuleDoc
	}
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil || len(doc.Contracts) < 2 || !doc.Contracts[0].Text || len(doc.Contracts[0].Rules) != 0 ||
		len(doc.Rules) != len(clients.Rules) {
		t.Errorf("--explain redis-cli-8.6.3 --format json: exit %d, %v: %.2000s", code, err, out)
	}
	for _, args := range [][]string{{"no-such-library"}, {","}, {"redis-py-4.3.4", "--proto", "3"}} {
		if code, out, errs := respcheck(t, append([]string{"clients", "--explain"}, args...)...); code != exitUsage || !strings.Contains(errs, "--explain") {
			t.Errorf("--explain %q: exit %d: %s%s", args, code, out, errs)
		}
	}
}
