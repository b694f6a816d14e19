package replies

import (
	"slices"
	"strings"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// JSONReport is the JSON report of respcheck clients --generate, which
// respcheck report also reads (it has "generated_replies": 1).
type JSONReport struct {
	GeneratedReplies int                  `json:"generated_replies"` // the format's version: 1
	Seed             uint64               `json:"seed"`
	Server           target.Server        `json:"server"`
	Clients          []clients.ClientInfo `json:"clients"`
	// Judged and Served count frames per client name.
	Judged    map[string]int    `json:"judged"`
	Served    map[string]int    `json:"served"`
	NotServed map[string]string `json:"not_served,omitempty"`
	Findings  []JSONFinding     `json:"findings"`
	// Seconds is the run's wall time; ServerLost why it ended early.
	Seconds    float64 `json:"seconds"`
	ServerLost string  `json:"server_lost,omitempty"`
}

// JSONFinding is one finding class: frames are escaped (resp.Escape), as
// Go string literals read them back.
type JSONFinding struct {
	Client  string `json:"client"`
	Proto   int    `json:"proto"`
	Verdict string `json:"verdict"`
	Rule    string `json:"rule"`
	Kind    string `json:"kind,omitempty"`
	// Command is what the library sent that the frames answered
	// (Finding.Command: "HGETALL {key}").
	Command string `json:"command"`
	Count   int    `json:"count"`
	// Class is "served" or "spec-only", of Shrunk.
	Class  string `json:"class"`
	Frame  string `json:"frame"`
	Shrunk string `json:"shrunk"`
	// Alone says Frame gave the class again served alone (and was
	// shrunk); Before counts the frames the connection read before it.
	Alone  bool `json:"alone"`
	Before int  `json:"before"`
	// Lua is the script that makes a server send Shrunk (EVAL Lua 0).
	Lua    string   `json:"lua,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Canary string   `json:"canary,omitempty"`
}

// JSON is r as its JSON report, findings by client name, then class.
func (r *Report) JSON() *JSONReport {
	out := &JSONReport{GeneratedReplies: 1, Seed: r.Seed, Server: r.Server, Clients: r.Clients, Judged: r.Judged,
		Served: r.Served, NotServed: r.NotServed, Seconds: r.Duration.Seconds(), ServerLost: r.ServerLost,
		Findings: []JSONFinding{}}
	for _, x := range r.Findings {
		lua, _ := x.Shrunk.Lua()
		out.Findings = append(out.Findings, JSONFinding{Client: x.Client, Proto: x.Proto, Verdict: x.Verdict.String(),
			Rule: x.Rule, Kind: x.Kind, Command: x.Command(), Count: x.Count, Class: x.Shrunk.Class.String(), Frame: resp.Escape(x.Frame.Bytes()),
			Shrunk: resp.Escape(x.Shrunk.Bytes()), Alone: x.Alone, Before: len(x.Before), Lua: lua, Notes: x.Notes, Canary: x.Canary})
	}
	slices.SortStableFunc(out.Findings, func(a, b JSONFinding) int { return strings.Compare(a.Client, b.Client) })
	return out
}
