package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// TestNodeTyped runs seed 000 and the SET IF*/DIGEST case through the Node
// clients in typed-wrapper mode (node-redis set({condition, matchValue,
// GET}) and digest(), ioredis set(key, value, 'IFEQ', v, 'GET')...) on
// Redis 8.6.3: every SET step goes through a wrapper, the wrapper sends the
// case's own command, and what it returns matches the reply it received.
func TestNodeTyped(t *testing.T) {
	ext := externalDrivers(t, "node-redis-typed", "ioredis-typed")
	if len(ext) == 0 {
		return
	}
	srv := servers.ForTest(t, "redis-8.6.3")
	files := append(loadTestdata(t, "seed000.yaml"), loadTestdata(t, "typed.yaml")...)
	rep, err := Run(context.Background(), files, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: ext, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep, false)
	steps := 0
	for _, res := range rep.Results {
		if res.Reason != "" {
			t.Errorf("%s %q: %s %s", res.Client, res.Case.Name, res.Verdict, res.Reason)
		}
		for _, sv := range res.Steps {
			if sv.Step.Action != cases.ActSend {
				continue
			}
			steps++
			cmd := strings.ToUpper(string(sv.Step.Send[0].Source()))
			if sv.Verdict == Skip {
				// Typed mode skips what has no wrapper (GET here; DIGEST
				// in ioredis, which declares no digest()) and the steps
				// that use a skipped step's capture: never a silent
				// generic call.
				digestless := cmd == "DIGEST" || strings.Contains(fmt.Sprint(sv.Step.Send), "cap:d")
				if (cmd == "SET" || cmd == "DIGEST") && !(digestless && strings.HasPrefix(res.Client, "ioredis-typed/")) || len(sv.Notes) == 0 {
					t.Errorf("%s %s line %d: skipped %v", res.Client, cmd, sv.Step.Pos.Line, sv.Notes)
				}
				continue
			}
			wantTyped := cmd == "SET" || cmd == "DIGEST"
			if wantTyped != (sv.Typed != "") {
				t.Errorf("%s %s (line %d): typed wrapper %q, want one: %v", res.Client, cmd, sv.Step.Pos.Line, sv.Typed, wantTyped)
			}
			if sv.Wire != nil {
				t.Errorf("%s line %d: the wrapper sent another command: %v", res.Client, sv.Step.Pos.Line, sv.Notes)
			}
			if sv.Verdict.Finding() {
				t.Errorf("%s line %d via %s: %s %v (received %q, decoded %v)", res.Client, sv.Step.Pos.Line, sv.Typed, sv.Verdict, sv.Notes, sv.Reply, sv.Native)
			}
		}
	}
	if steps == 0 {
		t.Fatal("no step ran")
	}
	for _, c := range rep.Clients {
		sv := stepView(t, rep, c.Name, "SET IFEQ GET with a failed condition", 18)
		if string(sv.Reply) != "$8\r\noriginal\r\n" || sv.Native == nil || sv.Native.Kind != "string" || sv.Typed == "" {
			t.Errorf("%s SET IFEQ GET via %q: received %q, decoded %v (%s)", c.Name, sv.Typed, sv.Reply, sv.Native, sv.Verdict)
		} else {
			t.Logf("%s: SET ... IFEQ wrong-guess GET via %s decoded as %s: %s", c.Name, sv.Typed, sv.Native, sv.Verdict)
		}
	}
}
