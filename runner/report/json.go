package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/schema"
	"github.com/respcheck/respcheck/runner/target"
)

// JSONReport is the shape of the JSON format (version 1).
type JSONReport struct {
	Version int           `json:"version"`
	RunID   string        `json:"run_id,omitempty"`
	Server  target.Server `json:"server"`
	// Shard is the part of the selected cases the run ran ("2/3", run
	// --shard), "" for all of them.
	Shard string `json:"shard,omitempty"`
	// Selection names the whole selection a part is of: parts of one run
	// have the same (runner.Report.Selection).
	Selection  string    `json:"selection,omitempty"`
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"duration_ms"`
	ServerLost string    `json:"server_lost,omitempty"`
	// KeysRemoved and DBSize (before, after) are set for runs against a
	// shared server (--addr/-u), where each case's keys are deleted.
	KeysRemoved *int64 `json:"keys_removed,omitempty"`
	// KeysLeft are SCAN MATCH patterns of keys the run could not delete.
	KeysLeft []string `json:"keys_left,omitempty"`
	// Restarts say which throwaway servers died and were started again.
	Restarts []string  `json:"restarts,omitempty"`
	DBSize   *[2]int64 `json:"db_size,omitempty"`
	// Protection is how a guarded run on a shared server kept to its keys.
	Protection *runner.Protection `json:"protection,omitempty"`
	Summary    runner.Summary     `json:"summary"`
	Results    []JSONResult       `json:"results"`
	// Schema is the reply-schema check of run --check-schema.
	Schema *schema.Report `json:"schema,omitempty"`
}

// JSONResult is one case in one protocol.
type JSONResult struct {
	File   string        `json:"file"`
	Case   string        `json:"case"`
	Pos    string        `json:"pos"`
	Proto  int           `json:"proto"`
	Status runner.Status `json:"status"`
	// NotRun says the case never ran, or was cut short: the run was
	// interrupted (status skip) or its server lost (status error).
	NotRun     bool    `json:"not_run,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	// KeyPrefix is the run's prefix of the case's key names (unique per
	// run and case): replacing it with golden.Placeholder (golden.Normalize)
	// makes the bytes of two runs comparable. Empty for a case with no
	// keys.
	KeyPrefix string       `json:"key_prefix,omitempty"`
	Failure   *JSONFailure `json:"failure,omitempty"`
	// MoreFailures are runner.Result.More: the later steps that failed
	// too in a continue_on_failure case.
	MoreFailures []JSONFailure `json:"more_failures,omitempty"`
	// Differences groups failure and MoreFailures by command and kind
	// (runner.Result.Differences), when there is more than one.
	Differences []runner.Difference `json:"differences,omitempty"`
	Steps       []JSONStep          `json:"steps,omitempty"`
	// Metrics are a scenario's figures (runner.Metrics).
	Metrics runner.Metrics `json:"metrics,omitempty"`
}

// JSONFailure is the failing step's comparison.
type JSONFailure struct {
	// Pos is the failing step's position; ExpectPos, where the
	// expectation that failed is written (its reply: line), when it is
	// one of a written expectation.
	Pos       string `json:"pos"`
	ExpectPos string `json:"expect_pos,omitempty"`
	Message   string `json:"message"`
	Expected  string `json:"expected"`
	// Offset is the first differing byte of a byte-exact comparison, or -1.
	Offset int `json:"offset"`
}

// JSONStep is what one step sent and read. Byte fields are Bytes (a string
// of the bytes, or {"base64": ...} where they are not UTF-8); Value is the
// reply in resp's canonical JSON.
type JSONStep struct {
	// Index is the step's index in the case (golden.Step.Index): steps a
	// server's gates skip leave gaps.
	Index  int     `json:"index"`
	Pos    string  `json:"pos"`
	Conn   string  `json:"conn"`
	Action string  `json:"action"`
	Args   []Bytes `json:"args,omitempty"`
	// Captured are the indexes in Args of the arguments made from a value
	// captured from an earlier reply (cases.Step.CapturedArgs): a client
	// ID, which differs from run to run and from server to server, so
	// that the report page compares Sent with them masked.
	Captured  []int `json:"captured,omitempty"`
	Sent      Bytes `json:"sent,omitempty"`
	SentSize  int   `json:"sent_size,omitempty"`
	Reply     Bytes `json:"reply,omitempty"`
	ReplySize int   `json:"reply_size,omitempty"`
	// ReplyTruncated: Reply holds only the first 64 KiB of ReplySize bytes.
	ReplyTruncated bool            `json:"reply_truncated,omitempty"`
	Value          json.RawMessage `json:"value,omitempty"`
	Pushes         []Bytes         `json:"pushes,omitempty"`
	// Redirects are the MOVED and ASK replies followed before Reply.
	Redirects []runner.Redirect `json:"redirects,omitempty"`
	Error     string            `json:"error,omitempty"`
	// Volatile says the reply is compared by its expectation only, never
	// byte for byte (golden.Volatile): it differs from run to run.
	Volatile   bool    `json:"volatile,omitempty"`
	DurationMS float64 `json:"duration_ms"`
}

// JSON writes the report as one indented JSON document (JSONReport).
func JSON(w io.Writer, rep *runner.Report) error { return writeIndented(w, ToJSON(rep)) }

// writeIndented writes v as one JSON document indented by two spaces.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ToJSON is the JSON form of a run's report (what JSON writes), for
// writers that build on it (runner/report/page).
func ToJSON(rep *runner.Report) JSONReport {
	out := JSONReport{Version: 1, RunID: rep.RunID, Server: rep.Server, Shard: rep.Shard.String(), Selection: rep.Selection, Started: rep.Started,
		DurationMS: ms(rep.Duration), Summary: rep.Summary, Results: []JSONResult{}}
	if rep.ServerLost != nil {
		out.ServerLost = rep.ServerLost.Error()
	}
	out.KeysLeft, out.Restarts, out.Schema = rep.KeysLeft, rep.Restarts, rep.Schema
	out.Protection = rep.Protection
	if rep.Shared() {
		out.KeysRemoved, out.DBSize = &rep.KeysRemoved, &rep.DBSize
	}
	for _, res := range rep.Results {
		jr := resultHead(res)
		info := rep.Server.Info(res.Proto)
		info.Cluster = rep.Topology != nil
		for _, sr := range res.Steps {
			js := JSONStep{Index: sr.Step.Index, Pos: sr.Step.Pos.String(), Conn: sr.Conn, Action: sr.Step.Action.String(),
				DurationMS: ms(sr.Duration)}
			if exp, ok := sr.Step.Expect.Resolve(info); ok || len(sr.Step.Expect) == 0 {
				js.Volatile = golden.Volatile(sr.Step, exp)
			}
			js.Args = bytesList(sr.Args)
			if len(sr.Args) == len(sr.Step.Send) {
				js.Captured = sr.Step.CapturedArgs()
			}
			if sr.Sent != nil {
				js.Sent, js.SentSize = Bytes(sr.Sent), sr.SentSize
			}
			if sr.Reply != nil {
				js.Reply, js.ReplySize = Bytes(sr.Reply), sr.ReplySize
				if len(sr.Reply) > maxJSONReply {
					// A 1 MiB reply would be megabytes of JSON: its start,
					// its size and (for goldens) its hash say enough.
					js.Reply, js.ReplyTruncated = Bytes(sr.Reply[:maxJSONReply]), true
				} else if n, v, err := resp.ParseLimits(sr.Reply, resp.AnyDepth(sr.Reply)); err == nil && n > 0 && v.Depth() <= maxJSONValueDepth {
					js.Value, _ = v.MarshalJSON() // deeper: left out (jsonValue)
				}
			}
			js.Pushes = bytesList(sr.Pushes)
			js.Redirects = sr.Redirects
			if sr.Err != nil {
				js.Error = sr.Err.Error()
			}
			jr.Steps = append(jr.Steps, js)
		}
		out.Results = append(out.Results, jr)
	}
	return out
}

// resultHead is a result's JSON without its steps: the case, status and
// failure (the jsonl format's result lines are this).
func resultHead(res *runner.Result) JSONResult {
	jr := JSONResult{File: res.Case.File.Path, Case: res.Case.Name, Pos: res.Case.Pos.String(),
		Proto: res.Proto, Status: res.Status, NotRun: res.NotRun, Reason: res.Reason, DurationMS: ms(res.Duration), Metrics: res.Metrics,
		KeyPrefix: res.KeyPrefix}
	if f := res.Failure; f != nil {
		jr.Failure = jsonFailure(f)
	}
	for _, f := range res.More {
		jr.MoreFailures = append(jr.MoreFailures, *jsonFailure(f))
	}
	if len(res.More) > 0 {
		jr.Differences = res.Differences()
	}
	return jr
}

// jsonFailure is f's JSON.
func jsonFailure(f *runner.Failure) *JSONFailure {
	return &JSONFailure{Pos: f.Step.Pos.String(), ExpectPos: expectPos(f), Message: f.Message, Expected: f.Expected, Offset: f.Offset}
}

// maxJSONReply is the most reply bytes a JSON step shows.
const maxJSONReply = 64 << 10

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// expectPos is the JSON of a failure's ExpectPos: "" when it has none.
func expectPos(f *runner.Failure) string {
	if f.ExpectPos.Line == 0 {
		return ""
	}
	return f.ExpectPos.String()
}
