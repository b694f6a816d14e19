package schema

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// branches is which of a command's schema branches (the subschemas of
// its oneOf and anyOf keywords) the checked replies took.
type branches struct {
	// File is the command file ("lpos.json").
	File string `json:"file"`
	// All are the schema's branches as JSON pointers into its reply
	// schema ("/anyOf/0", "/anyOf/2/items/oneOf/1"), sorted.
	All []string `json:"all"`
	// Taken counts the replies that took each branch (a reply takes a
	// branch it fits; under anyOf, every one it fits).
	Taken map[string]int `json:"taken"`
}

// Coverage is the reply-schema branch coverage of the replies a Report
// checked: for each command whose replies were checked against its reply
// schema, the oneOf and anyOf branches of that schema some reply
// took and those none did (the reply forms no case produced).
type Coverage struct {
	// Build is the build whose schemas were used ("redis-8.6.3").
	Build string `json:"build"`
	// Missing says why there is nothing (the schemas are not installed:
	// the message names scripts/install-schemas.sh), else "".
	Missing string `json:"missing,omitempty"`
	// Produced and Total count the branches taken and the branches of
	// the schemas of the commands checked (a command with a schema but
	// no reply checked is not counted).
	Produced int `json:"produced"`
	Total    int `json:"total"`
	// Commands are the commands checked whose schema has branches,
	// sorted by name.
	Commands []CommandBranches `json:"commands"`
}

// CommandBranches is one command's schema branches.
type CommandBranches struct {
	// Name is the command ("LPOS", "CLIENT LIST"), File its command file
	// ("lpos.json").
	Name string `json:"name"`
	File string `json:"file"`
	// Produced and Total count the branches taken and all of them.
	Produced int `json:"produced"`
	Total    int `json:"total"`
	// Never are the branches no reply took, as JSON pointers into the
	// reply schema ("/anyOf/1", "/oneOf/0/items/oneOf/1"), sorted.
	Never []string `json:"never,omitempty"`
}

// Coverage summarises the branches the report's valid replies took, by
// command (a golden directory's check, golden.Dir.CheckSchemas, or a
// run's); Missing is the report's.
func (r *Report) Coverage() *Coverage {
	out := &Coverage{Build: r.Build, Missing: r.Missing, Commands: []CommandBranches{}}
	for _, name := range slices.Sorted(maps.Keys(r.Branches)) {
		b := r.Branches[name]
		if len(b.All) == 0 {
			continue
		}
		never := b.Never()
		c := CommandBranches{Name: name, File: b.File, Total: len(b.All), Produced: len(b.All) - len(never), Never: never}
		out.Commands = append(out.Commands, c)
		out.Produced += c.Produced
		out.Total += c.Total
	}
	return out
}

// Write prints the branch coverage: one line of totals (or why there is
// none), and with verbose one line per command with a branch never
// produced ("  LPOP (lpop.json): 1 of 3 produced, never: /oneOf/1
// /oneOf/2").
func (b *Coverage) Write(w io.Writer, verbose bool) {
	if b.Missing != "" {
		fmt.Fprintf(w, "reply-schema branches: not counted: %s\n", b.Missing)
		return
	}
	partial := 0
	for _, c := range b.Commands {
		if len(c.Never) > 0 {
			partial++
		}
	}
	hint := ""
	if !verbose && partial > 0 {
		hint = " (-v lists them)"
	}
	fmt.Fprintf(w, "reply-schema branches (%s): %d of %d produced by the replies of %d commands; %d commands with a branch never produced%s\n",
		b.Build, b.Produced, b.Total, len(b.Commands), partial, hint)
	if !verbose {
		return
	}
	for _, c := range b.Commands {
		if len(c.Never) > 0 {
			fmt.Fprintf(w, "  %s (%s): %d of %d produced, never: %s\n", c.Name, c.File, c.Produced, c.Total, strings.Join(c.Never, " "))
		}
	}
}

// Never returns the branches no reply took, sorted.
func (b *branches) Never() []string {
	var out []string
	for _, p := range b.All {
		if b.Taken[p] == 0 {
			out = append(out, p)
		}
	}
	return out
}

// allBranches lists the oneOf and anyOf branches of s and of every
// subschema under it ($ref targets once).
func allBranches(s *jsonschema.Schema) []string {
	out := []string{}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, b := range append(slices.Clone(s.OneOf), s.AnyOf...) {
			out = append(out, pointer(b))
		}
		for _, sub := range subschemas(s) {
			walk(sub)
		}
	}
	walk(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// subschemas are the schemas directly under s, whatever the instance.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.Contains, s.Items2020}
	out = append(append(append(append(out, s.AllOf...), s.AnyOf...), s.OneOf...), s.PrefixItems...)
	for _, p := range s.Properties {
		out = append(out, p)
	}
	for _, p := range s.PatternProperties {
		out = append(out, p)
	}
	for _, v := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch v := v.(type) {
		case *jsonschema.Schema:
			out = append(out, v)
		case []*jsonschema.Schema:
			out = append(out, v...)
		}
	}
	return slices.DeleteFunc(out, func(s *jsonschema.Schema) bool { return s == nil })
}

// taken adds to t the branches a valid instance takes in s: at each
// oneOf or anyOf, the branches it fits, then into the subschemas that
// apply to it and its members.
func taken(s *jsonschema.Schema, inst any, t map[string]int, depth int) {
	if s == nil || depth > 32 {
		return
	}
	for _, b := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if b.Validate(inst) == nil {
			t[pointer(b)]++
			taken(b, inst, t, depth+1)
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		taken(sub, inst, t, depth+1)
	}
	for _, sub := range s.AllOf {
		taken(sub, inst, t, depth+1)
	}
	switch v := inst.(type) {
	case []any:
		for i, e := range v {
			taken(itemSchema(s, i), e, t, depth+1)
		}
	case map[string]any:
		for k, e := range v {
			for _, sub := range propertySchemas(s, k) {
				taken(sub, e, t, depth+1)
			}
		}
	}
}

// itemSchema is the schema of an array's i-th item under s (draft
// 2019-09's items, as one schema or a tuple, and additionalItems).
func itemSchema(s *jsonschema.Schema, i int) *jsonschema.Schema {
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		return it
	case []*jsonschema.Schema:
		if i < len(it) {
			return it[i]
		}
		if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			return a
		}
	}
	if i < len(s.PrefixItems) {
		return s.PrefixItems[i]
	}
	return s.Items2020
}

// propertySchemas are the schemas of an object's member k under s.
func propertySchemas(s *jsonschema.Schema, k string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if p := s.Properties[k]; p != nil {
		out = append(out, p)
	}
	for re, p := range s.PatternProperties {
		if re.MatchString(k) {
			out = append(out, p)
		}
	}
	if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && len(out) == 0 {
		out = append(out, a)
	}
	return out
}

// pointer is the JSON pointer of s inside its reply schema (Location's
// fragment, URL-unescaped: "/patternProperties/^.*$").
func pointer(s *jsonschema.Schema) string {
	_, frag, _ := strings.Cut(s.Location, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		return u
	}
	return frag
}
