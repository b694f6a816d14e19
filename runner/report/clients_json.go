package report

import (
	"io"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/target"
)

// ClientsJSONReport is the JSON form of a clients report.
type ClientsJSONReport struct {
	Server   target.Server        `json:"server"`
	Clients  []clients.ClientInfo `json:"clients"`
	Worst    clients.Verdict      `json:"worst"`
	Counts   map[string]int       `json:"counts"`
	Results  []ClientsJSONResult  `json:"results"`
	Duration float64              `json:"duration_seconds"`
	// Cases is the cases' own check (clients.Report.Cases) as run's JSON
	// report; absent when the cases were not checked.
	Cases *JSONReport `json:"cases,omitempty"`
}

// ClientsJSONResult is one case through one client.
type ClientsJSONResult struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Client  string          `json:"client"`
	Proto   int             `json:"proto"`
	Verdict clients.Verdict `json:"verdict"`
	// Rule is the ID of the rule that decided the verdict
	// (clients.Result.Rule).
	Rule string `json:"rule,omitempty"`
	// NotRun: the case did not run through the client, or was cut short
	// (clients.Result.NotRun).
	NotRun bool              `json:"not_run,omitempty"`
	Reason string            `json:"reason,omitempty"`
	Steps  []ClientsJSONStep `json:"steps,omitempty"`
	Wire   []clientsJSONWire `json:"wire,omitempty"`
}

// ClientsJSONStep is what one client made of one step. Byte fields are
// Bytes (a string of the bytes, or {"base64": ...} where they are not UTF-8);
// Command is the arguments shown for people.
type ClientsJSONStep struct {
	Pos     string      `json:"pos"`
	Conn    string      `json:"conn"`
	Command string      `json:"command,omitempty"`
	Args    []Bytes     `json:"args,omitempty"`
	Wire    Bytes       `json:"wire,omitempty"`
	Reply   Bytes       `json:"reply,omitempty"`
	CLI     string      `json:"reply_cli,omitempty"`
	Value   *resp.Value `json:"reply_value,omitempty"`
	Pushes  []Bytes     `json:"pushes,omitempty"`
	// Injected are frames the proxy sent on its own (--extra-after).
	Injected []Bytes         `json:"injected,omitempty"`
	Native   *clients.Native `json:"decoded,omitempty"`
	Verdict  clients.Verdict `json:"verdict"`
	// Rule is the ID of the rule that decided the verdict
	// (clients.StepView.Rule).
	Rule   string   `json:"rule,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Canary string   `json:"canary,omitempty"`
	Typed  string   `json:"typed_wrapper,omitempty"`
	// Cluster lists the redirects the library followed and the node
	// addresses the proxy rewrote (clients.StepView.Cluster).
	Cluster []string `json:"cluster,omitempty"`
}

// clientsJSONWire is one proxied connection's transcript, handshake
// included.
type clientsJSONWire struct {
	Conn   int                `json:"conn"`
	Frames []clientsJSONFrame `json:"frames"`
}

// clientsJSONFrame is one recorded frame.
type clientsJSONFrame struct {
	Dir   clients.Dir `json:"dir"`
	Bytes Bytes       `json:"bytes"`
	Kind  string      `json:"kind,omitempty"`
	Bad   bool        `json:"not_resp,omitempty"`
}

// ClientsJSON writes a clients report as one indented JSON document
// (ClientsJSONReport).
func ClientsJSON(w io.Writer, rep *clients.Report) error {
	return writeIndented(w, ClientsToJSON(rep))
}

// ClientsToJSON is the JSON form of a clients report (what ClientsJSON
// writes), for writers that build on it (runner/report/page).
func ClientsToJSON(rep *clients.Report) ClientsJSONReport {
	jr := ClientsJSONReport{Server: rep.Server, Clients: rep.Clients, Worst: rep.Worst(), Counts: map[string]int{},
		Duration: rep.Duration.Seconds()}
	if rep.Cases != nil {
		cr := ToJSON(rep.Cases)
		jr.Cases = &cr
	}
	for _, res := range rep.Results {
		jr.Counts[res.Verdict.String()]++
		r := ClientsJSONResult{ID: res.Case.ID(), Name: res.Case.FullName(), Client: res.Client, Proto: res.Proto,
			Verdict: res.Verdict, Rule: res.Rule(), NotRun: res.NotRun, Reason: res.Reason}
		for _, sv := range res.Steps {
			js := ClientsJSONStep{Pos: sv.Step.Pos.String(), Conn: sv.Conn, Native: jsonNative(sv.Native), Verdict: sv.Verdict,
				Rule: sv.Rule, Notes: sv.Notes, Canary: sv.Canary, Typed: sv.Typed, Cluster: sv.Cluster}
			if sv.Args != nil {
				js.Command, js.Args = resp.EscapeCommand(sv.Args), bytesList(sv.Args)
			}
			if sv.Wire != nil {
				js.Wire = Bytes(sv.Wire)
			}
			if sv.Reply != nil {
				js.Reply = Bytes(sv.Reply)
				if n, v, err := resp.ParseLimits(sv.Reply, resp.AnyDepth(sv.Reply)); err == nil && n > 0 { // one whole frame
					js.CLI = v.CLI()
					js.Value = jsonValue(v)
				}
			}
			js.Pushes, js.Injected = bytesList(sv.Pushes), bytesList(sv.Injected)
			r.Steps = append(r.Steps, js)
		}
		for _, c := range res.Wire {
			jw := clientsJSONWire{Conn: c.ID}
			for _, e := range c.Events {
				f := clientsJSONFrame{Dir: e.Dir}
				if e.Bad != nil {
					f.Bytes, f.Bad = Bytes(e.Bad), true
				} else {
					f.Bytes, f.Kind = Bytes(e.Value.Raw), e.Value.Kind.String()
				}
				jw.Frames = append(jw.Frames, f)
			}
			r.Wire = append(r.Wire, jw)
		}
		jr.Results = append(jr.Results, r)
	}
	return jr
}
