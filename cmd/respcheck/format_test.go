package main

import (
	"strings"
	"testing"
)

// TestUnknownFormat: --format is checked against the report registry
// before any server is involved: a usage error (exit 2) naming the formats
// the command can write.
func TestUnknownFormat(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "nope"}, `bad --format "nope": want human, json, junit, jsonl, tap or html`},
		{[]string{"clients", "--format", "tap"}, `bad --format "tap": want human, json, junit, markdown or html`},
	} {
		code, out, errs := respcheck(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errs, exitUsage, tc.want)
		}
	}
}
