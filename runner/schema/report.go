package schema

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// Report counts what Check made of a run's or a golden directory's RESP3
// replies. A finding does not fail the run: the schemas are the servers'
// own and "not yet mature" (Redis's src/commands/README.md), so a finding
// is a server bug or a schema bug, to be read, not a failed case.
type Report struct {
	// Build is the build whose schemas were used ("redis-8.6.3").
	Build string `json:"build"`
	// Source is what was checked, when it is not the run that made the
	// report: the golden directory's path (respcheck schema DIR...).
	Source string `json:"source,omitempty"`
	// Missing says why nothing was checked (the schemas are not
	// installed, naming the script), else "".
	Missing string `json:"missing,omitempty"`
	// Checked counts the replies validated (Valid and Invalid).
	Checked int `json:"checked"`
	// NoSchema counts the replies of commands without a schema, and
	// Skipped those that are not replies a schema describes (errors,
	// +QUEUED, cut goldens).
	NoSchema int `json:"no_schema"`
	Skipped  int `json:"skipped"`
	// SkippedBy counts the skipped replies by reason ("error reply",
	// "queued in MULTI", "not paired with a command").
	SkippedBy map[string]int `json:"skipped_by,omitempty"`
	// NoSchemaCommands counts, by command ("SUBSCRIBE", "CLIENT
	// NOSUCH"), the replies NoSchema counts.
	NoSchemaCommands map[string]int `json:"no_schema_commands,omitempty"`
	// Findings are the replies the schemas reject, in the order met.
	Findings []Located `json:"findings"`
	// Branches are, by command checked, its schema's oneOf and anyOf
	// branches and how many valid replies took each (branches.Never:
	// the reply forms no case produced).
	Branches map[string]*branches `json:"branches,omitempty"`

	// NotRESP3 counts the replies of RESP2 connections (not checked).
	NotRESP3 int `json:"not_resp3"`

	pending map[string][][][]byte // by connection: commands sent, replies not read yet (FIFO)
	lost    map[string]bool       // by connection: what was sent could not be read
	buf     map[string][]byte     // by connection: bytes sent, not a whole command yet
	multi   map[string][][][]byte // by connection: the commands queued since MULTI
	protos  map[string]int        // by connection: the protocol after a HELLO
	proto   int                   // the case's protocol
}

// Located is a Finding with the step that got the reply.
type Located struct {
	Finding
	// Pos is the step's place: "suite/strings.yaml:8:9" for a run,
	// "DIR/strings.golden:17" for a golden.
	Pos  string `json:"pos"`
	Case string `json:"case"`
	Step int    `json:"step"`
}

// NewReport starts the report of a build's check; with set nil (its
// schemas could not be loaded: err) it records why in Missing.
func NewReport(build string, set *Set, err error) *Report {
	r := &Report{Build: build, NoSchemaCommands: map[string]int{}, SkippedBy: map[string]int{}, Findings: []Located{},
		Branches: map[string]*branches{}}
	if set == nil {
		r.Missing = fmt.Sprintf("no reply schemas for %s: %v", build, err)
	}
	return r
}

// Add checks one reply with set and counts it; at says where it came from
// (Pos, Case, Step; the Finding is filled in).
func (r *Report) Add(set *Set, args [][]byte, reply []byte, at Located) {
	o, f, why, cmd, inst := set.checkBytes(args, reply)
	if cmd != nil && cmd.Schema != nil && o != NoSchema {
		b := r.Branches[cmd.Name]
		if b == nil {
			b = &branches{File: cmd.File, All: allBranches(cmd.Schema), Taken: map[string]int{}}
			r.Branches[cmd.Name] = b
		}
		if o == Valid {
			taken(cmd.Schema, inst, b.Taken, 0)
		}
	}
	switch o {
	case Valid:
		r.Checked++
	case Invalid:
		r.Checked++
		at.Finding = *f
		r.Findings = append(r.Findings, at)
	case NoSchema:
		r.NoSchema++
		name := strings.ToUpper(string(args[0]))
		if len(args) > 1 && (why == "unknown subcommand" || strings.HasPrefix(why, "no reply_schema")) {
			if c := set.Commands[name]; c != nil && c.Container {
				name += " " + strings.ToUpper(string(args[1]))
			}
		}
		r.NoSchemaCommands[name]++
	case Skipped:
		r.Skipped++
		r.SkippedBy[why]++
	}
}

// Summary is the report's one-line count: "redis-8.6.3 reply schemas:
// 812 RESP3 replies checked, 3 findings, 40 without a schema (7
// commands), 95 skipped (90 error reply, 5 queued in MULTI), 900 RESP2
// replies not checked".
func (r *Report) Summary() string {
	if r.Missing != "" {
		if r.Source != "" {
			return r.Source + ": " + r.Missing
		}
		return r.Missing
	}
	var whys, skips []string
	for why := range r.SkippedBy {
		whys = append(whys, why)
	}
	slices.Sort(whys)
	for _, why := range whys {
		skips = append(skips, fmt.Sprintf("%d %s", r.SkippedBy[why], why))
	}
	name := r.Build
	if r.Source != "" {
		name = r.Source + " (" + r.Build + ")"
	}
	return fmt.Sprintf("%s reply schemas: %d RESP3 replies checked, %d findings, %d without a schema (%d commands), %d skipped (%s), %d RESP2 replies not checked",
		name, r.Checked, len(r.Findings), r.NoSchema, len(r.NoSchemaCommands), r.Skipped, strings.Join(skips, ", "), r.NotRESP3)
}

// Write prints the findings, one block each (the reply escaped, the
// schema path, the failing checks), then when verbose the commands
// without a schema and the schema branches never produced (Coverage),
// then Summary.
func (r *Report) Write(w io.Writer, verbose bool) {
	for _, f := range r.Findings {
		fmt.Fprintf(w, "SCHEMA %s: %s %q step %d\n", f.Pos, f.Command, f.Case, f.Step)
		fmt.Fprintf(w, "      reply: %s\n", f.Reply)
		fmt.Fprintf(w, "      schema: %s#%s\n", f.File, f.Path)
		for _, e := range f.Errors {
			fmt.Fprintf(w, "        %s\n", e)
		}
	}
	if verbose && len(r.NoSchemaCommands) > 0 {
		var names []string
		for n, c := range r.NoSchemaCommands {
			names = append(names, fmt.Sprintf("%s (%d)", n, c))
		}
		slices.Sort(names)
		fmt.Fprintf(w, "no schema: %s\n", strings.Join(names, ", "))
	}
	if verbose && r.Missing == "" {
		r.Coverage().Write(w, true)
	}
	fmt.Fprintln(w, r.Summary())
}

// StartCase forgets the commands sent without a reply yet (Step) and
// starts every connection of the next case in protocol proto (2 or 3):
// call it before each case.
func (r *Report) StartCase(proto int) {
	r.pending, r.lost, r.buf, r.multi = map[string][][][]byte{}, map[string]bool{}, map[string][]byte{}, map[string][][][]byte{}
	r.protos, r.proto = map[string]int{}, proto
}

// reply checks one paired reply if its connection speaks RESP3, after a
// HELLO's switch: a HELLO 2 or HELLO 3 that did not fail sets its
// connection's protocol, its own reply included.
func (r *Report) reply(set *Set, conn string, args [][]byte, reply []byte, at Located) {
	if len(args) > 1 && strings.EqualFold(string(args[0]), "HELLO") && len(reply) > 0 && reply[0] != '-' && reply[0] != '!' {
		switch string(args[1]) {
		case "2":
			r.protos[conn] = 2
		case "3":
			r.protos[conn] = 3
		}
	}
	if r.connProto(conn) != 3 {
		r.NotRESP3++
		return
	}
	r.transaction(set, conn, args, reply, at)
	r.Add(set, args, reply, at)
}

// transaction follows MULTI on conn: each command answered +QUEUED is
// kept, and EXEC's array of replies is checked element by element against
// the queued commands' schemas (besides EXEC's own). MULTI, DISCARD and
// EXEC start afresh.
func (r *Report) transaction(set *Set, conn string, args [][]byte, reply []byte, at Located) {
	switch name := strings.ToUpper(string(args[0])); {
	case string(reply) == "+QUEUED\r\n":
		r.multi[conn] = append(r.multi[conn], args)
	case name == "EXEC":
		queued := r.multi[conn]
		delete(r.multi, conn)
		v, err := resp.ParseExact(reply)
		if err != nil || v.Kind != resp.Array || len(v.Elems) != len(queued) {
			return
		}
		for i, e := range v.Elems {
			r.Add(set, queued[i], e.Raw, at)
		}
	case name == "MULTI" || name == "DISCARD":
		delete(r.multi, conn)
	}
}

// connProto is conn's protocol: the case's, or the last HELLO's.
func (r *Report) connProto(conn string) int {
	if p, ok := r.protos[conn]; ok {
		return p
	}
	return r.proto
}
