package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/report"
	rschema "github.com/respcheck/respcheck/runner/report/schema"
	"github.com/respcheck/respcheck/runner/schema"
	"github.com/respcheck/respcheck/runner/servers"
)

// TestSchemaCommittedGoldens checks every RESP3 reply of the committed
// goldens of the four builds with schemas: each finding is one a
// reproduction of testdata/schema/repro names (its finds: line) for that
// build (a run: line), so a new kind of finding fails until it is
// classified and reproduced.
func TestSchemaCommittedGoldens(t *testing.T) {
	builds := []string{"redis-8.0.6", "valkey-8.1.1", "redis-8.6.3", "valkey-9.1.2"}
	args := []string{"schema", "--format", "json"}
	for _, b := range builds {
		schema.ForTest(t, b)
		args = append(args, "../../testdata/golden/"+b)
	}
	code, out, errs := respcheck(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var reps []schema.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatal(err)
	}
	known := reproducedFindings(t)
	for _, r := range reps {
		if r.Checked < 400 || r.NoSchemaCommands["SUBSCRIBE"] == 0 {
			t.Errorf("%s: %d checked, no schema %v", r.Build, r.Checked, r.NoSchemaCommands)
		}
		for _, f := range r.Findings {
			if k := f.Command + " " + f.File + "#" + f.Path; !known[r.Build][k] {
				t.Errorf("%s: %s: %q has no reproduction in testdata/schema/repro for this build (%s)", r.Build, f.Pos, k, f.Reply)
			}
		}
	}
}

// reproducedFindings are, by build (a run: line of the repro), the
// findings testdata/schema/repro reproduces (finds: "CMD
// file.json#/path").
func reproducedFindings(t *testing.T) map[string]map[string]bool {
	repros, err := schema.Repros("../../testdata/schema/repro")
	if err != nil || len(repros) < 2 {
		t.Fatalf("repros: %d %v", len(repros), err)
	}
	out := map[string]map[string]bool{}
	for _, r := range repros {
		for _, b := range r.Builds {
			if out[b] == nil {
				out[b] = map[string]bool{}
			}
			out[b][r.Finds] = true
		}
	}
	return out
}

// TestSchemaFindingInAGolden edits one RESP3 reply of a golden into a map
// where get.json wants a string or a null: a finding naming /oneOf, the
// command and the reply; --fail-on-findings makes it exit 1.
func TestSchemaFindingInAGolden(t *testing.T) {
	schema.ForTest(t, "redis-8.6.3")
	dir := t.TempDir()
	src := "../../testdata/golden/redis-8.6.3/"
	for _, name := range []string{"_server.golden", "strings.golden"} {
		b, err := os.ReadFile(src + name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "strings.golden" {
			// The RESP3 run of the first case: its GET's reply.
			i := strings.Index(string(b), "resp3 pass")
			j := i + strings.Index(string(b[i:]), `reply "$8\r\noriginal\r\n"`)
			b = []byte(string(b[:j]) + `reply "%1\r\n+a\r\n+b\r\n"` + string(b[j+len(`reply "$8\r\noriginal\r\n"`):]))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := respcheck(t, "schema", dir)
	if code != 0 || !strings.Contains(out, `SCHEMA `+dir+`/strings.golden:`) ||
		!strings.Contains(out, `reply: "%1\r\n+a\r\n+b\r\n"`) || !strings.Contains(out, "schema: get.json#/oneOf") ||
		!strings.Contains(out, "1 findings") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := respcheck(t, "schema", "--fail-on-findings", dir); code != 1 {
		t.Errorf("--fail-on-findings: exit %d %s", code, errs)
	}
	t.Setenv("RESPCHECK_CACHE", t.TempDir())
	if code, _, errs := respcheck(t, "schema", dir); code != 2 || !strings.Contains(errs, "run scripts/install-schemas.sh") {
		t.Errorf("not installed: exit %d %s", code, errs)
	}
}

// TestRunCheckSchema runs a case file on real servers with --check-schema:
// LPOS, HGETALL and CLIENT INFO fit their schemas; GEOHASH's null for a
// missing member is a finding (geohash.json wants a string per member in
// Redis 8.6.3 and Valkey 9.1.2, where geohashCommand answers addReplyNull),
// which does not change the exit status. The JSON report fits
// run.schema.json.
func TestRunCheckSchema(t *testing.T) {
	for _, build := range []string{"redis-8.6.3", "valkey-9.1.2"} {
		t.Run(build, func(t *testing.T) {
			servers.ForTest(t, build).Stop()
			schema.ForTest(t, build)
			code, out, errs := respcheck(t, "run", "--server", build, "--servers", "1", "--check-schema", "--format", "json", "testdata/schema-check.yaml")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			if err := rschema.Check("run", []byte(out)); err != nil {
				t.Errorf("run.schema.json: %v", err)
			}
			var rep report.JSONReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			s := rep.Schema
			if s == nil || s.Build != build || s.Checked != 8 || len(s.Findings) != 1 {
				t.Fatalf("schema check: %+v", s)
			}
			f := s.Findings[0]
			if f.Command != "GEOHASH" || f.Path != "/items/type" || f.Reply != `"*2\r\n$11\r\nsqc8b49rny0\r\n_\r\n"` || f.Step != 7 {
				t.Errorf("finding: %+v", f)
			}
		})
	}
}

// TestRunCheckSchemaNotInstalled: a build without schemas (miniredis) is
// a note naming the install script, and the run goes on.
func TestRunCheckSchemaNotInstalled(t *testing.T) {
	code, out, errs := respcheck(t, "run", "--server", "miniredis", "--check-schema", "--run", "strings/SET then GET")
	if code != 0 || !strings.Contains(out, "reply schemas not installed") || !strings.Contains(out, "run scripts/install-schemas.sh") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// TestSchemaDirWithoutSchemas: a golden directory of a build without
// schemas (redis-7.0.15, a binary package) beside one with them is
// reported as such and the other is still checked (exit 0), each summary
// naming its directory; alone, it is
// exit 2 saying why.
func TestSchemaDirWithoutSchemas(t *testing.T) {
	schema.ForTest(t, "redis-8.6.3")
	code, out, errs := respcheck(t, "schema", "../../testdata/golden/redis-8.6.3", "../../testdata/golden/redis-7.0.15")
	if code != 0 || !strings.Contains(out, "../../testdata/golden/redis-8.6.3 (redis-8.6.3) reply schemas: ") ||
		!strings.Contains(out, "../../testdata/golden/redis-7.0.15: no reply schemas for redis-7.0.15") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = respcheck(t, "schema", "../../testdata/golden/redis-7.0.15")
	if code != 2 || !strings.Contains(errs, "comes from a binary package") {
		t.Errorf("alone: exit %d %s", code, errs)
	}
}

// TestSchemaNotAGoldenDir: a directory without golden files is a usage
// error naming it (it said the schemas of build "-" were not installed).
func TestSchemaNotAGoldenDir(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := respcheck(t, "schema", dir)
	if code != 2 || !strings.Contains(errs, dir+" holds no golden files") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
