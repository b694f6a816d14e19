package explore

import (
	"github.com/respcheck/respcheck/resp"
)

// JSONReport is respcheck explore's --format json report, which respcheck
// report also reads (a section of the HTML page).
type JSONReport struct {
	// Seed draws the same sequences again (--seed).
	Seed uint64 `json:"seed"`
	// A and B name the two targets ("redis 8.6.3 (redis-8.6.3)").
	A string `json:"a"`
	B string `json:"b"`
	// Sequences and Commands count what ran, each command once per
	// protocol; Seconds is the run's wall time.
	Sequences int     `json:"sequences"`
	Commands  int     `json:"commands"`
	Seconds   float64 `json:"duration_seconds"`
	// MissingOnB are the commands of A's grammar that B does not have.
	MissingOnB []string `json:"missing_on_b,omitempty"`
	// Noise and Unordered are the commands learned to differ between two
	// servers of A's build, and to answer in no stable order.
	Noise       []string `json:"noise,omitempty"`
	Unordered   []string `json:"unordered,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	// Differences are A against B; Faults a target's own (crash,
	// freeze, bytes that are not RESP, a reply count off).
	Differences []JSONFinding `json:"differences"`
	Faults      []JSONFinding `json:"faults"`
	// Schema are A's replies that its reply schemas reject
	// (--check-schema).
	Schema []JSONFinding `json:"schema,omitempty"`
}

// JSONFinding is one finding of a JSONReport.
type JSONFinding struct {
	// Signature is what makes the finding distinct: the command, and the
	// two replies' types or an error's first words ("BITCOUNT: simple
	// error ERR syntax error | integer").
	Signature string `json:"signature"`
	// Command is the command's name ("GEOADD", "OBJECT ENCODING",
	// "EVAL(LPUSH)" for a command a script ran).
	Command   string `json:"command"`
	Protocols []int  `json:"protocols"`
	// Sequence is the shrunk sequence, each command as its words, each
	// word escaped as A and B are (resp.Escape: a JSON string holds only
	// UTF-8, and the keyspace's values are not).
	Sequence [][]string `json:"sequence"`
	// A and B are the replies to the sequence's last command, escaped
	// (resp.Escape); a fault's are the target's own.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	// Seen counts the sequences that showed it; Original is the length
	// of the first of them, before shrinking.
	Seen     int `json:"seen"`
	Original int `json:"shrunk_from"`
	// Target ("A" or "B") and Fault ("lost", "malformed"... as the
	// signature says) for a fault.
	Target string `json:"target,omitempty"`
	Lost   string `json:"lost,omitempty"`
	Desync bool   `json:"desync,omitempty"`
	// Known: the bundled suite already expects other replies from the
	// two servers for this command.
	Known bool `json:"known,omitempty"`
	// Schema is the schema path (and errors) that rejects A's reply.
	Schema string `json:"schema,omitempty"`
}

// ToJSON is rep as its JSON report, the findings sorted into differences,
// faults and schema findings; known says which commands' differences the
// bundled suite declares already.
func ToJSON(rep *Report, seed uint64, names Sides, missing []string, known map[string]bool) JSONReport {
	out := JSONReport{Seed: seed, A: names.AName, B: names.BName, Sequences: rep.Sequences, Commands: rep.Commands,
		Seconds: rep.Duration.Seconds(), MissingOnB: missing, Noise: rep.Noise, Unordered: rep.Unordered, Interrupted: rep.Interrupted,
		Differences: []JSONFinding{}, Faults: []JSONFinding{}}
	for _, f := range rep.Findings {
		j := JSONFinding{Signature: f.Signature, Command: f.Command, Protocols: f.Protos, Sequence: escapeSeq(f.Seq),
			Seen: f.Seen, Original: f.Original, Target: f.Side, Lost: f.Lost, Desync: f.Desync,
			Known: known[f.Command] && f.Difference(), Schema: f.Schema}
		if f.A != nil {
			j.A = resp.Escape(f.A)
		}
		if f.B != nil {
			j.B = resp.Escape(f.B)
		}
		switch {
		case f.Schema != "":
			out.Schema = append(out.Schema, j)
		case !f.Difference():
			out.Faults = append(out.Faults, j)
		default:
			out.Differences = append(out.Differences, j)
		}
	}
	return out
}

// escapeSeq is seq with every word escaped (resp.Escape).
func escapeSeq(seq [][]string) [][]string {
	out := make([][]string, len(seq))
	for i, words := range seq {
		out[i] = make([]string, len(words))
		for j, w := range words {
			out[i][j] = resp.Escape([]byte(w))
		}
	}
	return out
}
