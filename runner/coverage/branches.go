package coverage

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/schema"
)

// Branches is the reply-schema coverage of a set of recorded replies:
// for each command whose replies were checked against its reply schema
// (schema.Report), the oneOf and anyOf branches of that schema some reply
// took and those none did (the reply forms no case produced).
type Branches struct {
	// Build is the build whose schemas were used ("redis-8.6.3").
	Build string `json:"build"`
	// Missing says why there is nothing (the schemas are not installed:
	// the message names scripts/install-schemas.sh), else "".
	Missing string `json:"missing,omitempty"`
	// Produced and Total count the branches taken and the branches of
	// the schemas of the commands checked (a command never replied to
	// is not counted: the command rows say it was not sent).
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

// BranchesOf summarises the branches of r (a golden directory's check,
// golden.Dir.CheckSchemas, or a run's).
func BranchesOf(r *schema.Report) *Branches {
	out := &Branches{Build: r.Build, Missing: r.Missing, Commands: []CommandBranches{}}
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

// writeBranches prints the branch coverage: one line of totals (or why
// there is none), and with verbose one line per command with a branch
// never produced.
func writeBranches(w io.Writer, b *Branches, verbose bool) {
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

// GoldenBranches checks the replies d recorded with the installed reply
// schemas of its build (schema.Dir(d.Build())) and summarises their
// branches; when they cannot be loaded (not installed, as for the builds
// from binary packages) Missing says why and nothing is counted.
func GoldenBranches(d *golden.Dir) *Branches {
	set, err := schema.Load(schema.Dir(d.Build()))
	if err != nil {
		return BranchesOf(schema.NewReport(d.Build(), nil, err))
	}
	return BranchesOf(d.CheckSchemas(set))
}
