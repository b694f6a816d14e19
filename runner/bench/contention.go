package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
)

// The shape of the contention tables (seed 001, WATCH against Lua): the
// clients of a row share Updates updates of one key, each client making
// Updates/clients of them at once. On loopback the rows are
// contentionClients and the updates contentionUpdates; through a Link with
// latency, the seed's remote table: remoteContentionClients and
// remoteContentionUpdates. Quick divides the updates by 5.
var (
	contentionClients       = []int{1, 5, 25, 50, 100}
	contentionUpdates       = 1000
	remoteContentionClients = []int{1, 5, 25}
	remoteContentionUpdates = 200
)

// contentionMaxAttempts is the attempts a WATCH update makes before it
// gives up; contentionBackoff the most the backoff variant waits (uniform
// random) before each retry.
const (
	contentionMaxAttempts = 100
	contentionBackoff     = 100 * time.Millisecond
)

// contentionMethod is one column of the contention tables: a counter
// pattern of package scenario and the commands a client sends for it,
// lowercase as INFO commandstats names them.
type contentionMethod struct {
	label   string
	pattern cases.Pattern
	backoff time.Duration
	sent    []string
}

var contentionMethods = []contentionMethod{
	{"GET then SET", cases.PatNaiveGetSet, 0, []string{"get", "set"}},
	{"WATCH/MULTI/EXEC", cases.PatWatchRetry, 0, []string{"watch", "get", "multi", "set", "exec"}},
	{"Lua", cases.PatLuaIncr, 0, []string{"eval"}},
	{"INCR", cases.PatIncr, 0, []string{"incr"}},
	{"WATCH + backoff", cases.PatWatchRetry, contentionBackoff, []string{"watch", "get", "multi", "set", "exec"}},
}

// contentionMetrics are the figures of the contention tables, one table
// each: ID, title and unit.
var contentionMetrics = []struct{ ID, Title, Unit string }{
	{"contention-lost", "Contention: updates lost", "updates (expected minus final value)"},
	{"contention-commands", "Contention: commands per update", "commands counted by the server"},
	{"contention-time", "Contention: total time", "ms"},
	{"contention-gave-up", "Contention: updates given up", "updates"},
	{"contention-p50", "Contention: p50 per update", "ms"},
	{"contention-p99", "Contention: p99 per update", "ms"},
}

// runTrials is the number of whole runs per cell of a table whose trial
// is a run (contention, INCREX, scripts): n, quick with Quick, fewer when
// Trials asks for fewer.
func (b *bencher) runTrials(n, quick int) int {
	if b.o.Quick {
		n = quick
	}
	if b.o.Trials > 0 {
		n = min(n, b.o.Trials)
	}
	return n
}

// contentionTrials is the runs per cell of the contention and INCREX
// tables: 5, 2 with Quick.
func (b *bencher) contentionTrials() int { return b.runTrials(5, 2) }

// contention: N clients updating one key at once, for each method of
// contentionMethods; one table per figure of contentionMetrics.
func (b *bencher) contention() ([]*Table, error) {
	clients, updates := contentionClients, contentionUpdates
	if b.o.Link.Latency > 0 {
		clients, updates = remoteContentionClients, remoteContentionUpdates
	}
	if b.o.Quick {
		updates /= 5
	}
	trials := b.contentionTrials()
	cols := make([]string, len(contentionMethods))
	for i, m := range contentionMethods {
		cols[i] = m.label
	}
	tabs := make([]*Table, len(contentionMetrics))
	for i, m := range contentionMetrics {
		tabs[i] = &Table{ID: m.ID, Title: m.Title, Unit: m.Unit, RowHeader: "clients", Columns: cols, Trials: trials}
	}
	tabs[0].Note = fmt.Sprintf("the clients of a row share %d updates of one key (each makes %d/clients at once); "+
		"GET then SET reads and writes back the value plus one; WATCH/MULTI/EXEC retries up to %d attempts, then gives up; "+
		"Lua is one EVAL that reads and writes; INCR; WATCH + backoff waits a random 0-%s before each retry",
		updates, updates, contentionMaxAttempts, contentionBackoff)
	tabs[1].Note = "from INFO commandstats before and after each run, the commands the client sends (for Lua only EVAL, " +
		"not the GET and SET the script calls; for WATCH the SET only when EXEC ran it), minus the run's initial SET " +
		"and final GET, divided by the updates that succeeded; on a shared server others' commands count too"
	tabs[5].Note = "an update's time includes its retries and backoff"
	for _, n := range clients {
		b.progress(fmt.Sprintf("Contention: %d clients", n))
		per := max(1, updates/n)
		figs := make([][][]float64, len(contentionMetrics)) // [metric][method][trial]
		for i := range figs {
			figs[i] = make([][]float64, len(contentionMethods))
		}
		for range trials {
			for mi, m := range contentionMethods {
				vals, err := b.contentionRun(m, n, per)
				if err != nil {
					return nil, fmt.Errorf("contention, %s, %d clients: %w", m.label, n, err)
				}
				for i, v := range vals {
					figs[i][mi] = append(figs[i][mi], v)
				}
			}
		}
		for i, t := range tabs {
			row := Row{Label: strconv.Itoa(n), X: float64(n), Cells: make([]Stat, len(contentionMethods))}
			for mi := range contentionMethods {
				row.Cells[mi] = summarize(figs[i][mi])
			}
			t.Rows = append(t.Rows, row)
		}
	}
	b.cleanup()
	return tabs, nil
}

// contentionRun runs m once with n clients making per updates each and
// returns the figures of contentionMetrics in order.
func (b *bencher) contentionRun(m contentionMethod, n, per int) ([]float64, error) {
	sc := &cases.Scenario{Pattern: m.pattern, Connections: n, Iterations: per, Backoff: m.backoff}
	if m.pattern == cases.PatWatchRetry {
		sc.MaxAttempts = contentionMaxAttempts
	}
	before, err := b.commandStats()
	if err != nil {
		return nil, err
	}
	met, err := b.scenario(sc)
	if err != nil {
		return nil, err
	}
	after, err := b.commandStats()
	if err != nil {
		return nil, err
	}
	calls := 0.0
	for _, c := range m.sent {
		calls += after[c] - before[c]
	}
	calls -= setupCalls(m.sent)
	perUpdate := 0.0
	if ok := met["succeeded"]; ok > 0 {
		perUpdate = calls / ok
	}
	return []float64{met["lost_updates"], perUpdate, met["duration_ms"], met["gave_up"], met["p50_ms"], met["p99_ms"]}, nil
}

// setupCalls is what a counter scenario sends besides its updates among
// the commands sent: one SET of the initial value, one GET of the final.
func setupCalls(sent []string) float64 {
	n := 0.0
	for _, c := range sent {
		if c == "set" || c == "get" {
			n++
		}
	}
	return n
}

// commandStats reads INFO commandstats: the calls of each command, by its
// lowercase name ("get", "client|setinfo").
func (b *bencher) commandStats() (map[string]float64, error) {
	v, err := b.c.doString("INFO", "commandstats")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for line := range strings.Lines(string(v.Str)) {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isStat := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isStat {
			continue
		}
		for field := range strings.SplitSeq(rest, ",") {
			if calls, ok := strings.CutPrefix(field, "calls="); ok {
				f, err := strconv.ParseFloat(calls, 64)
				if err != nil {
					return nil, fmt.Errorf("INFO commandstats: %q: %w", line, err)
				}
				out[name] = f
			}
		}
	}
	return out, nil
}
