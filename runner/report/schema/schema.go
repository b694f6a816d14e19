// Package schema holds the JSON Schemas (draft 2020-12) of respcheck's JSON
// reports: run.schema.json (respcheck run --format json), clients.schema.json
// (respcheck clients --format json) and the definitions they share,
// common.schema.json (raw bytes, RESP values, the server).
package schema

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// files are the schema files, by name.
//
//go:embed *.schema.json
var files embed.FS

// Check validates report (a JSON document) against the named schema
// ("run" or "clients") and returns what does not match, or nil.
func Check(name string, report []byte) error {
	c := jsonschema.NewCompiler()
	names, err := fs.Glob(files, "*.schema.json")
	if err != nil {
		return err
	}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		if err := c.AddResource("https://respcheck.dev/schema/"+n, doc); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	sch, err := c.Compile(fmt.Sprintf("https://respcheck.dev/schema/%s.schema.json", name))
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(report))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return sch.Validate(inst)
}
