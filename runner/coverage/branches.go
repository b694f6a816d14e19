package coverage

import (
	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/schema"
)

// GoldenBranches checks the replies d recorded with the installed reply
// schemas of its build (schema.Dir(d.Build())) and summarises their
// branches; when they cannot be loaded (not installed, as for the builds
// from binary packages) Missing says why and nothing is counted.
func GoldenBranches(d *golden.Dir) *schema.Coverage {
	set, err := schema.Load(schema.Dir(d.Build()))
	if err != nil {
		return schema.NewReport(d.Build(), nil, err).Coverage()
	}
	return d.CheckSchemas(set).Coverage()
}
