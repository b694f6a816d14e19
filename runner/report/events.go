package report

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// Event is one line of the jsonl format: a "result" line per case and
// protocol as it finishes (go test -json's habit, for CI tools that show
// progress), then one "summary" line when the run ends.
type Event struct {
	// Event is "result" or "summary".
	Event string `json:"event"`
	// Result is a result line's case: JSONResult without its steps (the
	// json format has them).
	Result *JSONResult `json:"result,omitempty"`
	// Server, RunID, Shard, Summary and DurationMS are the summary
	// line's (RunID and Shard as JSONReport has them).
	Server     *target.Server  `json:"server,omitempty"`
	RunID      string          `json:"run_id,omitempty"`
	Shard      string          `json:"shard,omitempty"`
	Summary    *runner.Summary `json:"summary,omitempty"`
	DurationMS float64         `json:"duration_ms,omitempty"`
	// ServerLost says why the run ended early, when its server was lost.
	ServerLost string `json:"server_lost,omitempty"`
}

// resultEvent is the result line of res.
func resultEvent(res *runner.Result) Event {
	jr := resultHead(res)
	return Event{Event: "result", Result: &jr}
}

// EventStream returns a function that writes each result to w as a
// result line, as the run hands it over (runner.Options.OnResult); it is
// safe for concurrent use. jsonl writes the summary line after.
func EventStream(w io.Writer) func(*runner.Result) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(res *runner.Result) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(resultEvent(res)) // a closed stdout ends the run's output, not the run
	}
}

// jsonl writes the jsonl format: a result line per result (unless o says
// they were streamed already, EventStream), then the summary line.
func jsonl(w io.Writer, rep *runner.Report, o HumanOptions) error {
	enc := json.NewEncoder(w)
	if !o.Streamed {
		for _, res := range rep.Results {
			if err := enc.Encode(resultEvent(res)); err != nil {
				return err
			}
		}
	}
	sum := Event{Event: "summary", Server: &rep.Server, RunID: rep.RunID, Shard: rep.Shard.String(), Summary: &rep.Summary,
		DurationMS: ms(rep.Duration)}
	if rep.ServerLost != nil {
		sum.ServerLost = rep.ServerLost.Error()
	}
	return enc.Encode(sum)
}
