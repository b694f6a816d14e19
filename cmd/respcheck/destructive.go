package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// confirmDestructive stands between --allow-destructive and an existing
// server that holds keys: before any case is sent it says which selected
// cases send commands reaching beyond their keys (runner.DestructiveUses)
// and how many keys the database holds, and goes on only when the
// database is empty, --confirm-destructive is given, or a person types
// "yes" on a terminal; otherwise it refuses with a usage error (exit 2).
// Only INFO, HELLO and DBSIZE reach the server meanwhile; the keys of
// every database count (INFO keyspace), not only the selected one's.
func confirmDestructive(ctx context.Context, stderr io.Writer, cfg target.Config, cs []*cases.Case, confirmed bool) error {
	uses := runner.DestructiveUses(cs)
	if len(uses) == 0 {
		return nil
	}
	tg, err := target.Open(ctx, cfg)
	if err != nil {
		return serverErr(err)
	}
	// Every database counts: FLUSHALL, SWAPDB and MOVE reach beyond the
	// selected one, which may be empty while another holds the data.
	byDB, err := tg.KeysByDB(ctx)
	if err != nil {
		return serverErr(err)
	}
	var n int64
	dbs := make([]int, 0, len(byDB))
	for db, k := range byDB {
		n += k
		dbs = append(dbs, db)
	}
	if n == 0 {
		return nil
	}
	holds := fmt.Sprintf("whose database holds %d %s", n, cases.Plural(int(n), "key", "keys"))
	if len(dbs) > 1 || dbs[0] != cfg.DB {
		slices.Sort(dbs)
		parts := make([]string, len(dbs))
		for i, db := range dbs {
			parts[i] = fmt.Sprintf("db%d %d", db, byDB[db])
		}
		holds = fmt.Sprintf("whose databases hold %d %s (%s; the selected one is db%d)", n, cases.Plural(int(n), "key", "keys"), strings.Join(parts, ", "), cfg.DB)
	}
	list := destructiveList(uses)
	what := fmt.Sprintf("--allow-destructive: %d selected %s commands that reach beyond their own keys, on %s, %s:\n%s",
		len(uses), cases.Plural(len(uses), "case sends", "cases send"), cfg.Addr, holds, list)
	if confirmed {
		fmt.Fprintf(stderr, "respcheck: %s\nrespcheck: running them (--confirm-destructive)\n", what)
		return nil
	}
	if isTerminal(stderr) && isTerminal(os.Stdin) {
		fmt.Fprintf(stderr, "respcheck: %s\nType yes to run them: ", what)
		// Ctrl-C at the question ends it at once (the read would hold
		// the process until the forced exit, 5 s later).
		answer := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
			answer <- line
		}()
		select {
		case line := <-answer:
			if strings.TrimSpace(line) == "yes" {
				return nil
			}
		case <-ctx.Done():
			fmt.Fprintln(stderr)
			return interruptedErr("interrupted at the question; nothing was sent")
		}
	}
	return usageErr("%s\nnothing was sent; --confirm-destructive runs them, and without --allow-destructive they are skipped", what)
}

// destructiveList is one line per use: "  name (file:line:col): FLUSHALL".
func destructiveList(uses []runner.DestructiveUse) string {
	var b strings.Builder
	for i, u := range uses {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %s (%s): %s", u.Case.FullName(), u.Pos, u.Cmd)
	}
	return b.String()
}

// ranDestructive names the cases of rep that sent a command reaching
// beyond their keys and ran (not skipped): "name (FLUSHALL at pos)", or
// "" when none did.
func ranDestructive(rep *runner.Report) string {
	var ran []*cases.Case
	for _, res := range rep.Results {
		if res.Status != runner.Skip && !res.NotRun {
			ran = append(ran, res.Case)
		}
	}
	var names []string
	seen := map[*cases.Case]bool{}
	for _, u := range runner.DestructiveUses(ran) {
		if !seen[u.Case] {
			seen[u.Case] = true
			names = append(names, fmt.Sprintf("%q (%s at %s)", u.Case.FullName(), u.Cmd, u.Pos))
		}
	}
	return strings.Join(names, ", ")
}
