package clients

import (
	"slices"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// Explanation is a client's decoding contract as respcheck clients
// --explain prints it: what the judge accepts from it, and why.
type Explanation struct {
	// Client is the client name ("redis-py-6.4.0/resp2"); Version, API and
	// Source are its driver's.
	Client  string `json:"client"`
	Version string `json:"version"`
	API     string `json:"api"`
	Source  string `json:"source,omitempty"`
	// Rules say, for each RESP type in resp.Kind order, what the judge
	// accepts the library's decoding of it as: a native kind ("string",
	// "bytes", "int", "map"...) with its verdict. A kind a rule does not
	// list is a mismatch, unless a conversion applies.
	Rules []KindRule `json:"rules,omitempty"`
	// Text says the client's printed text is judged instead of a value
	// (a command-line client): Rules are then empty.
	Text bool `json:"text,omitempty"`
	// Notes are the contract's own words on the library's decoding.
	Notes []string `json:"notes,omitempty"`
	// Conversions are the library's documented reshapings, each with the
	// documentation or source (file and version) that states it.
	Conversions []ConversionRef `json:"conversions,omitempty"`
	// Callbacks are the functions the library applies to the replies of
	// the commands they are registered for: a mismatch on such a reply
	// names its callback (ruleCallback).
	Callbacks []CallbackRef `json:"callbacks,omitempty"`
}

// CallbackRef is a library's callback, its commands and its source.
type CallbackRef struct {
	Commands []string `json:"commands"`
	// RESP2 says the library applies it on RESP2 connections only.
	RESP2  bool   `json:"resp2_only,omitempty"`
	Name   string `json:"name"`
	Source string `json:"source"`
}

// KindRule is what the judge accepts the decoding of one RESP type as.
type KindRule struct {
	Type    string          `json:"type"` // the RESP3 spec's name: "blob string"
	Natives []NativeVerdict `json:"natives"`
}

// NativeVerdict is one native kind and the verdict a decoding of that
// kind gets.
type NativeVerdict struct {
	Native  string  `json:"native"`
	Verdict Verdict `json:"verdict"`
}

// ConversionRef names a documented conversion and its source.
type ConversionRef struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// Explain is the contract the judge applies to d in proto.
func Explain(d Driver, proto int) Explanation {
	name := ClientName(d, proto)
	c := contractOf(d, name)
	e := Explanation{Client: name, Version: d.Version(), API: d.API(), Source: sourceOf(d), Text: c.output != nil}
	for _, n := range c.Notes {
		if !strings.HasPrefix(n, "converted: ") { // a conversion's own note (withConversions)
			e.Notes = append(e.Notes, n)
		}
	}
	for _, cv := range c.Conversions {
		e.Conversions = append(e.Conversions, ConversionRef{Name: cv.Name, Source: cv.Source})
	}
	for _, cb := range c.Callbacks {
		if !(cb.RESP2 && proto != 2) {
			e.Callbacks = append(e.Callbacks, CallbackRef{Commands: cb.Commands, RESP2: cb.RESP2, Name: cb.Name, Source: cb.Source})
		}
	}
	if e.Text {
		return e
	}
	kinds := make([]resp.Kind, 0, len(c.Kinds))
	for k := range c.Kinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		r := KindRule{Type: k.String()}
		natives := make([]string, 0, len(c.Kinds[k]))
		for n := range c.Kinds[k] {
			natives = append(natives, n)
		}
		// The accepted ones first, then by name.
		slices.SortFunc(natives, func(a, b string) int {
			if va, vb := c.Kinds[k][a], c.Kinds[k][b]; va != vb {
				return int(va) - int(vb)
			}
			if a < b {
				return -1
			}
			return 1
		})
		for _, n := range natives {
			r.Natives = append(r.Natives, NativeVerdict{Native: n, Verdict: c.Kinds[k][n]})
		}
		e.Rules = append(e.Rules, r)
	}
	return e
}
