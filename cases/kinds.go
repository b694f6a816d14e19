package cases

import "github.com/respcheck/respcheck/resp"

// kindNames are the names accepted by {type: NAME}: the RESP3 specification
// names, plus names for RESP2's two nil forms. The first name of each kind
// is its canonical name.
var kindNames = []struct {
	name string
	kind resp.Kind
}{
	{"simple string", resp.SimpleString},
	{"simple error", resp.SimpleError},
	{"integer", resp.Integer},
	{"number", resp.Integer},
	{"blob string", resp.BlobString},
	{"bulk string", resp.BlobString},
	{"nil blob string", resp.NilBlobString},
	{"nil bulk string", resp.NilBlobString},
	{"array", resp.Array},
	{"nil array", resp.NilArray},
	{"null", resp.Null},
	{"double", resp.Double},
	{"boolean", resp.Boolean},
	{"blob error", resp.BlobError},
	{"verbatim string", resp.VerbatimString},
	{"big number", resp.BigNumber},
	{"map", resp.Map},
	{"set", resp.Set},
	{"attribute", resp.Attribute},
	{"push", resp.Push},
}

func kindByName(name string) (resp.Kind, bool) {
	for _, kn := range kindNames {
		if kn.name == name {
			return kn.kind, true
		}
	}
	return 0, false
}

// kindName returns the canonical name of k.
func kindName(k resp.Kind) string {
	for _, kn := range kindNames {
		if kn.kind == k {
			return kn.name
		}
	}
	return "invalid"
}

func canonicalKindNames() []string {
	var names []string
	seen := map[resp.Kind]bool{}
	for _, kn := range kindNames {
		if !seen[kn.kind] {
			seen[kn.kind] = true
			names = append(names, kn.name)
		}
	}
	return names
}
